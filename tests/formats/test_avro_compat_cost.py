"""The Avro check costs work linear in the pairs of types it compares, whatever the sharing.

Java copies a memoized pair's incompatibilities into every parent that meets the pair again,
so a named type used twice on each level of a chain is reported (and copied) 2^depth times.
Here each incompatibility is listed once, and the work is counted in comparisons (the
checker's steps), never timed. The verdicts must stay those of a plain recursive checker
without any memo, written below, on acyclic schemas, where a memo cannot change a verdict.
"""
from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from app.formats import work_budget
from app.formats.avro import AvroFormat
from app.formats.avro.compatibility import assess
from app.formats.avro.model import Array, Enum, Fixed, Map, Named, Record, Schema, Union
from app.formats.base import SchemaParseError
from support.shared_types import avro_shared_chain as shared_chain

AVRO = AvroFormat()
PROMOTIONS = {"LONG": {"INT"}, "FLOAT": {"INT", "LONG"}, "DOUBLE": {"INT", "LONG", "FLOAT"},
              "BYTES": {"STRING"}, "STRING": {"BYTES"}}


def model(document: Any) -> Schema:
    return AVRO.parse(json.dumps(document), {}).native.schema


def test_a_type_shared_on_every_level_is_reported_once_with_linear_comparisons() -> None:
    outcome = assess(model(shared_chain(40, "int")), model(shared_chain(40, "string")))

    assert [(i.type, i.message) for i in outcome.incompatibilities] == [
        ("TYPE_MISMATCH", "reader type: INT not compatible with writer type: STRING")]
    assert outcome.incompatibilities[0].location == "/fields/0/type" * 41
    assert outcome.comparisons <= 2 * 41 + 1  # each record pair compares its two fields once


def test_every_level_failing_lists_each_level_once() -> None:
    # each Di also changes a field of its own: 41 distinct incompatibilities, not 2^41 entries
    def chain(leaf: str) -> dict[str, Any]:
        schema = shared_chain(40, leaf)
        node = schema
        while node["name"] != "D0":
            node["fields"].append({"name": "own", "type": leaf})
            node = node["fields"][0]["type"]
        return schema

    outcome = assess(model(chain("long")), model(chain("double")))

    assert len(outcome.incompatibilities) == 41
    assert len({i.location for i in outcome.incompatibilities}) == 41
    assert outcome.comparisons <= 3 * 41 + 1


# ---------------------------------------------------------------- random shared sub-types
PRIMITIVES = ["int", "long", "float", "double", "string", "bytes", "null", "boolean"]


SMALL = 6
"""Chains up to this long are also checked by the plain recursive checker, whose work grows
with the number of paths (up to 3^depth here)."""


@st.composite
def schema_pairs(draw: st.DrawFn) -> tuple[dict[str, Any], dict[str, Any], int]:
    """Two chains of named types T0..Tn (n up to 40) where each type's fields refer to the
    types just before it, by name (so shared by many paths) or wrapped in an array, a map or
    a union; the writer is the reader with some primitive leaves and enum symbols changed and
    some fields left out. Acyclic: every reference points to an earlier type. The root record
    defines each type in a field of its own, in order, so that names are defined before use."""
    depth = draw(st.integers(1, 40))
    reader_defs: list[dict[str, Any]] = []
    writer_defs: list[dict[str, Any]] = []
    for i in range(depth + 1):
        if i > 0 and draw(st.integers(0, 5)) == 0:
            symbols = ["A", "B", "C"]
            reader_defs.append({"type": "enum", "name": f"T{i}", "symbols": symbols})
            writer_defs.append({"type": "enum", "name": f"T{i}", "symbols": symbols + (["D"] if draw(st.integers(0, 9)) == 0 else [])})
            continue
        reader_fields, writer_fields = [], []
        for f in range(draw(st.integers(1, 3))):
            earlier = [f"T{j}" for j in range(max(0, i - 3), i)]
            base = draw(st.sampled_from(earlier + PRIMITIVES[:3])) if earlier else draw(st.sampled_from(PRIMITIVES))
            wrap = draw(st.sampled_from(["plain", "array", "map", "union"]))
            changed = draw(st.sampled_from(PRIMITIVES)) if base in PRIMITIVES and draw(st.integers(0, 9)) == 0 else base

            def wrapped(inner: str, wrap: str = wrap) -> Any:
                if wrap == "union" and inner != "null":
                    return ["null", inner]
                return {"array": {"type": "array", "items": inner}, "map": {"type": "map", "values": inner}}.get(wrap, inner)

            reader_field: dict[str, Any] = {"name": f"f{f}", "type": wrapped(base)}
            if isinstance(reader_field["type"], list) and draw(st.booleans()):
                reader_field["default"] = None
            reader_fields.append(reader_field)
            if draw(st.integers(0, 19)):  # now and then the writer lacks the field
                writer_fields.append({"name": f"f{f}", "type": wrapped(changed)})
        reader_defs.append({"type": "record", "name": f"T{i}", "fields": reader_fields})
        writer_defs.append({"type": "record", "name": f"T{i}", "fields": writer_fields})

    def document(defs: list[dict[str, Any]]) -> dict[str, Any]:
        fields = [{"name": f"d{j}", "type": d} for j, d in enumerate(defs[:-1])]
        return {"type": "record", "name": "Root", "fields": [*fields, {"name": "top", "type": defs[-1]}]}

    return document(reader_defs), document(writer_defs), depth


def reference_fails(reader: Schema, writer: Schema) -> bool:
    """Java's rules as plain recursion without a memo: does `reader` fail to read `writer`?
    Only for acyclic schemas (it would not end on a recursive one)."""
    if isinstance(writer, Union) and not isinstance(reader, Union):
        return any(reference_fails(reader, branch) for branch in writer.branches)
    if isinstance(reader, Union):
        if isinstance(writer, Union):
            return any(all(reference_fails(b, branch) for b in reader.branches) for branch in writer.branches)
        return all(reference_fails(b, writer) for b in reader.branches)
    if reader.type != writer.type:
        return writer.type not in PROMOTIONS.get(reader.type, set())
    if isinstance(reader, Named) and isinstance(writer, Named):
        if reader.name.name != writer.name.name and writer.name.full not in reader.alias_fullnames:
            return True
    if isinstance(reader, Array):
        return reference_fails(reader.items, writer.items)  # type: ignore[attr-defined]
    if isinstance(reader, Map):
        return reference_fails(reader.values, writer.values)  # type: ignore[attr-defined]
    if isinstance(reader, Enum):
        return reader.default is None and any(s not in reader.symbol_set for s in writer.symbols)  # type: ignore[attr-defined]
    if isinstance(reader, Fixed):
        return reader.size != writer.size  # type: ignore[attr-defined]
    if isinstance(reader, Record):
        for field in reader.fields:
            source = writer.field_map.get(field.name)  # type: ignore[attr-defined]
            if source is None:
                if not field.has_default:
                    return True
            elif reference_fails(field.type, source.type):
                return True
    return False


def objects_and_edges(root: Schema) -> tuple[int, int]:
    """Distinct schema objects (a named type once) and the references between them."""
    seen: set[int] = set()
    edges = 0
    pending = [root]
    while pending:
        schema = pending.pop()
        if id(schema) in seen:
            continue
        seen.add(id(schema))
        inner: list[Schema] = []
        if isinstance(schema, Record):
            inner = [f.type for f in schema.fields]
        elif isinstance(schema, Union):
            inner = list(schema.branches)
        elif isinstance(schema, Array):
            inner = [schema.items]
        elif isinstance(schema, Map):
            inner = [schema.values]
        edges += len(inner)
        pending += inner
    return len(seen), edges


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(schema_pairs())
def test_shared_sub_types_check_with_bounded_work_and_the_plain_verdict(case: tuple[dict, dict, int]) -> None:
    reader, writer = model(case[0]), model(case[1])

    for r, w in ((reader, writer), (writer, reader)):
        outcome = assess(r, w)
        r_objects, r_edges = objects_and_edges(r)
        w_objects, w_edges = objects_and_edges(w)
        # each pair of objects is compared once and looks at its own children
        assert outcome.comparisons <= 1 + w_objects * r_edges + r_objects * w_edges
        assert len({id(i) for i in outcome.incompatibilities}) == len(outcome.incompatibilities)
        # an incompatibility belongs to one compared pair: one per child, or a name, symbols or size
        assert len(outcome.incompatibilities) <= outcome.comparisons + 2 * r_objects * w_objects
        if case[2] <= SMALL:
            assert bool(outcome.incompatibilities) == reference_fails(r, w)


def test_a_check_past_the_request_budget_is_refused_as_a_schema_refusal() -> None:
    reader, writer = (AVRO.parse(json.dumps(shared_chain(40, leaf)), {}) for leaf in ("int", "string"))

    with work_budget.limited(1e-9), pytest.raises(SchemaParseError, match="took longer than the registry allows"):
        AVRO.can_read(reader, writer)
