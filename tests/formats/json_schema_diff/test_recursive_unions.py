"""Recursive unions: many definitions pointing at one another through oneOf. The comparison
must terminate quickly, and remembering pairs across branches must never hide a change (a
pair assumed compatible while a cycle was open is re-checked until the answer is stable)."""
from __future__ import annotations

import copy
from typing import Any

from app.formats.base import STRICT_POLICY
from app.formats.json_schema.diff import compare, comparison, incompatible
from app.formats.json_schema.model import build_native

PRODUCTS = ["Asset", "Basket", "Swap", "Bond", "Option", "Future", "Forward", "Loan", "Repo",
            "Equity", "Index", "CommodityLeg"]


def _union(names: list[str]) -> dict[str, Any]:
    return {"oneOf": [{"$ref": f"#/definitions/{name}"} for name in names]}


def trade_schema() -> dict[str, Any]:
    """Twelve product types, each with two properties that may hold any product."""
    definitions = {
        name: {"type": "object", "properties": {
            "id": {"type": "string"}, "underlying": _union(PRODUCTS), "referenceProduct": _union(PRODUCTS)}}
        for name in PRODUCTS
    }
    return {"$schema": "http://json-schema.org/draft-07/schema#", "title": "Trade", "type": "object",
            "additionalProperties": True, "definitions": definitions,
            "properties": {"tradeId": {"type": "string"}, "product": _union(PRODUCTS)}}


def _linked(id_type: str, target: str) -> dict[str, Any]:
    return {"type": "object", "additionalProperties": True, "properties": {
        "id": {"type": id_type}, "ref": {"oneOf": [{"$ref": f"#/definitions/{target}"}]}}}


def masking_schema(first_id: str, second_id: str) -> dict[str, Any]:
    """T0 -> T2 -> T0 is a cycle; the root property is oneOf[T0, T1]. Changing T0.id and
    T1.id both, one pass with pairs remembered across branches would pair T0 with T0 while
    the cycle through it was still open (assumed compatible) and miss the change."""
    return {"$schema": "http://json-schema.org/draft-07/schema#", "type": "object", "additionalProperties": True,
            "definitions": {"T0": _linked(first_id, "T2"), "T1": _linked(second_id, "T2"),
                            "T2": _linked("integer", "T0")},
            "properties": {"root": {"oneOf": [{"$ref": "#/definitions/T0"}, {"$ref": "#/definitions/T1"}]}}}


def _incompatible(writer: dict[str, Any], reader: dict[str, Any]) -> list[str]:
    found = incompatible(compare(build_native(writer, {}), build_native(reader, {})), STRICT_POLICY)
    return sorted(f"{i.type} {i.location}" for i in found)


def test_a_reader_of_the_same_recursive_trade_schema_reads_the_writer_in_few_pairs() -> None:
    done = comparison(build_native(trade_schema(), {}), build_native(trade_schema(), {}))
    assert done.differences == []
    assert done.pairs <= 2_000 and done.passes <= 3, done.pairs_per_pass


def test_a_reader_whose_recursive_product_changed_an_id_type_is_refused() -> None:
    reader = trade_schema()
    reader["definitions"]["Asset"]["properties"]["id"]["type"] = "number"
    assert _incompatible(trade_schema(), reader)


def test_a_change_behind_an_open_cycle_is_not_masked_by_remembered_pairs() -> None:
    found = _incompatible(masking_schema("integer", "boolean"), masking_schema("boolean", "number"))
    assert "COMBINED_TYPE_SUBSCHEMAS_CHANGED #/properties/root" in found


def test_an_unchanged_cycle_is_still_compatible_after_the_fixpoint() -> None:
    schema = masking_schema("integer", "boolean")
    assert _incompatible(schema, copy.deepcopy(schema)) == []
