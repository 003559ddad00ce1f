"""JSON Schema as a format `encode` writes: rows as JSON objects, checked against the writer by
the client's `JsonSerializer` (as confluent-kafka's serializer checks them), so a row its schema
forbids stops the job instead of reaching the topic.

The derived writer is the type mapping of `app.pipeline.formats.json_schema` read backwards: an
`object` of one property per column, in column order, with `additionalProperties: false` (a
closed content model, so that a later version adding a property is a compatible change) and the
non-nullable columns `required`:

- bigint, int, smallint, tinyint -> `integer`; double, float -> `number`; boolean; string
- timestamp -> `string` with `format: date-time` (RFC 3339, UTC); date -> `string` with
  `format: date`; binary -> `string` with `contentEncoding: base64`
- array -> `array` of its elements; map<string, V> -> `object` with `additionalProperties: V`;
  struct -> a closed `object` of its fields
- a nullable column or element -> `oneOf: [{"type": "null"}, T]`
- decimal and timestamp_ntz have no exact JSON Schema type and are refused (cast them).

A null column value is written as JSON `null` where the writer's property admits null, and left
out of the object where it does not (a property that is not required may be absent).
"""
from __future__ import annotations

import base64
import json
from collections.abc import Mapping, Sequence
from datetime import date, datetime, timezone
from typing import Any

from pyspark.sql import types as T

from app.client import JsonSerializer, PinnedVersion, RegistryClient, Schema
from app.client.json_schema import RecordCheck, compile_validator
from app.client.records import JSON
from app.client.rules.plans import WritePlan
from app.pipeline.formats.encoding import Convert, RowWriter, value_converter
from app.pipeline.formats.json_schema import WriterCheck

DRAFT = "http://json-schema.org/draft-07/schema#"
_INTEGERS = (T.ByteType, T.ShortType, T.IntegerType, T.LongType)


def _nullable(schema: dict[str, Any], nullable: bool) -> dict[str, Any]:
    return {"oneOf": [{"type": "null"}, schema]} if nullable else schema


def spark_to_json_schema(data_type: T.DataType, where: str) -> dict[str, Any]:
    """The JSON Schema of values of `data_type` (not null)."""
    if isinstance(data_type, _INTEGERS):
        return {"type": "integer"}
    if isinstance(data_type, (T.FloatType, T.DoubleType)):
        return {"type": "number"}
    if isinstance(data_type, T.BooleanType):
        return {"type": "boolean"}
    if isinstance(data_type, T.StringType):
        return {"type": "string"}
    if isinstance(data_type, T.TimestampType):
        return {"type": "string", "format": "date-time"}
    if isinstance(data_type, T.DateType):
        return {"type": "string", "format": "date"}
    if isinstance(data_type, T.BinaryType):
        return {"type": "string", "contentEncoding": "base64"}
    if isinstance(data_type, T.ArrayType):
        return {"type": "array", "items": _nullable(spark_to_json_schema(data_type.elementType, f"{where}[]"),
                                                    data_type.containsNull)}
    if isinstance(data_type, T.MapType):
        if not isinstance(data_type.keyType, T.StringType):
            raise TypeError(f"{where}: JSON objects have string keys, the map has "
                            f"{data_type.keyType.simpleString()} keys")
        return {"type": "object", "additionalProperties": _nullable(
            spark_to_json_schema(data_type.valueType, f"{where}.*"), data_type.valueContainsNull)}
    if isinstance(data_type, T.StructType):
        return {"type": "object", "properties": {
            field.name: _nullable(spark_to_json_schema(field.dataType, f"{where}.{field.name}"), field.nullable)
            for field in data_type.fields},
            "required": [field.name for field in data_type.fields if not field.nullable],
            "additionalProperties": False}
    raise TypeError(f"{where}: Spark type {data_type.simpleString()} has no exact JSON Schema type "
                    "(cast the column: decimal to double or string, timestamp_ntz to timestamp)")


def _timestamp(value: datetime) -> str:
    return value.astimezone(timezone.utc).isoformat().replace("+00:00", "Z")


def _json_value(data_type: T.DataType) -> Convert | None:
    """Arrow's Python values of a type JSON has no value of -> their JSON Schema spelling."""
    if isinstance(data_type, T.TimestampType):
        return lambda v: None if v is None else _timestamp(v)
    if isinstance(data_type, T.DateType):
        return lambda v: None if v is None else date.isoformat(v)
    if isinstance(data_type, T.BinaryType):
        return lambda v: None if v is None else base64.b64encode(v).decode("ascii")
    return None


def _admits_null(schema: Any) -> bool:
    """Whether a property's schema lets `null` through, as far as its own keywords say (a `$ref`
    or a schema without `type` is taken to: the serializer's validation has the last word)."""
    if not isinstance(schema, dict):
        return schema is not False
    if "$ref" in schema:
        return True
    for union in ("oneOf", "anyOf"):
        if isinstance(schema.get(union), list):
            return any(_admits_null(member) for member in schema[union])
    kind = schema.get("type")
    if kind is None:
        if "enum" in schema:
            return isinstance(schema["enum"], list) and None in schema["enum"]
        return "const" not in schema or schema["const"] is None
    return kind == "null" or (isinstance(kind, list) and "null" in kind)


def _object(text: str) -> dict[str, Any]:
    root = json.loads(text)
    if not isinstance(root, dict) or not isinstance(root.get("properties"), dict):
        raise ValueError("encode writes objects: the JSON schema must have top-level `properties`")
    return root


class JsonSchemaEncoder:
    name = "JSON Schema"
    jvm = False
    timestamp_micros = False

    def derive(self, record_type: T.StructType, record_name: str, namespace: str | None) -> Schema:
        schema = {"$schema": DRAFT, "title": f"{namespace}.{record_name}" if namespace else record_name,
                  **spark_to_json_schema(record_type, record_name)}
        return Schema(json.dumps(schema), JSON)

    def check_columns(self, registry: RegistryClient, subject: str, writer: Schema, version: int | None,
                      names: Sequence[str], message: str | None) -> None:
        root = _object(writer.text)
        properties = root["properties"]
        required = root.get("required") if isinstance(root.get("required"), list) else []
        unfilled = [name for name in required if name not in names]
        extra = [name for name in names if name not in properties]
        if unfilled or extra:
            raise ValueError(f"the columns do not fit the JSON schema {root.get('title') or ''}: required "
                             f"properties without a column {unfilled}, columns without a property {extra}")

    def row_writer(self, client: RegistryClient, subject: str, version: int, record_type: T.StructType,
                   message: str | None, rule_config: Mapping[str, str]) -> RowWriter:
        writer = client.get_version(subject, version)
        # Without WRITE rules the record the serializer checks is the row itself: checked here by
        # the decoder's fast check (jsonschema_rs, jsonschema wording the refusals), 60x quicker
        # than the serializer's own jsonschema. With rules, the serializer checks what they made.
        rules = WritePlan.needed(writer.schema)
        serialize = JsonSerializer(client, subject=subject, writer=PinnedVersion(version), rule_config=rule_config,
                                   validate=rules)
        check = None if rules else WriterCheck(writer.schema, RecordCheck(
            compile_validator(client, writer.schema), f"JSON schema id {writer.schema_id} of {subject}"))
        properties = _object(writer.schema.text)["properties"]
        omitted = [name for name in record_type.names if not _admits_null(properties.get(name))]
        convert = value_converter(record_type, _json_value)

        def write(row: dict[str, Any]) -> bytes:
            if convert is not None:
                row = convert(row)
            for name in omitted:
                if row[name] is None:
                    del row[name]
            if check is not None:
                check(row)
            return serialize(row)
        return write


JSON_SCHEMA_ENCODER = JsonSchemaEncoder()
