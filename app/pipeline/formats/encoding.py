"""What `encode` asks of a schema format: a writer schema derived from a DataFrame's columns,
the check that the columns fit a registered writer, and, in each Python worker, a function from
one row (a dict of Arrow's Python values) to its framed bytes.

Registration, the engine choice and the workers' batch loop are `app.pipeline.encode`'s and
shared by every format; the row writer is always the client's serializer of the format pinned to
the registered version, so the bytes are every other producer's of that schema id.
"""
from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, Protocol

import pyarrow as pa
from pyspark.sql import types as T

from app.client import RegistryClient, Schema

# One row of the record's columns, by name, as Arrow's `to_pylist` gives it -> framed bytes.
RowWriter = Callable[[dict[str, Any]], bytes]


class FormatEncoder(Protocol):
    name: str  # what log lines and errors call it: "Avro", "JSON Schema", "Protobuf"
    jvm: bool  # whether the JVM encoder writes it
    # Whether top-level timestamp columns reach the row writer as int microseconds since the
    # epoch rather than datetimes (Arrow makes a zoned datetime per value: 3.4 us, most of a row).
    timestamp_micros: bool

    def derive(self, record_type: T.StructType, record_name: str, namespace: str | None) -> Schema:
        """The writer schema for rows of `record_type` (the columns encoded), in this format."""

    def check_columns(self, registry: RegistryClient, subject: str, writer: Schema, version: int | None,
                      names: Sequence[str], message: str | None) -> None:
        """Refuses, on the driver, columns that cannot fill the writer's record: a column the
        record has no field for (it would be dropped silently), a field that must be given and
        has no column. `version` None: `writer` is not registered yet (checked before it is)."""

    def row_writer(self, client: RegistryClient, subject: str, version: int, record_type: T.StructType,
                   message: str | None, rule_config: Mapping[str, str]) -> RowWriter:
        """This worker's writer of rows of `record_type` with `version` of `subject` (the
        client's serializer pinned to it, running the version's WRITE rules with `rule_config`)."""


Convert = Callable[[Any], Any]


def value_converter(data_type: T.DataType, leaf: Callable[[T.DataType], Convert | None]) -> Convert | None:
    """Arrow's Python value of `data_type` -> what a serializer takes (None: as it is): maps
    from Arrow's list of (key, value) pairs to dicts, structs and arrays walked into, and
    `leaf(type)` for every other type's values (a format's own conversions)."""
    if isinstance(data_type, T.MapType):
        inner = value_converter(data_type.valueType, leaf)
        if inner is None:
            return lambda pairs: None if pairs is None else dict(pairs)
        return lambda pairs: None if pairs is None else {key: inner(value) for key, value in pairs}
    if isinstance(data_type, T.ArrayType):
        element = value_converter(data_type.elementType, leaf)
        return None if element is None else lambda items: None if items is None else [element(x) for x in items]
    if isinstance(data_type, T.StructType):
        fields = [(f.name, c) for f in data_type.fields if (c := value_converter(f.dataType, leaf)) is not None]
        if not fields:
            return None

        def convert(row: Any) -> Any:
            if row is None:
                return None
            for name, field_convert in fields:
                row[name] = field_convert(row[name])
            return row
        return convert
    return leaf(data_type)


def batch_rows(batch: pa.RecordBatch, names: Sequence[str], timestamp_micros: bool) -> list[dict[str, Any]]:
    """The rows of `names` in `batch` as dicts, read column by column (3x quicker than
    `RecordBatch.to_pylist`, which builds each row's dict value by value)."""
    columns = []
    for name in names:
        column = batch.column(name)
        if timestamp_micros and pa.types.is_timestamp(column.type):
            column = column.cast(pa.int64())
        columns.append(column.to_pylist())
    return [dict(zip(names, values)) for values in zip(*columns)]
