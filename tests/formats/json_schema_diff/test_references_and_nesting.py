"""References (local, anchored, in other documents, recursive) and the nesting bounds: the
checker follows `$ref`s transparently, terminates on cycles, and refuses what is too deep to
walk with a `SchemaParseError`, never a RecursionError."""
from __future__ import annotations

import copy
import gc
import json
import sys
import weakref
from collections.abc import Callable
from typing import Any, TypeVar

import pytest
from support.conformance import DATA

from app.formats.base import SchemaParseError
from app.formats.json_schema.diff import compare, comparison, incompatible, schema_diff
from app.formats.json_schema.diff.context import MAX_COMPARE_DEPTH
from app.formats.json_schema.diff.loader import MAX_DEPTH, model_of
from app.formats.json_schema.model import build_native

from .json_schema_rules import Rule, check_rule, modern

T = TypeVar("T")
CUSTOMER = {"type": "object", "properties": {"name": {"type": "string"}}}
CUSTOMER_NUMBERED = {"type": "object", "properties": {"name": {"type": "integer"}}}

RULES = [
    Rule("a reader whose local definition changed type refuses the writer's values",
         writer={"type": "array", "items": {"$ref": "#/definitions/x"}, "definitions": {"x": {"type": "string"}}},
         reader={"type": "array", "items": {"$ref": "#/definitions/x"}, "definitions": {"x": {"type": "number"}}},
         changes=["TYPE_CHANGED #/items"], compatible=False),
    Rule("a reader that moved its type into a definition is unchanged",
         writer={"type": "string"}, reader={"$ref": "#/definitions/s", "definitions": {"s": {"type": "string"}}},
         changes=[], compatible=True),
    Rule("a `$defs` reference finds a `definitions` entry, as Confluent's does",
         writer={"$ref": "#/$defs/s", "definitions": {"s": {"type": "string", "maxLength": 3}}},
         reader={"type": "string", "maxLength": 2},
         changes=["MAX_LENGTH_DECREASED #/maxLength"], compatible=False),
    Rule("2020-12: an `$anchor` reference is followed",
         writer=modern({"$defs": {"a": {"$anchor": "A", "type": "string", "maxLength": 4}},
                        "properties": {"p": {"$ref": "#A"}}}),
         reader=modern({"$defs": {"a": {"$anchor": "A", "type": "string", "maxLength": 3}},
                        "properties": {"p": {"$ref": "#A"}}}),
         changes=["MAX_LENGTH_DECREASED #/properties/p/maxLength"], compatible=False),
    Rule("2020-12: keywords beside a `$ref` are compared with it (an allOf)",
         writer=modern({"$defs": {"s": {"type": "string"}}, "$ref": "#/$defs/s", "maxLength": 5}),
         reader=modern({"$defs": {"s": {"type": "string"}}, "$ref": "#/$defs/s", "maxLength": 4}),
         changes=["COMBINED_TYPE_SUBSCHEMAS_CHANGED #/"], compatible=False),
    Rule("a chain of references is followed to its end (Confluent stops after one step)",
         writer={"$ref": "#/definitions/a", "definitions": {"a": {"$ref": "#/definitions/b"},
                                                            "b": {"type": "string", "maxLength": 3}}},
         reader={"$ref": "#/definitions/a", "definitions": {"a": {"$ref": "#/definitions/b"},
                                                            "b": {"type": "string", "maxLength": 2}}},
         changes=["MAX_LENGTH_DECREASED #/maxLength"], compatible=False),
    Rule("a reader whose referenced subject changed a property type refuses the writer's values",
         writer={"properties": {"c": {"$ref": "customer.json"}}},
         reader={"properties": {"c": {"$ref": "customer.json"}}},
         writer_dependencies={"customer.json": CUSTOMER},
         reader_dependencies={"customer.json": CUSTOMER_NUMBERED},
         changes=["TYPE_CHANGED #/properties/c/properties/name"], compatible=False),
    Rule("a reference into another document with a fragment is followed",
         writer={"properties": {"n": {"$ref": "customer.json#/properties/name"}}},
         reader={"properties": {"n": {"type": "string", "maxLength": 9}}},
         writer_dependencies={"customer.json": CUSTOMER},
         changes=["MAX_LENGTH_ADDED #/properties/n/maxLength"], compatible=False),
]


@pytest.mark.parametrize("rule", RULES, ids=str)
def test_reference_rule(rule: Rule) -> None:
    check_rule(rule)


def _recursive() -> dict[str, Any]:
    return json.loads((DATA / "json-schema" / "recursive-schema.json").read_text(encoding="utf-8"))


def test_a_recursive_schema_reads_itself() -> None:
    schema = _recursive()
    assert compare(build_native(schema, {}), build_native(copy.deepcopy(schema), {})) == []


def test_a_change_inside_a_recursive_definition_is_reported_once_where_the_walk_first_meets_it() -> None:
    """The definition is reached again inside itself; that pair of types is reported at the
    first pointer only (a copy per level reached would grow with every level)."""
    writer = _recursive()
    reader = copy.deepcopy(writer)
    reader["definitions"]["Category"]["properties"]["category_id"]["type"] = "string"
    found = [f"{d.type} {d.pointer}" for d in compare(build_native(writer, {}), build_native(reader, {}))]
    assert found == ["TYPE_CHANGED #/properties/categories/items/properties/category_id"]


def _circular(branches: int, circular_properties: int) -> dict[str, Any]:
    """Confluent's stress shape: a oneOf of types whose properties point back to the oneOf."""
    defs: dict[str, Any] = {
        "SimpleId": {"type": "object", "properties": {"id": {"type": "string"}}, "required": ["id"]},
        "Base": {"type": "object", "properties": {"name": {"type": "string"}}},
        "ProductOrId": {"oneOf": [{"$ref": "#/$defs/SimpleId"}, {"$ref": "#/$defs/Product"}]},
        "Product": {"oneOf": [{"$ref": f"#/$defs/Type{i}"} for i in range(branches)]},
    }
    for i in range(branches):
        properties = {f"ref{p}": {"$ref": "#/$defs/ProductOrId"} for p in range(circular_properties)}
        properties["tag"] = {"type": "string", "const": f"type{i}"}
        defs[f"Type{i}"] = {"$ref": "#/$defs/Base", "type": "object", "properties": properties,
                            "required": ["ref0", "tag"]}
    return modern({"$defs": defs, "$ref": "#/$defs/Product"})


def test_mutually_recursive_unions_compare_in_few_pairs() -> None:
    """12 branches x 5 circular properties made Confluent's checker explode before it
    memoized pairs; here each pair of types is compared about once per fixpoint pass
    (counted, not timed: 990 then 290 pairs when this was written)."""
    schema = _circular(12, 5)
    done = comparison(build_native(schema, {}), build_native(copy.deepcopy(schema), {}))
    assert done.pairs <= 2_000 and done.passes <= 3, done.pairs_per_pass
    assert incompatible(done.differences, "STRICT") == []


def test_a_narrowed_branch_of_mutually_recursive_unions_is_found() -> None:
    writer = _circular(3, 2)
    reader = copy.deepcopy(writer)
    reader["$defs"]["SimpleId"]["properties"]["id"]["maxLength"] = 8
    assert incompatible(compare(build_native(writer, {}), build_native(reader, {})), "STRICT")


def _properties(levels: int, leaf: dict[str, Any]) -> dict[str, Any]:
    schema = leaf
    for _ in range(levels):
        schema = {"type": "object", "properties": {"p": schema}}
    return schema


def at_stack_depth(frames: int, call: Callable[[], T]) -> T:
    """`call()` with `frames` more frames below it, as a web stack would put there."""
    return call() if frames == 0 else at_stack_depth(frames - 1, call)


def test_a_schema_nested_as_deep_as_the_format_allows_compares_with_400_frames_taken() -> None:
    writer = build_native(_properties(40, {"type": "string", "maxLength": 5}), {})
    reader = build_native(_properties(40, {"type": "string", "maxLength": 4}), {})
    found = at_stack_depth(400, lambda: compare(writer, reader))
    assert [d.type for d in found] == ["MAX_LENGTH_DECREASED"]
    assert found[0].pointer == "#/" + "properties/p/" * 40 + "maxLength"


def test_a_document_nested_past_the_loader_bound_is_refused() -> None:
    deep = build_native(_properties(MAX_DEPTH + 1, {"type": "string"}), {})
    with pytest.raises(SchemaParseError) as raised:
        compare(deep, deep)
    assert raised.value.message == (
        f"Invalid schema of type JSON, details: Schema is nested more than {MAX_DEPTH} levels deep (subschemas)")


def _chain(prefix: str, length: int) -> dict[str, Any]:
    """Definitions P1 -> P2 -> ... -> Pn -> P1, each an object with one property `next`."""
    defs = {
        f"{prefix}{i}": {"type": "object", "properties": {"next": {"$ref": f"#/definitions/{prefix}{i % length + 1}"}}}
        for i in range(1, length + 1)
    }
    return {"$ref": f"#/definitions/{prefix}1", "definitions": defs}


def test_two_cycles_of_different_lengths_compare() -> None:
    """Cycles of 19 and 20 definitions only repeat a pair after 380 steps: far deeper than
    Python's stack would allow a recursive walk, which is why the walk keeps its own."""
    assert compare(build_native(_chain("A", 19), {}), build_native(_chain("B", 20), {})) == []


def test_a_walk_deeper_than_its_bound_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(schema_diff, "MAX_COMPARE_DEPTH", 50)
    with pytest.raises(SchemaParseError) as raised:
        compare(build_native(_chain("A", 19), {}), build_native(_chain("B", 20), {}))
    assert raised.value.message == (
        "Invalid schema of type JSON, details: Schema is nested more than "
        f"{MAX_COMPARE_DEPTH} levels deep, following its references")


def test_cycles_of_equal_length_compare() -> None:
    assert compare(build_native(_chain("A", 7), {}), build_native(_chain("B", 7), {})) == []


def test_the_recursion_limit_reached_anyway_is_still_a_parse_error() -> None:
    """The last line of defence: a caller that has used almost all of the stack."""
    writer = build_native(_properties(40, {"type": "string"}), {})
    frames = sys.getrecursionlimit() - _stack_depth() - 60
    with pytest.raises(SchemaParseError) as raised:
        at_stack_depth(frames, lambda: compare(writer, writer))
    assert raised.value.message == "Invalid schema of type JSON, details: Schema is nested too deeply to process"


def test_an_unresolvable_reference_is_refused() -> None:
    writer = build_native({"$ref": "#/definitions/missing"}, {})
    with pytest.raises(SchemaParseError) as raised:
        compare(writer, build_native({"type": "string"}, {}))
    assert raised.value.message == "Invalid schema of type JSON, details: Unresolved $ref '#/definitions/missing'"


def _stack_depth() -> int:
    frame, depth = sys._getframe(1), 0
    while frame is not None:
        depth += 1
        frame = frame.f_back
    return depth


def test_a_reference_that_only_points_back_to_itself_is_refused() -> None:
    writer = build_native({"$ref": "#/definitions/a", "definitions": {"a": {"$ref": "#/definitions/a"}}}, {})
    with pytest.raises(SchemaParseError) as raised:
        compare(writer, build_native({}, {}))
    assert raised.value.message == "Invalid schema of type JSON, details: Circular $ref '#/definitions/a'"


def test_a_model_is_built_once_and_goes_with_its_schema() -> None:
    """The checker keeps its model of each parsed schema for the next check, but must not keep
    the schema alive itself (the registry's cache decides how long a parsed schema lives)."""
    native = build_native({"properties": {"c": {"$ref": "#/definitions/c"}}, "definitions": {"c": CUSTOMER}}, {})
    assert model_of(native) is model_of(native)
    compare(native, native)
    gone = weakref.ref(native)
    del native
    gc.collect()
    assert gone() is None
