"""`encode`: DataFrame rows -> a binary column of Confluent-framed Avro, the Kafka sink's `value`.

The writer schema is one of: derived from the DataFrame's StructType, a schema text the caller
gives (a team's `.avsc`, with its enums, fixed, uuids and docs), or a version already
registered. The first two are registered under the subject on the driver before any task runs,
so an incompatible change fails the job with the registry's reasons and nothing is written. The workers then
write with `app.client`'s `AvroSerializer` pinned to that version, so the bytes are exactly
what any other producer of the same schema id writes; the pinned version costs one registry
request per worker, never per batch. When the JVM path can run (`engine=`, as for `decode`),
a Java UDF writes the same bytes by fastavro's rules instead (`app.pipeline.jvm_encode`).
"""
from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import pyarrow as pa
from pyspark.sql import DataFrame
from pyspark.sql import types as T

from app.client import (
    AvroSerializer,
    PinnedVersion,
    RegisteredSchema,
    RegistryClient,
    Schema,
)
from app.pipeline.engine import choose_engine
from app.pipeline.jvm_encode import jvm_encode
from app.pipeline.workers import worker_client

_PRIMITIVES: dict[type, Any] = {
    T.BooleanType: "boolean", T.ByteType: "int", T.ShortType: "int", T.IntegerType: "int", T.LongType: "long",
    T.FloatType: "float", T.DoubleType: "double", T.StringType: "string", T.BinaryType: "bytes",
}


def spark_to_avro(schema: T.StructType, name: str, namespace: str | None = None) -> dict[str, Any]:
    """The Avro record schema for rows of `schema`; nullable fields become `["null", T]` with a
    null default, so later columns can be added compatibly (as Spark's own Avro writer does)."""
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


def _pairs_to_dict(convert: Callable[[Any], Any] | None) -> Callable[[Any], Any]:
    if convert is None:
        return lambda pairs: None if pairs is None else dict(pairs)
    return lambda pairs: None if pairs is None else {key: convert(value) for key, value in pairs}


def _each(convert: Callable[[Any], Any]) -> Callable[[Any], Any]:
    return lambda items: None if items is None else [convert(item) for item in items]


def _row_converter(data_type: T.DataType) -> Callable[[Any], Any] | None:
    """Arrow's Python values -> fastavro's: only maps differ (Arrow gives a list of pairs)."""
    if isinstance(data_type, T.MapType):
        return _pairs_to_dict(_row_converter(data_type.valueType))
    if isinstance(data_type, T.ArrayType):
        inner = _row_converter(data_type.elementType)
        return None if inner is None else _each(inner)
    if isinstance(data_type, T.StructType):
        fields = [(f.name, c) for f in data_type.fields if (c := _row_converter(f.dataType)) is not None]
        if not fields:
            return None

        def convert(row: Any) -> Any:
            if row is None:
                return None
            for field_name, field_convert in fields:
                row[field_name] = field_convert(row[field_name])
            return row
        return convert
    return None


def encode(
    df: DataFrame,
    registry: RegistryClient,
    *,
    subject: str,
    columns: Sequence[str] | None = None,
    keep: Sequence[str] = (),
    output: str = "value",
    version: int | None = None,
    schema: str | Schema | None = None,
    record_name: str = "Record",
    namespace: str | None = None,
    engine: str = "auto",
) -> DataFrame:
    """A DataFrame of `keep` columns plus `output`, the framed record of `columns` (default: every
    column not kept). With `version`, write with that registered version of `subject`; with
    `schema` (Avro text of a record), register it and write with it; else derive the schema from
    the columns' types and register it. Registration is where compatibility is checked: an
    `IncompatibleSchema` carrying the registry's reasons is raised here, before any task.
    `engine` picks the JVM or the Python writer, as for `decode` (`app.pipeline.engine`)."""
    if version is not None and schema is not None:
        raise ValueError("give a schema or a registered version to write with, not both")
    names = list(columns) if columns is not None else [c for c in df.columns if c not in keep]
    record_type = T.StructType([df.schema[name] for name in names])
    if version is not None:
        registered = registry.get_version(subject, version)
    else:
        if schema is None:
            schema = Schema(json.dumps(spark_to_avro(record_type, record_name, namespace)))
        elif isinstance(schema, str):
            schema = Schema(schema)
        _check_columns(schema, names)
        registered = registry.register(subject, schema)
        registered = registry.lookup(subject, registered.schema) if registered.version is None else registered
    if registered.version is None:
        raise ValueError(f"the registry named no version of {subject} for schema id {registered.schema_id}")
    if choose_engine(df.sparkSession, engine, work="encoding").jvm:
        # The version's own schema, as the Python path's PinnedVersion serializer writes with.
        return jvm_encode(df, registry, registry.get_version(subject, registered.version), names, keep, output)
    out_schema = T.StructType([df.schema[name] for name in keep] + [T.StructField(output, T.BinaryType(), False)])
    job = _BatchEncoder(registry, subject, registered, names, list(keep), output, _row_converter(record_type))
    return df.select(*dict.fromkeys([*keep, *names])).mapInArrow(job, out_schema)


def _check_columns(schema: Schema, names: Sequence[str]) -> None:
    """Refuse, on the driver, columns that cannot fill the record: a field with no column and no
    default, or a column the record has no field for (it would be dropped silently)."""
    record = json.loads(schema.text)
    if not isinstance(record, dict) or record.get("type") != "record":
        raise ValueError("encode writes records: the schema must be an Avro record")
    fields = {field["name"]: field for field in record["fields"]}
    unfilled = [name for name, field in fields.items() if name not in names and "default" not in field]
    extra = [name for name in names if name not in fields]
    if unfilled or extra:
        raise ValueError(f"the columns do not fit the record {record.get('name')}: "
                         f"fields without a column or a default {unfilled}, columns without a field {extra}")


class _BatchEncoder:
    """The function `mapInArrow` ships to the workers (picklable: settings only)."""

    def __init__(self, registry: RegistryClient, subject: str, registered: RegisteredSchema, names: list[str],
                 keep: list[str], output: str, convert: Callable[[Any], Any] | None) -> None:
        assert registered.version is not None  # encode() refused a version-less answer
        self.registry, self.subject, self.version = registry, subject, registered.version
        self.names, self.keep, self.output, self.convert = names, keep, output, convert

    def __call__(self, batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        serialize = AvroSerializer(worker_client(self.registry), subject=self.subject,
                                   writer=PinnedVersion(self.version))
        for batch in batches:
            rows = batch.select(self.names).to_pylist()
            convert = self.convert
            encoded = [serialize(row if convert is None else convert(row)) for row in rows]
            arrays = [batch.column(name) for name in self.keep] + [pa.array(encoded, type=pa.binary())]
            yield pa.RecordBatch.from_arrays(arrays, names=[*self.keep, self.output])
