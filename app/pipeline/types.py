"""Avro schemas as Spark types, as Spark's own Avro reader maps them.

The mapping follows Spark's own Avro reader so that a job moving from spark-avro to ours sees
the same columns: records -> structs, enums -> string, fixed/bytes -> binary, `[null, T]` ->
nullable T, `[int, long]` -> long and `[float, double]` -> double (Spark widens these two), other
unions -> a struct with one nullable field per non-null member (`member0`, ...),
logical types to their Spark types. A type that contains itself has no Spark equivalent and
is refused with a clear error, not a stack overflow.

What fastavro's values need to fit these types is `app.pipeline.values`' business: it
depends on the writer schema too, this mapping only on the reader.
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from pyspark.sql import types as T

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
    """A Spark type with the nullability Avro gave it."""

    data_type: T.DataType
    nullable: bool


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
                return SparkShape(_PRIMITIVES[schema], False)
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
            return self._remember(schema, namespace, SparkShape(T.StringType(), False))
        if kind == "fixed":
            return self._remember(schema, namespace, SparkShape(T.BinaryType(), False))
        if kind == "array":
            item = self.shape(schema["items"], namespace)
            return SparkShape(T.ArrayType(item.data_type, item.nullable), False)
        if kind == "map":
            value = self.shape(schema["values"], namespace)
            return SparkShape(T.MapType(T.StringType(), value.data_type, value.nullable), False)
        if isinstance(kind, str) and kind in _PRIMITIVES:
            return SparkShape(_PRIMITIVES[kind], False)
        return self.shape(kind, namespace)

    def _remember(self, schema: dict[str, Any], namespace: str | None, shape: SparkShape) -> SparkShape:
        self.named[_full_name(schema, namespace)[0]] = shape
        return shape

    def _logical(self, kind: Any, logical: str, schema: dict[str, Any]) -> SparkShape | None:
        """Spark's type for a logical type, or None where Avro says to ignore an invalid one."""
        if logical == "date" and kind == "int":
            return SparkShape(T.DateType(), False)
        if logical in ("timestamp-millis", "timestamp-micros") and kind == "long":
            return SparkShape(T.TimestampType(), False)
        if logical in ("local-timestamp-millis", "local-timestamp-micros") and kind == "long":
            return SparkShape(T.TimestampNTZType(), False)
        if logical == "uuid" and kind == "string":
            return SparkShape(T.StringType(), False)
        if logical == "decimal" and kind in ("bytes", "fixed"):
            precision, scale = int(schema["precision"]), int(schema.get("scale", 0))
            if 0 < precision <= 38 and 0 <= scale <= precision:
                return SparkShape(T.DecimalType(precision, scale), False)
        return None

    def _record(self, schema: dict[str, Any], namespace: str | None) -> SparkShape:
        full, space = _full_name(schema, namespace)
        self.in_progress.add(full)
        fields: list[T.StructField] = []
        for field in schema["fields"]:
            shape = self.shape(field["type"], space)
            fields.append(T.StructField(field["name"], shape.data_type, shape.nullable))
        self.in_progress.discard(full)
        return self._remember(schema, namespace, SparkShape(T.StructType(fields), False))

    def _union(self, members: list[Any], namespace: str | None) -> SparkShape:
        others = [member for member in members if member != "null"]
        nullable = len(others) < len(members)
        if len(others) == 1:
            inner = self.shape(others[0], namespace)
            return SparkShape(inner.data_type, nullable or inner.nullable)
        shapes = [self.shape(member, namespace) for member in others]
        kinds = {_kind(member) for member in others}
        # Spark widens these two pairs instead of making a struct of them.
        if kinds == {"int", "long"}:
            return SparkShape(T.LongType(), nullable)
        if kinds == {"float", "double"}:
            return SparkShape(T.DoubleType(), nullable)
        fields = [T.StructField(f"member{i}", shape.data_type, True) for i, shape in enumerate(shapes)]
        return SparkShape(T.StructType(fields), nullable)


def _kind(member: Any) -> str:
    """The Avro type of a union member (its base type when it has a logical type)."""
    if isinstance(member, dict):
        return member["type"] if isinstance(member["type"], str) else "complex"
    return member if member in _PRIMITIVES else "named"


def avro_to_spark(schema_text: str) -> SparkShape:
    """The Spark shape of an Avro schema (text as the registry stores it)."""
    try:
        return _Mapper().shape(json.loads(schema_text), None)
    except (KeyError, TypeError) as exc:
        raise UnsupportedAvroType(f"cannot map the Avro schema to Spark: {exc!r}") from exc
