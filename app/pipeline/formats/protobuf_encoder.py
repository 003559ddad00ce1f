"""Protobuf as a format `encode` writes: each row built into the writer's message class (made
from the registered version's descriptors, `app.pipeline.formats.protobuf.reader_class`) and
written by the client's `ProtobufSerializer`, so the frame carries the message-index block of
that message (`message=` picks one of a file's several messages; default the file's first).

The derived writer is a proto3 file of one message, the type mapping of
`app.pipeline.formats.protobuf` read backwards, fields numbered in column order (so a later
version must add its columns at the end):

- int, smallint, tinyint -> int32; bigint -> int64; float; double; boolean -> bool; string;
  binary -> bytes; decimal(20,0) -> uint64; timestamp -> google.protobuf.Timestamp
- struct -> a nested message (named after the field in CamelCase); array -> repeated;
  map -> map (string, integer or boolean keys)
- a nullable scalar column -> `optional` (null leaves it unset, which reads back as null); a
  null array or map is written empty, as proto3 has no null repeated field
- date, timestamp_ntz, other decimals, arrays of arrays or maps, maps of arrays or maps have no
  proto3 equivalent and are refused (cast them first).
"""
from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from datetime import datetime, timezone
from typing import Any

from google.protobuf.descriptor import Descriptor, FieldDescriptor
from pyspark.sql import types as T

from app.client import (
    PinnedVersion, ProtobufSerializer, RegistryClient, Schema, SerializationError,
)
from app.client.protobuf_files import SERIALIZED
from app.client.records import PROTOBUF
from app.pipeline.formats.encoding import Convert, RowWriter
from app.pipeline.formats.protobuf import TIMESTAMP, WRAPPERS, reader_class

_F = FieldDescriptor
_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
_SCALARS: dict[type, str] = {
    T.ByteType: "int32", T.ShortType: "int32", T.IntegerType: "int32", T.LongType: "int64",
    T.FloatType: "float", T.DoubleType: "double", T.BooleanType: "bool", T.StringType: "string",
    T.BinaryType: "bytes",
}
_MAP_KEYS = (T.ByteType, T.ShortType, T.IntegerType, T.LongType, T.BooleanType, T.StringType)
EPOCH = datetime(1970, 1, 1, tzinfo=timezone.utc)


class _File:
    """A proto3 file being written: its lines and whether it needs Timestamp's import."""

    def __init__(self) -> None:
        self.timestamp = False

    def scalar(self, data_type: T.DataType, where: str) -> str | None:
        for spark_type, proto in _SCALARS.items():
            if isinstance(data_type, spark_type):
                return proto
        if isinstance(data_type, T.TimestampType):
            self.timestamp = True
            return TIMESTAMP
        if isinstance(data_type, T.DecimalType):
            if (data_type.precision, data_type.scale) == (20, 0):
                return "uint64"
            raise TypeError(f"{where}: {data_type.simpleString()} has no proto3 type (decimal(20,0) is uint64; "
                            "cast others to double or string)")
        return None

    def message(self, struct: T.StructType, name: str, depth: int) -> list[str]:
        pad = "  " * depth
        lines = [f"{pad}message {name} {{"]
        nested: set[str] = set()
        for number, field in enumerate(struct.fields, 1):
            where = f"{name}.{field.name}"
            if not _NAME.match(field.name):
                raise TypeError(f"{where}: {field.name!r} is not a Protobuf field name (letters, digits and _)")
            label, proto = self._field_type(field, where, depth + 1, lines, nested)
            lines.append(f"{pad}  {label}{proto} {field.name} = {number};")
        lines.append(f"{pad}}}")
        return lines

    def _field_type(self, field: T.StructField, where: str, depth: int, lines: list[str],
                    nested: set[str]) -> tuple[str, str]:
        data_type = field.dataType
        if isinstance(data_type, T.ArrayType):
            element = data_type.elementType
            if isinstance(element, (T.ArrayType, T.MapType)):
                raise TypeError(f"{where}: an array of {element.simpleString()} has no proto3 equivalent")
            return "repeated ", self._value_type(element, field.name, where, depth, lines, nested)
        if isinstance(data_type, T.MapType):
            if not isinstance(data_type.keyType, _MAP_KEYS):
                raise TypeError(f"{where}: a Protobuf map key is a string, an integer or a boolean, not "
                                f"{data_type.keyType.simpleString()}")
            if isinstance(data_type.valueType, (T.ArrayType, T.MapType)):
                raise TypeError(f"{where}: a map of {data_type.valueType.simpleString()} has no proto3 equivalent")
            key = self.scalar(data_type.keyType, where)
            value = self._value_type(data_type.valueType, field.name, where, depth, lines, nested)
            return "", f"map<{key}, {value}>"
        proto = self._value_type(data_type, field.name, where, depth, lines, nested)
        scalar = not isinstance(data_type, (T.StructType, T.TimestampType))
        return ("optional " if field.nullable and scalar else ""), proto

    def _value_type(self, data_type: T.DataType, field_name: str, where: str, depth: int, lines: list[str],
                    nested: set[str]) -> str:
        if isinstance(data_type, T.StructType):
            name = "".join(part[:1].upper() + part[1:] for part in field_name.split("_") if part) or "Value"
            while name in nested:
                name += "_"
            nested.add(name)
            lines.extend(self.message(data_type, name, depth))
            return name
        proto = self.scalar(data_type, where)
        if proto is None:
            raise TypeError(f"{where}: Spark type {data_type.simpleString()} has no proto3 equivalent "
                            "(cast dates to timestamp)")
        return proto


def spark_to_proto(record_type: T.StructType, name: str, package: str | None = None) -> str:
    """The proto3 file of one message for rows of `record_type`."""
    file = _File()
    body = file.message(record_type, name, 0)
    head = ['syntax = "proto3";']
    if package:
        head.append(f"package {package};")
    if file.timestamp:
        head.append('import "google/protobuf/timestamp.proto";')
    return "\n".join([*head, "", *body]) + "\n"


def _timestamp(value: datetime | int) -> dict[str, int]:
    """A Timestamp's fields from a datetime, or from microseconds since the epoch (a top-level
    column, `timestamp_micros`)."""
    if isinstance(value, int):
        micros = value
    else:
        delta = value - EPOCH if value.tzinfo is not None else value.replace(tzinfo=timezone.utc) - EPOCH
        micros = (delta.days * 86_400 + delta.seconds) * 1_000_000 + delta.microseconds
    return {"seconds": micros // 1_000_000, "nanos": micros % 1_000_000 * 1000}


def _value(field: FieldDescriptor, where: str) -> Convert | None:
    """A column value -> what the message constructor takes for one value of `field`."""
    target = field.message_type
    if target is None:
        if field.type in (_F.TYPE_UINT64, _F.TYPE_FIXED64):
            return int  # decimal(20,0), as decode gives it
        return None
    if target.full_name == TIMESTAMP:
        return _timestamp
    if target.full_name in WRAPPERS:
        return lambda value: {"value": value}
    return message_builder(target, where)


def message_builder(descriptor: Descriptor, where: str) -> Callable[[dict[str, Any]], dict[str, Any]]:
    """A row (or a struct's dict) -> the keyword arguments of `descriptor`'s class: nulls left
    out (unset), maps from Arrow's pairs, timestamps and wrappers as their messages."""
    steps: list[tuple[str, Convert | None]] = []
    for field in descriptor.fields:
        inner = f"{where}.{field.name}"
        entry = field.message_type
        if entry is not None and entry.GetOptions().map_entry:
            key_of = _value(entry.fields_by_name["key"], f"{inner}.key")
            value_of = _value(entry.fields_by_name["value"], f"{inner}.value")
            steps.append((field.name, _map(key_of, value_of)))
        elif field.is_repeated:
            one = _value(field, inner)
            steps.append((field.name, None if one is None else (lambda items, one=one: [one(x) for x in items])))
        else:
            steps.append((field.name, _value(field, inner)))
    by_name = dict(steps)

    def build(row: dict[str, Any]) -> dict[str, Any]:
        out = {}
        for name, value in row.items():
            if value is None:
                continue
            convert = by_name[name]
            out[name] = value if convert is None else convert(value)
        return out
    return build


def _map(key_of: Convert | None, value_of: Convert | None) -> Convert:
    if key_of is None and value_of is None:
        return dict
    keys, values = key_of or (lambda k: k), value_of or (lambda v: v)
    return lambda pairs: {keys(k): values(v) for k, v in pairs}


def writer_message(registry: RegistryClient, subject: str, version: int, message: str | None) -> Any:
    """The message class of `message` (default: the file's first) in `version` of `subject`."""
    return reader_class(registry, registry.get_version(subject, version, format=SERIALIZED).schema, message)


class ProtobufEncoder:
    name = "Protobuf"
    jvm = False
    timestamp_micros = True

    def derive(self, record_type: T.StructType, record_name: str, namespace: str | None) -> Schema:
        return Schema(spark_to_proto(record_type, record_name, namespace), PROTOBUF)

    def check_columns(self, registry: RegistryClient, subject: str, writer: Schema, version: int | None,
                      names: Sequence[str], message: str | None) -> None:
        if version is None:
            return  # .proto text becomes descriptors in the registry: its columns are checked once registered
        descriptor = writer_message(registry, subject, version, message).DESCRIPTOR
        extra = [name for name in names if name not in descriptor.fields_by_name]
        if extra:
            raise ValueError(f"the columns do not fit the message {descriptor.full_name}: columns without a "
                             f"field {extra}")

    def row_writer(self, client: RegistryClient, subject: str, version: int, record_type: T.StructType,
                   message: str | None, rule_config: Mapping[str, str]) -> RowWriter:
        message_class = writer_message(client, subject, version, message)
        serialize = ProtobufSerializer(client, message_class, subject=subject, writer=PinnedVersion(version),
                                       rule_config=rule_config)
        build = message_builder(message_class.DESCRIPTOR, message_class.DESCRIPTOR.name)

        def write(row: dict[str, Any]) -> bytes:
            try:
                built = message_class(**build(row))
            except (TypeError, ValueError, KeyError) as exc:
                raise SerializationError(f"the row does not fit {message_class.DESCRIPTOR.full_name}: {exc}") \
                    from exc
            return serialize(built)
        return write


PROTOBUF_ENCODER = ProtobufEncoder()
