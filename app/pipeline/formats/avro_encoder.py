"""Avro as a format `encode` writes: the record schema of a DataFrame's columns (nullable columns
as `["null", T]` with a null default, so later columns can be added compatibly, as Spark's own
Avro writer does), and rows written by the client's `AvroSerializer` (fastavro)."""
from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from pyspark.sql import types as T

from app.client import AvroSerializer, PinnedVersion, RegistryClient, Schema
from app.pipeline.formats.encoding import RowWriter, value_converter

_PRIMITIVES: dict[type, Any] = {
    T.BooleanType: "boolean", T.ByteType: "int", T.ShortType: "int", T.IntegerType: "int", T.LongType: "long",
    T.FloatType: "float", T.DoubleType: "double", T.StringType: "string", T.BinaryType: "bytes",
}


def spark_to_avro(schema: T.StructType, name: str, namespace: str | None = None) -> dict[str, Any]:
    """The Avro record schema for rows of `schema`."""
    record: dict[str, Any] = {"type": "record", "name": name, "fields": [
        _field(field, name) for field in schema.fields
    ]}
    if namespace:
        record["namespace"] = namespace
    return record


def _field(field: T.StructField, parent: str) -> dict[str, Any]:
    avro = _avro_type(field.dataType, f"{parent}_{field.name}")
    if field.nullable:
        return {"name": field.name, "type": ["null", avro], "default": None}
    return {"name": field.name, "type": avro}


def _avro_type(data_type: T.DataType, name: str) -> Any:
    for spark_type, avro in _PRIMITIVES.items():
        if isinstance(data_type, spark_type):
            return avro
    if isinstance(data_type, T.DateType):
        return {"type": "int", "logicalType": "date"}
    if isinstance(data_type, T.TimestampNTZType):
        return {"type": "long", "logicalType": "local-timestamp-micros"}
    if isinstance(data_type, T.TimestampType):
        return {"type": "long", "logicalType": "timestamp-micros"}
    if isinstance(data_type, T.DecimalType):
        return {"type": "bytes", "logicalType": "decimal", "precision": data_type.precision,
                "scale": data_type.scale}
    if isinstance(data_type, T.StructType):
        return spark_to_avro(data_type, name)
    if isinstance(data_type, T.ArrayType):
        item = _avro_type(data_type.elementType, name)
        return {"type": "array", "items": ["null", item] if data_type.containsNull else item}
    if isinstance(data_type, T.MapType):
        if not isinstance(data_type.keyType, T.StringType):
            raise TypeError(f"Avro maps have string keys; {name} has {data_type.keyType.simpleString()} keys")
        value = _avro_type(data_type.valueType, name)
        return {"type": "map", "values": ["null", value] if data_type.valueContainsNull else value}
    raise TypeError(f"{name}: Spark type {data_type.simpleString()} has no Avro equivalent")


class AvroEncoder:
    name = "Avro"
    jvm = True
    timestamp_micros = False

    def derive(self, record_type: T.StructType, record_name: str, namespace: str | None) -> Schema:
        return Schema(json.dumps(spark_to_avro(record_type, record_name, namespace)))

    def check_columns(self, registry: RegistryClient, subject: str, writer: Schema, version: int | None,
                      names: Sequence[str], message: str | None) -> None:
        record = json.loads(writer.text)
        if not isinstance(record, dict) or record.get("type") != "record":
            raise ValueError("encode writes records: the schema must be an Avro record")
        fields = {field["name"]: field for field in record["fields"]}
        unfilled = [name for name, field in fields.items() if name not in names and "default" not in field]
        extra = [name for name in names if name not in fields]
        if unfilled or extra:
            raise ValueError(f"the columns do not fit the record {record.get('name')}: "
                             f"fields without a column or a default {unfilled}, columns without a field {extra}")

    def row_writer(self, client: RegistryClient, subject: str, version: int, record_type: T.StructType,
                   message: str | None, rule_config: Mapping[str, str]) -> RowWriter:
        serialize = AvroSerializer(client, subject=subject, writer=PinnedVersion(version), rule_config=rule_config)
        convert = value_converter(record_type, lambda _: None)  # fastavro takes the rest as Arrow gives it
        return serialize if convert is None else lambda row: serialize(convert(row))


AVRO_ENCODER = AvroEncoder()
