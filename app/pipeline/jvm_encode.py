"""`encode` on the JVM path: the Java UDF `AvroEncodeUdf`, planned here on the driver.

The driver has registered (or found) the writer version already; the plan names its header
(Confluent framing: magic byte and schema id), its text with its references' texts, and the
Spark type of the record's columns, and travels to the executors as a file
(`app.pipeline.jvm_plans`). The executors write by fastavro's rules (`AvroWrites.java`), so the
bytes are the Python path's, which are `AvroSerializer`'s.

Spark hands a Java UDF a map column as a Scala map, whose order is not the column's once it
holds more than four entries; the Python path writes entries in the column's order. So every
map, at any depth, is passed as its `map_entries` (an array of key/value structs), and the
plan's Spark type, which still says map, tells the executor how to read it.
"""
from __future__ import annotations

from collections.abc import Sequence

from pyspark.sql import Column, DataFrame
from pyspark.sql import functions as F
from pyspark.sql import types as T

from app.client import CONFLUENT, RegisteredSchema, RegistryClient
from app.pipeline.jvm_plans import plan_call, schema_texts

ENCODE_CLASS = "org.sqlregistry.pipeline.AvroEncodeUdf"


def _has_map(data_type: T.DataType) -> bool:
    if isinstance(data_type, T.MapType):
        return True
    if isinstance(data_type, T.ArrayType):
        return _has_map(data_type.elementType)
    if isinstance(data_type, T.StructType):
        return any(_has_map(field.dataType) for field in data_type.fields)
    return False


def _entries(column: Column, data_type: T.DataType) -> Column:
    """`column` with every map inside it as its array of (key, value) entries, in order."""
    if not _has_map(data_type):
        return column
    if isinstance(data_type, T.MapType):
        if not _has_map(data_type.valueType):
            return F.map_entries(column)
        return F.transform(F.map_entries(column), lambda entry: F.struct(
            entry["key"].alias("key"), _entries(entry["value"], data_type.valueType).alias("value")))
    if isinstance(data_type, T.ArrayType):
        return F.transform(column, lambda item: _entries(item, data_type.elementType))
    assert isinstance(data_type, T.StructType)
    return F.when(column.isNotNull(), F.struct(*[
        _entries(column[field.name], field.dataType).alias(field.name) for field in data_type.fields]))


def jvm_encode(df: DataFrame, registry: RegistryClient, writer: RegisteredSchema, names: Sequence[str],
               keep: Sequence[str], output: str) -> DataFrame:
    """`keep` columns plus `output`, the framed record of `names` written with `writer`."""
    record_type = T.StructType([df.schema[name] for name in names])
    plan = {"header": CONFLUENT.header(writer).hex(), "writer": schema_texts(registry, writer.schema),
            "spark_type": record_type.json()}
    record = F.struct(*[_entries(F.col(f"`{column}`"), df.schema[column].dataType).alias(column) for column in names])
    return df.select(*[F.col(f"`{column}`") for column in keep],
                     plan_call(df.sparkSession, "encode", plan, ENCODE_CLASS, T.BinaryType(), record).alias(output))
