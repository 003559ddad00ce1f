"""Reader projection (seed 003): decode with the writer's schema, return the reader's shape.

Every case is checked twice: against the value Avro's resolution rules give (written out
here) and against fastavro's own `schemaless_reader(writer, reader)` on the same bytes.
"""
from __future__ import annotations

import json
from io import BytesIO
from typing import Any

import pytest
from support.client_samples import USER_V1, USER_V2, USER_V3, user_record
from fastavro import parse_schema, schemaless_reader, schemaless_writer

from app.client import CONFLUENT, AvroDeserializer, InMemoryResolver, ReaderVersion, Schema


def record(name: str, fields: list[dict[str, Any]], **extra: Any) -> dict[str, Any]:
    return {"type": "record", "name": name, "namespace": "com.example", "fields": fields, **extra}


def encode(schema: dict[str, Any], value: Any) -> bytes:
    out = BytesIO()
    schemaless_writer(out, parse_schema(schema), value)
    return out.getvalue()


class _Identity:
    """Enough of a writer for the Confluent header, which needs only the id."""

    def __init__(self, schema_id: int) -> None:
        self.schema_id = schema_id


INNER_V1 = record("Inner", [{"name": "x", "type": "int"}])
INNER_V2 = record("Inner", [{"name": "x", "type": "long"}, {"name": "note", "type": "string", "default": "none"}])
COLOR_V2 = {"type": "enum", "name": "Color", "namespace": "com.example", "symbols": ["RED", "GREEN", "BLUE"]}
COLOR_V1 = {"type": "enum", "name": "Color", "namespace": "com.example", "symbols": ["RED", "GREEN"], "default": "RED"}

# (case, writer schema, record written, reader schema, record the reader must see)
CASES = [
    ("added field with default",
     record("User", [{"name": "name", "type": "string"}]), {"name": "ada"},
     record("User", [{"name": "name", "type": "string"}, {"name": "age", "type": "int", "default": 36}]),
     {"name": "ada", "age": 36}),
    ("removed field",
     record("User", [{"name": "name", "type": "string"}, {"name": "age", "type": "int"}]), {"name": "ada", "age": 3},
     record("User", [{"name": "name", "type": "string"}]),
     {"name": "ada"}),
    ("promotion int to long",
     record("N", [{"name": "n", "type": "int"}]), {"n": -7},
     record("N", [{"name": "n", "type": "long"}]), {"n": -7}),
    ("promotion int to double",
     record("N", [{"name": "n", "type": "int"}]), {"n": 2**31 - 1},
     record("N", [{"name": "n", "type": "double"}]), {"n": float(2**31 - 1)}),
    ("promotion long to double",
     record("N", [{"name": "n", "type": "long"}]), {"n": 2**40},
     record("N", [{"name": "n", "type": "double"}]), {"n": float(2**40)}),
    ("promotion int to long inside a union",
     record("N", [{"name": "n", "type": "int"}]), {"n": 5},
     record("N", [{"name": "n", "type": ["null", "long"]}]), {"n": 5}),
    ("enum symbol unknown to the reader takes the enum default",
     record("Paint", [{"name": "color", "type": COLOR_V2}]), {"color": "BLUE"},
     record("Paint", [{"name": "color", "type": COLOR_V1}]), {"color": "RED"}),
    ("enum symbol known to the reader is kept",
     record("Paint", [{"name": "color", "type": COLOR_V2}]), {"color": "GREEN"},
     record("Paint", [{"name": "color", "type": COLOR_V1}]), {"color": "GREEN"}),
    ("field renamed through an alias",
     record("User", [{"name": "fullname", "type": "string"}]), {"fullname": "Ada Lovelace"},
     record("User", [{"name": "name", "type": "string", "aliases": ["fullname"]}]), {"name": "Ada Lovelace"}),
    ("record renamed through an alias",
     record("Person", [{"name": "name", "type": "string"}]), {"name": "ada"},
     record("User", [{"name": "name", "type": "string"}], aliases=["com.example.Person"]), {"name": "ada"}),
    ("nested record: promotion and default inside",
     record("Outer", [{"name": "inner", "type": INNER_V1}, {"name": "dropped", "type": "boolean"}]),
     {"inner": {"x": 9}, "dropped": True},
     record("Outer", [{"name": "inner", "type": INNER_V2}]),
     {"inner": {"x": 9, "note": "none"}}),
    ("nested record inside an array and a map",
     record("Bag", [{"name": "items", "type": {"type": "array", "items": INNER_V1}},
                    {"name": "byKey", "type": {"type": "map", "values": "com.example.Inner"}}]),
     {"items": [{"x": 1}, {"x": 2}], "byKey": {"k": {"x": 3}}},
     record("Bag", [{"name": "items", "type": {"type": "array", "items": INNER_V2}},
                    {"name": "byKey", "type": {"type": "map", "values": "com.example.Inner"}}]),
     {"items": [{"x": 1, "note": "none"}, {"x": 2, "note": "none"}], "byKey": {"k": {"x": 3, "note": "none"}}}),
]


@pytest.mark.parametrize("writer, written, reader, expected", [case[1:] for case in CASES], ids=[c[0] for c in CASES])
def test_reader_projection_matches_avro_resolution_and_fastavro(writer, written, reader, expected):
    resolver = InMemoryResolver()
    writer_id = resolver.add(json.dumps(writer)).schema_id
    payload = encode(writer, written)
    data = CONFLUENT.header(_Identity(writer_id)) + payload

    projected = AvroDeserializer(resolver, reader=json.dumps(reader))(data)

    fastavro_own = schemaless_reader(BytesIO(payload), parse_schema(writer), parse_schema(reader))
    assert projected == fastavro_own == expected


def _framed(resolver: InMemoryResolver, text: str, value: dict[str, Any], subject: str | None = None) -> bytes:
    schema_id = resolver.add(text, subject=subject).schema_id
    return CONFLUENT.header(_Identity(schema_id)) + encode(json.loads(text), value)


def test_interleaved_writer_versions_all_come_out_in_the_readers_shape():
    resolver = InMemoryResolver()
    v1 = _framed(resolver, USER_V1, user_record(1, 1), subject="users-value")
    v2 = _framed(resolver, USER_V2, user_record(2, 2), subject="users-value")
    v3 = _framed(resolver, USER_V3, user_record(3, 3), subject="users-value")
    latest = AvroDeserializer(resolver, reader=ReaderVersion("users-value"))
    assert [latest(data) for data in (v1, v2, v1, v3, v2)] == [
        {"name": "user-1", "age": 0, "email": None},
        {"name": "user-2", "age": 2, "email": None},
        {"name": "user-1", "age": 0, "email": None},
        {"name": "user-3", "age": 3, "email": "u3@example.com"},
        {"name": "user-2", "age": 2, "email": None},
    ]
    first = AvroDeserializer(resolver, reader=ReaderVersion("users-value", 1))
    assert {json.dumps(first(data)) for data in (v2, v3)} == {'{"name": "user-2"}', '{"name": "user-3"}'}


def test_without_a_reader_each_record_keeps_its_writers_shape():
    resolver = InMemoryResolver()
    deserialize = AvroDeserializer(resolver)
    assert deserialize(_framed(resolver, USER_V1, user_record(1, 4))) == user_record(1, 4)
    assert deserialize(_framed(resolver, USER_V2, user_record(2, 4))) == user_record(2, 4)


def test_a_reader_given_as_a_schema_object_or_decoded_json_projects_alike():
    resolver = InMemoryResolver()
    data = _framed(resolver, USER_V2, user_record(2, 5))
    assert AvroDeserializer(resolver, reader=Schema(USER_V1))(data) == {"name": "user-5"}
    assert AvroDeserializer(resolver, reader=json.loads(USER_V1))(data) == {"name": "user-5"}
