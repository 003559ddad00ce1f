"""Tables that follow their subject: decoded rows into a catalog table that the reader schema
creates and evolves (AVRO-1124's "auto-create hive tables, or add new fields to existing tables").

`write_table(decoded, reader, "db.orders")` takes what `decode` returns and the reader schema it
decoded with. The table's columns are the reader record's fields (the struct column's fields,
so any format whose decode yields a struct works) followed by the DataFrame's other columns
(`key`, `offset`, ... of a topic dump). Each field's doc (Avro `doc`, JSON Schema `description`,
Protobuf leading comment) becomes its column's comment.

- No table yet: it is created (`USING parquet`, partitioned by `partition_by` when asked).
- A reader that adds fields (a compatible version): `ALTER TABLE ... ADD COLUMNS`, then the rows
  are appended. Older rows read the field's default where the schema gives a plain one (the
  column's `DEFAULT`), else null, as the reader schema would project them.
- A reader the table cannot take (a column's type changed, a column it lacks, another partition
  column) raises `TableRefused` naming the column, before anything is altered or written. A
  field added inside a struct column is such a change too, named down to the nested field:
  Spark's catalog has no way to widen a column's struct type for these tables.

The checks and the DDL go through the session's catalog, whatever it is: the Hive metastore
(`enableHiveSupport()`, an embedded Derby one or a fleet's external one through Spark's
configuration) or Spark's in-memory catalog.
"""
from __future__ import annotations

import json
import math
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from pyspark.sql import DataFrame
from pyspark.sql import functions as F
from pyspark.sql import types as T

from app.client import Schema
from app.client.records import AVRO, JSON, PROTOBUF
from app.pipeline.protobuf_comments import field_comments

_TABLE_NAME = re.compile(r"^[A-Za-z_]\w*(\.[A-Za-z_]\w*){0,2}$")


class TableRefused(ValueError):
    """The table cannot take these rows; nothing was altered or written."""


@dataclass(frozen=True)
class FieldNote:
    """What the reader schema says about one of its record's fields beyond its type."""

    doc: str | None = None
    default: Any = None
    has_default: bool = False


@dataclass(frozen=True)
class TableColumn:
    """A column the rows need, as the table should declare it."""

    name: str
    data_type: T.DataType
    comment: str | None
    default: str | None  # a SQL literal, for older rows when the column is added later


@dataclass(frozen=True)
class TableWrite:
    """What `write_table` did to the table before appending."""

    table: str
    created: bool
    added: tuple[str, ...]


def _avro_notes(text: str, message: str | None) -> dict[str, FieldNote]:
    record = json.loads(text)
    if not isinstance(record, dict) or record.get("type") not in ("record", "error"):
        return {}
    return {field["name"]: FieldNote(field.get("doc"), field.get("default"), "default" in field)
            for field in record.get("fields", ())}


def _json_schema_notes(text: str, message: str | None) -> dict[str, FieldNote]:
    """A JSON Schema's top-level `properties`: `description` is the doc, `default` the default."""
    root = json.loads(text)
    properties = root.get("properties") if isinstance(root, dict) else None
    if not isinstance(properties, dict):
        return {}
    return {name: FieldNote(spec.get("description"), spec.get("default"), "default" in spec)
            for name, spec in properties.items() if isinstance(spec, dict)}


def _protobuf_notes(text: str, message: str | None) -> dict[str, FieldNote]:
    """The leading comments of the fields of `message` (a full name; default the file's first
    message, as decode reads), from the registry's `.proto` text; proto3 defaults are the
    type's zero, which the table's null for older rows already stands for."""
    messages = field_comments(text)
    comments = messages.get(message) if message is not None else next(iter(messages.values()), None)
    return {name: FieldNote(comment) for name, comment in (comments or {}).items()}


# One entry per schema type; a format added to the pipeline adds its reader of field notes here.
FIELD_NOTES: dict[str, Callable[[str, str | None], dict[str, FieldNote]]] = {
    AVRO: _avro_notes, JSON: _json_schema_notes, PROTOBUF: _protobuf_notes,
}


def field_notes(reader: Schema, message: str | None = None) -> dict[str, FieldNote]:
    """Each top-level field's doc and default, by the rules of the reader's schema type
    (`message`: the Protobuf message decoded)."""
    notes = FIELD_NOTES.get(reader.schema_type)
    return notes(reader.text, message) if notes is not None else {}


def _bare(data_type: T.DataType) -> T.DataType:
    """The type with nullability and metadata dropped: a table's columns are all nullable, so
    only the shape can differ."""
    if isinstance(data_type, T.StructType):
        return T.StructType([T.StructField(f.name, _bare(f.dataType), True) for f in data_type.fields])
    if isinstance(data_type, T.ArrayType):
        return T.ArrayType(_bare(data_type.elementType), True)
    if isinstance(data_type, T.MapType):
        return T.MapType(_bare(data_type.keyType), _bare(data_type.valueType), True)
    return data_type


def _quote(name: str) -> str:
    return "`" + name.replace("`", "``") + "`"


def _literal(text: str) -> str:
    escaped = text.replace("\\", "\\\\").replace("'", "\\'").replace("\n", "\\n").replace("\r", "\\r")
    return f"'{escaped}'"


def sql_type(data_type: T.DataType) -> str:
    """The DDL spelling of a Spark type, nested field names quoted."""
    if isinstance(data_type, T.StructType):
        return "STRUCT<" + ", ".join(f"{_quote(f.name)}: {sql_type(f.dataType)}" for f in data_type.fields) + ">"
    if isinstance(data_type, T.ArrayType):
        return f"ARRAY<{sql_type(data_type.elementType)}>"
    if isinstance(data_type, T.MapType):
        return f"MAP<{sql_type(data_type.keyType)}, {sql_type(data_type.valueType)}>"
    return data_type.simpleString()


def _default_literal(note: FieldNote, data_type: T.DataType) -> str | None:
    """A plain default (boolean, number, string) as a SQL literal of the column's type; other
    defaults (null, records, arrays, bytes) leave older rows null."""
    value = note.default
    if not note.has_default or value is None:
        return None
    if isinstance(data_type, T.BooleanType) and isinstance(value, bool):
        return "TRUE" if value else "FALSE"
    if isinstance(data_type, (T.ByteType, T.ShortType, T.IntegerType, T.LongType)) \
            and isinstance(value, int) and not isinstance(value, bool):
        return str(value)
    if isinstance(data_type, (T.FloatType, T.DoubleType)) and isinstance(value, (int, float)) \
            and not isinstance(value, bool) and math.isfinite(value):
        return repr(float(value))
    if isinstance(data_type, T.StringType) and isinstance(value, str):
        return _literal(value)
    return None


def table_columns(decoded: DataFrame, reader: Schema, column: str = "value",
                  message: str | None = None) -> list[TableColumn]:
    """The columns `decoded`'s rows need: the fields of the struct `column`, with the reader's
    docs and defaults (of `message`, for Protobuf), then every other column as it is."""
    if column not in decoded.columns or not isinstance(decoded.schema[column].dataType, T.StructType):
        raise TableRefused(f"the table mode needs {column!r} decoded to a record (a struct column)")
    notes = field_notes(reader, message)
    struct = decoded.schema[column].dataType
    assert isinstance(struct, T.StructType)
    columns = []
    for field in struct.fields:
        note = notes.get(field.name, FieldNote())
        columns.append(TableColumn(field.name, field.dataType, note.doc, _default_literal(note, field.dataType)))
    fields = set(struct.names)
    for other in decoded.schema.fields:
        if other.name == column:
            continue
        if other.name in fields:
            raise TableRefused(f"column {other.name!r} of the input has the name of a field of the record")
        columns.append(TableColumn(other.name, other.dataType, None, None))
    return columns


def _table_identifier(table: str) -> str:
    if not _TABLE_NAME.match(table):
        raise TableRefused(f"table {table!r}: give [catalog.][database.]name, of letters, digits and _")
    return ".".join(_quote(part) for part in table.split("."))


def _definition(column: TableColumn) -> str:
    text = f"{_quote(column.name)} {sql_type(column.data_type)}"
    return text + (f" COMMENT {_literal(column.comment)}" if column.comment else "")


def write_table(decoded: DataFrame, reader: Schema | str, table: str, partition_by: str | None = None,
                *, column: str = "value", message: str | None = None) -> TableWrite:
    """Appends `decoded` (what `decode` returned, with `reader` the schema it decoded to: a
    `Schema`, or Avro text; `message` the Protobuf message it read) to `table`, creating or
    evolving the table first. Raises `TableRefused` naming the column when the table cannot take
    the rows, before any change."""
    if decoded.isStreaming:
        raise ValueError("write_table appends a batch: for a stream, call it on each micro-batch "
                         "(writeStream.foreachBatch)")
    reader = Schema(reader) if isinstance(reader, str) else reader
    identifier = _table_identifier(table)
    spark = decoded.sparkSession
    columns = table_columns(decoded, reader, column, message)
    by_name = {c.name: c for c in columns}
    if partition_by is not None and partition_by not in by_name:
        raise TableRefused(f"partition column {partition_by!r} is neither a field of the record nor a column")
    created, added = False, ()
    if not spark.catalog.tableExists(table):
        partitioned = f" PARTITIONED BY ({_quote(partition_by)})" if partition_by else ""
        spark.sql(f"CREATE TABLE {identifier} ({', '.join(_definition(c) for c in columns)}) "
                  f"USING parquet{partitioned}")
        created = True
    else:
        added = _evolve(spark, table, identifier, by_name, partition_by)
    # insertInto matches by position: select in the table's order (partition columns last).
    fields = set(decoded.schema[column].dataType.names)
    value = F.col(_quote(column))
    rows = decoded.select(*[value.getField(name).alias(name) if name in fields else F.col(_quote(name))
                            for name in spark.table(table).columns])
    rows.write.insertInto(table)
    return TableWrite(table, created, added)


def _nested_change(current: T.DataType, wanted: T.DataType, path: str) -> str | None:
    """The first change inside a struct, array or map column (`field s.b added`, `s.a is int,
    the reader schema makes it string`); None when the change is of the column's own type."""
    if isinstance(current, T.StructType) and isinstance(wanted, T.StructType):
        old, new = {f.name: f.dataType for f in current.fields}, {f.name: f.dataType for f in wanted.fields}
        for name, data_type in new.items():
            if name not in old:
                return f"field {path}.{name} added"
            if _bare(old[name]) != _bare(data_type):
                inner = _nested_change(old[name], data_type, f"{path}.{name}")
                return inner or f"{path}.{name} is {old[name].simpleString()}, the reader schema makes it " \
                    f"{data_type.simpleString()}"
        removed = [name for name in old if name not in new]
        return f"field {path}.{removed[0]} removed" if removed else f"the fields of {path} reordered"
    if isinstance(current, T.ArrayType) and isinstance(wanted, T.ArrayType):
        return _nested_change(current.elementType, wanted.elementType, f"{path}[]")
    if isinstance(current, T.MapType) and isinstance(wanted, T.MapType):
        return _nested_change(current.valueType, wanted.valueType, f"{path}{{}}")
    return None


def _type_change(table: str, name: str, current: T.DataType, wanted: T.DataType) -> str:
    """Why the table cannot take a column's new type. A change inside a struct is named down to
    the nested field: even a field added there (a compatible version) cannot be applied, since
    Spark's session catalog refuses every way of changing a column's struct type for these
    tables (`ADD COLUMNS s.f`, `CHANGE COLUMN`, `REPLACE COLUMNS`; measured on Spark 4.0 with
    the Hive metastore, whose own check refuses the altered type as well)."""
    nested = _nested_change(current, wanted, name)
    if nested is None:
        return f"column {name!r} of table {table} is {current.simpleString()}, the reader schema makes it " \
               f"{wanted.simpleString()}"
    return f"column {name!r} of table {table}: {nested}; Spark's catalog cannot change the type of a column " \
           "inside a struct (ALTER TABLE adds top-level columns only), so write to a new table or recreate this one"


def _evolve(spark: Any, table: str, identifier: str, wanted: Mapping[str, TableColumn],
            partition_by: str | None) -> tuple[str, ...]:
    """Checks that the table can take rows of `wanted`, then adds the columns it lacks and
    brings its comments up to date; returns the added columns' names."""
    existing = spark.catalog.listColumns(table)
    partitions = [c.name for c in existing if c.isPartition]
    if partition_by is not None and partitions != [partition_by]:
        raise TableRefused(f"table {table} is partitioned by {partitions or 'nothing'}, not by {partition_by!r}")
    current = {field.name: field for field in spark.table(table).schema.fields}
    for name, field in current.items():
        if name not in wanted:
            raise TableRefused(f"column {name!r} of table {table} is missing from these rows (removed from the "
                               "reader schema or the input)")
        if _bare(field.dataType) != _bare(wanted[name].data_type):
            raise TableRefused(_type_change(table, name, field.dataType, wanted[name].data_type))
    new = [c for name, c in wanted.items() if name not in current]
    if new:
        spark.sql(f"ALTER TABLE {identifier} ADD COLUMNS (" + ", ".join(
            _definition(c) + (f" DEFAULT {c.default}" if c.default else "") for c in new) + ")")
    comments = {c.name: c.description for c in existing}
    for name, column in wanted.items():
        if name in current and name not in partitions and column.comment and column.comment != comments.get(name):
            spark.sql(f"ALTER TABLE {identifier} ALTER COLUMN {_quote(name)} COMMENT {_literal(column.comment)}")
    return tuple(c.name for c in new)

