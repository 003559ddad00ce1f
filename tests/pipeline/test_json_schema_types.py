"""The Spark type of a JSON Schema reader and the values it shapes, without Spark: each mapping
of the type table, `oneOf` with null, maps, values of no single type as JSON text, defaults,
and a recursive schema refused naming the property."""
from __future__ import annotations

import json
from datetime import datetime, timezone

import pytest
from pyspark.sql import types as T

from app.client import Schema, SerializationError
from app.client.records import JSON
from app.pipeline.formats import UnsupportedSchemaType
from app.pipeline.formats.json_schema import reader_node


def node(schema: dict):
    return reader_node(Schema(json.dumps(schema), JSON))


def test_each_json_type_maps_to_its_spark_type():
    found = node({"type": "object", "properties": {
        "n": {"type": "integer"}, "x": {"type": "number"}, "s": {"type": "string"}, "b": {"type": "boolean"},
        "t": {"type": "string", "format": "date-time"}, "a": {"type": "array", "items": {"type": "integer"}},
        "m": {"type": "object", "additionalProperties": {"type": "number"}},
        "o": {"type": "object", "properties": {"k": {"type": ["string", "null"]}}},
        "u": {"anyOf": [{"type": "null"}, {"type": "boolean"}]},
        "any": {}, "mixed": {"type": ["string", "integer"]}}}).shape.data_type
    assert [(field.name, field.dataType) for field in found.fields] == [
        ("n", T.LongType()), ("x", T.DoubleType()), ("s", T.StringType()), ("b", T.BooleanType()),
        ("t", T.TimestampType()), ("a", T.ArrayType(T.LongType(), True)),
        ("m", T.MapType(T.StringType(), T.DoubleType(), True)),
        ("o", T.StructType([T.StructField("k", T.StringType(), True)])), ("u", T.BooleanType()),
        ("any", T.StringType()), ("mixed", T.StringType())]
    assert all(field.nullable for field in found.fields)


def test_values_are_shaped_defaults_filled_and_untyped_ones_kept_as_json_text():
    convert = node({"type": "object", "properties": {
        "t": {"type": "string", "format": "date-time"}, "unit": {"type": "string", "default": "celsius"},
        "any": {}, "rows": {"type": "array", "items": {"type": "object", "properties": {
            "at": {"type": "string", "format": "date-time"}}}}}}).convert
    assert convert({"t": "2026-01-02T03:04:05Z", "any": {"a": [1, "x"]}, "rows": [{"at": "2026-01-02T00:00:00+01:00"}],
                    "dropped": 1}) == (  # structs as tuples in property order, as Arrow builds them fastest
        datetime(2026, 1, 2, 3, 4, 5, tzinfo=timezone.utc), "celsius", '{"a":[1,"x"]}',
        [(datetime(2026, 1, 1, 23, tzinfo=timezone.utc),)])
    with pytest.raises(SerializationError, match="not an RFC 3339 date-time"):
        convert({"t": "noon"})


def test_a_top_level_scalar_becomes_the_one_field_of_the_struct():
    found = node({"type": "integer"})
    assert found.shape.data_type == T.StructType([T.StructField("value", T.LongType(), True)])
    assert found.convert(7) == (7,)


def test_a_recursive_schema_is_refused_naming_the_property():
    with pytest.raises(UnsupportedSchemaType, match=r"\$\.root\.children\[\]: recursive type #/definitions/Node"):
        node({"type": "object", "properties": {"root": {"$ref": "#/definitions/Node"}},
              "definitions": {"Node": {"type": "object", "properties": {
                  "children": {"type": "array", "items": {"$ref": "#/definitions/Node"}}}}}})
