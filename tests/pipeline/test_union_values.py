"""The per-(writer, reader) value plans of `app.pipeline.values`, on fastavro alone (no Spark):
which member of a reader union a written value lands in, promotions, and writer unions read
into a plain reader type. Spark-level checks are in test_unions.py."""
from __future__ import annotations

import io
import json
import uuid

from fastavro import parse_schema, schemaless_reader, schemaless_writer

from app.pipeline.values import plan


def record(*fields: tuple[str, object]) -> dict:
    return {"type": "record", "name": "R", "namespace": "v", "fields": [{"name": n, "type": t} for n, t in fields]}


def through(writer: dict, reader: dict, value: dict) -> dict:
    """Write `value` with `writer`, read it by the plan for (writer, reader), converted."""
    parsed_writer = parse_schema(json.loads(json.dumps(writer)))
    parsed_reader = parse_schema(json.loads(json.dumps(reader)))
    out = io.BytesIO()
    schemaless_writer(out, parsed_writer, value)
    found = plan(parsed_writer, parsed_reader)
    decoded = schemaless_reader(io.BytesIO(out.getvalue()), found.writer, found.reader)
    return decoded if found.convert is None else found.convert(decoded)


def test_a_value_lands_in_the_member_of_its_own_type_before_a_promotable_one():
    writer = record(("f", ["int", "string", "bytes"]))
    reader = record(("f", ["double", "bytes", "string", "long", "int"]))
    assert through(writer, reader, {"f": 7}) == {"f": {"member4": 7}}
    assert through(writer, reader, {"f": b"\xff\x00"}) == {"f": {"member1": b"\xff\x00"}}
    assert through(writer, reader, {"f": "s"}) == {"f": {"member2": "s"}}


def test_a_value_with_no_member_of_its_own_type_is_promoted_into_the_first_that_reads_it():
    writer = record(("f", ["int", "string"]))
    reader = record(("f", ["null", "double", "bytes"]))
    assert through(writer, reader, {"f": 3}) == {"f": {"member0": 3.0}}
    assert isinstance(through(writer, reader, {"f": 3})["f"]["member0"], float)
    assert through(writer, reader, {"f": "é"}) == {"f": {"member1": "é".encode()}}


def test_a_writer_union_read_as_a_nullable_record_converts_inside_the_record():
    inner = {"type": "record", "name": "Inner", "fields": [{"name": "id", "type": {"type": "string",
                                                                                  "logicalType": "uuid"}}]}
    writer = record(("f", ["null", "string", inner]))
    reader = record(("f", ["null", inner]))
    ident = uuid.UUID(int=5)
    assert through(writer, reader, {"f": {"id": ident}}) == {"f": {"id": str(ident)}}
    assert through(writer, reader, {"f": None}) == {"f": None}


def test_two_records_of_one_shape_are_told_apart_by_name():
    a = {"type": "record", "name": "A", "fields": [{"name": "x", "type": "int"}]}
    b = {"type": "record", "name": "B", "fields": [{"name": "x", "type": "int"}]}
    schema = record(("f", [a, b]), ("g", ["null", "A", "B", {"type": "map", "values": "B"}]))
    value = {"f": ("v.B", {"x": 1}), "g": {"k": {"x": 2}}}
    assert through(schema, schema, value) == {"f": {"member1": {"x": 1}}, "g": {"member2": {"k": {"x": 2}}}}
    value = {"f": ("v.A", {"x": 1}), "g": ("v.B", {"x": 3})}
    assert through(schema, schema, value) == {"f": {"member0": {"x": 1}}, "g": {"member1": {"x": 3}}}
