"""Avro schemas as Spark types, and fastavro's values as what Arrow accepts for those types.

The mapping follows Spark's own Avro reader so that a job moving from spark-avro to ours sees
the same columns: records -> structs, enums -> string, fixed/bytes -> binary, `[null, T]` ->
nullable T, other unions -> a struct with one nullable field per member (`member0`, ...),
logical types to their Spark types. A type that contains itself has no Spark equivalent and
is refused with a clear error, not a stack overflow.

Each Avro type also yields a converter from fastavro's decoded value to the value Arrow
builds the column from; `None` means the value passes as it is (most types), so a schema
without uuids or general unions costs no per-value Python call at all.
"""
from __future__ import annotations

import json
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from pyspark.sql import types as T

Convert = Callable[[Any], Any] | None

_PRIMITIVES: dict[str, T.DataType] = {
    "null": T.NullType(),
    "boolean": T.BooleanType(),
    "int": T.IntegerType(),
    "long": T.LongType(),
    "float": T.FloatType(),
    "double": T.DoubleType(),
    "string": T.StringType(),
    "bytes": T.BinaryType(),
}
_NAMED = ("record", "enum", "fixed")


class UnsupportedAvroType(ValueError):
    """The schema cannot become a Spark type (a recursive type, an unknown name)."""


@dataclass(frozen=True)
class SparkShape:
    """A Spark type with the nullability Avro gave it and the value converter for it."""

    data_type: T.DataType
    nullable: bool
    convert: Convert


def _full_name(schema: dict[str, Any], namespace: str | None) -> tuple[str, str | None]:
    name = schema["name"]
    if "." in name:
        return name, name.rsplit(".", 1)[0]
    space = schema.get("namespace", namespace)
    return (f"{space}.{name}" if space else name), space


class _Mapper:
    def __init__(self) -> None:
        self.named: dict[str, Any] = {}
        self.in_progress: set[str] = set()

    def shape(self, schema: Any, namespace: str | None) -> SparkShape:
        if isinstance(schema, str):
            if schema in _PRIMITIVES:
                return SparkShape(_PRIMITIVES[schema], False, None)
            full = schema if "." in schema or not namespace else f"{namespace}.{schema}"
            for candidate in (full, schema):
                if candidate in self.in_progress:
                    raise UnsupportedAvroType(f"recursive type {candidate} has no Spark equivalent")
                if candidate in self.named:
                    return self.named[candidate]
            raise UnsupportedAvroType(f"unknown Avro type name {schema!r}")
        if isinstance(schema, list):
            return self._union(schema, namespace)
        kind = schema["type"]
        logical = schema.get("logicalType")
        if logical is not None:
            shape = self._logical(kind, logical, schema)
            if shape is not None:
                if kind == "fixed":
                    self.named[_full_name(schema, namespace)[0]] = shape
                return shape
        if kind == "record" or kind == "error":
            return self._record(schema, namespace)
        if kind == "enum":
            return self._remember(schema, namespace, SparkShape(T.StringType(), False, None))
        if kind == "fixed":
            return self._remember(schema, namespace, SparkShape(T.BinaryType(), False, None))
        if kind == "array":
            item = self.shape(schema["items"], namespace)
            convert = None if item.convert is None else _each(item.convert)
            return SparkShape(T.ArrayType(item.data_type, item.nullable), False, convert)
        if kind == "map":
            value = self.shape(schema["values"], namespace)
            convert = None if value.convert is None else _each_value(value.convert)
            return SparkShape(T.MapType(T.StringType(), value.data_type, value.nullable), False, convert)
        if isinstance(kind, str) and kind in _PRIMITIVES:
            return SparkShape(_PRIMITIVES[kind], False, None)
        return self.shape(kind, namespace)

    def _remember(self, schema: dict[str, Any], namespace: str | None, shape: SparkShape) -> SparkShape:
        self.named[_full_name(schema, namespace)[0]] = shape
        return shape

    def _logical(self, kind: Any, logical: str, schema: dict[str, Any]) -> SparkShape | None:
        """Spark's type for a logical type, or None where Avro says to ignore an invalid one."""
        if logical == "date" and kind == "int":
            return SparkShape(T.DateType(), False, None)
        if logical in ("timestamp-millis", "timestamp-micros") and kind == "long":
            return SparkShape(T.TimestampType(), False, None)
        if logical in ("local-timestamp-millis", "local-timestamp-micros") and kind == "long":
            return SparkShape(T.TimestampNTZType(), False, None)
        if logical == "uuid" and kind == "string":
            return SparkShape(T.StringType(), False, _uuid_text)
        if logical == "decimal" and kind in ("bytes", "fixed"):
            precision, scale = int(schema["precision"]), int(schema.get("scale", 0))
            if 0 < precision <= 38 and 0 <= scale <= precision:
                return SparkShape(T.DecimalType(precision, scale), False, None)
        return None

    def _record(self, schema: dict[str, Any], namespace: str | None) -> SparkShape:
        full, space = _full_name(schema, namespace)
        self.in_progress.add(full)
        fields: list[T.StructField] = []
        converters: list[tuple[str, Callable[[Any], Any]]] = []
        for field in schema["fields"]:
            shape = self.shape(field["type"], space)
            fields.append(T.StructField(field["name"], shape.data_type, shape.nullable))
            if shape.convert is not None:
                converters.append((field["name"], shape.convert))
        self.in_progress.discard(full)
        convert = _record_converter(converters) if converters else None
        return self._remember(schema, namespace, SparkShape(T.StructType(fields), False, convert))

    def _union(self, members: list[Any], namespace: str | None) -> SparkShape:
        others = [member for member in members if member != "null"]
        nullable = len(others) < len(members)
        if len(others) == 1:
            inner = self.shape(others[0], namespace)
            return SparkShape(inner.data_type, nullable or inner.nullable, inner.convert)
        shapes = [self.shape(member, namespace) for member in others]
        fields = [T.StructField(f"member{i}", shape.data_type, True) for i, shape in enumerate(shapes)]
        return SparkShape(T.StructType(fields), nullable, _union_converter(others, shapes))


def _uuid_text(value: Any) -> Any:
    return str(value) if isinstance(value, uuid.UUID) else value


def _each(convert: Callable[[Any], Any]) -> Callable[[Any], Any]:
    return lambda items: None if items is None else [convert(item) for item in items]


def _each_value(convert: Callable[[Any], Any]) -> Callable[[Any], Any]:
    return lambda entries: None if entries is None else {k: convert(v) for k, v in entries.items()}


def _record_converter(converters: list[tuple[str, Callable[[Any], Any]]]) -> Callable[[Any], Any]:
    def convert(record: Any) -> Any:
        if record is None:
            return None
        out = dict(record)
        for name, field_convert in converters:
            out[name] = field_convert(out[name])
        return out
    return convert


_PYTHON_KINDS: dict[str, tuple[type, ...]] = {
    "boolean": (bool,), "int": (int,), "long": (int,), "float": (float, int), "double": (float, int),
    "string": (str,), "bytes": (bytes,), "enum": (str,), "fixed": (bytes,), "record": (dict,),
    "array": (list,), "map": (dict,),
}


def _union_converter(members: list[Any], shapes: list[SparkShape]) -> Callable[[Any], Any]:
    """fastavro returns a general union's value bare; the member is found by the value's Python
    type (the first member that fits, as Avro's writers pick it). Records are told apart by
    fastavro's `-type` key when present (`return_record_name`), else the first record member."""
    kinds = [_avro_kind(member) for member in members]
    names = [member.get("name") if isinstance(member, dict) else member for member in members]

    def convert(value: Any) -> Any:
        if value is None:
            return None
        out: dict[str, Any] = {f"member{i}": None for i in range(len(members))}
        for i, kind in enumerate(kinds):
            named_record = kind == "record" and isinstance(value, dict) and "-type" in value
            if named_record and not str(value["-type"]).endswith(str(names[i])):
                continue
            fits = _PYTHON_KINDS.get(kind, (object,))
            if isinstance(value, fits) and not (kind in ("int", "long", "float", "double") and isinstance(value, bool)):
                shape_convert = shapes[i].convert
                out[f"member{i}"] = value if shape_convert is None else shape_convert(value)
                return out
        raise ValueError(f"no member of union {json.dumps(members)} holds {type(value).__name__}")
    return convert


def _avro_kind(member: Any) -> str:
    if isinstance(member, str):
        return member if member in _PRIMITIVES else "record"
    kind = member.get("type")
    return kind if isinstance(kind, str) else "record"


def avro_to_spark(schema_text: str) -> SparkShape:
    """The Spark shape of an Avro schema (text as the registry stores it)."""
    try:
        return _Mapper().shape(json.loads(schema_text), None)
    except (KeyError, TypeError) as exc:
        raise UnsupportedAvroType(f"cannot map the Avro schema to Spark: {exc!r}") from exc
