"""`decode` on the JVM path: the Java UDF of `app.pipeline.jvm`, planned here on the driver.

The driver reads the distinct headers of the column (one pass, as `latest-seen` does), finds
each header's writer once through the registry client (its caches and rules: ids, fingerprints,
references) and writes a plan file: framing, reader schema, each header's writer schema with
its references' texts, or why the header names none. `SparkContext.addFile` ships the plan to
every executor, where it is parsed once per JVM; the per-row argument is only its file name. So
no executor of a batch decode asks the registry anything, and a cluster needs no route to it.

A stream's headers cannot be read ahead, so its plan names none; it carries how to reach the
registry instead (URLs, the client's Authorization header, timeout and retries), and each
executor JVM fetches the writers it meets, once per header (`RegistryWriters.java`). The plan
file then holds the client's credentials, as the Python path's pickled client does in every task
(`app.pipeline.jvm_plans` keeps it owner-only).

The UDF returns `struct(value, error)`; the record's fault is data, never an exception, so
`on_error="route"` is two column reads, and `"fail"` raises Spark's `raise_error` naming the
record's topic, partition and offset as the Python path does.
"""
from __future__ import annotations

from pyspark.sql import Column, DataFrame
from pyspark.sql import functions as F
from pyspark.sql import types as T

from app.client import RegistryClient, SchemaNotFound, SerializationError
from app.client.framing import Framing
from app.pipeline.jvm import UDF_CLASS
from app.pipeline.jvm_plans import plan_call, schema_texts
from app.pipeline.types import avro_to_spark

_DECODED = "__sqlregistry_decoded"


def registry_access(registry: RegistryClient) -> dict[str, object]:
    """What an executor needs to ask the registry as `registry` would."""
    transport = registry.transport
    return {"urls": list(transport.urls), "authorization": transport.authorization, "timeout": transport.timeout,
            "retries": transport.policy.retries, "backoff": transport.policy.backoff,
            "backoff_max": transport.policy.backoff_max, "max_reply_bytes": transport.max_reply_bytes}


def decode_plan(headers: list[bytes] | None, registry: RegistryClient, reader_text: str, framing: Framing,
                marker: bytes) -> dict[str, object]:
    """The plan the executors read: every header's writer texts (references first) or failure;
    with `headers` None (a stream), the registry for the executors to find writers in."""
    writers: dict[str, list[str]] = {}
    failures: dict[str, str] = {}
    for header in headers or ():
        try:
            writer = framing.find_writer(framing.writer_key(header), registry, None)
            writers[header.hex()] = schema_texts(registry, writer)
        except (SchemaNotFound, SerializationError) as exc:
            failures[header.hex()] = f"{type(exc).__name__}: {exc}"
    framing_name = "a Confluent-framed record" if len(marker) == 1 else "an Avro single-object record"
    return {"header_size": framing.header_size, "marker": marker.hex(), "framing": framing_name,
            "reader": [reader_text], "writers": writers, "failures": failures,
            "registry": registry_access(registry) if headers is None else None}


def record_position(position: list[str]) -> Column:
    """` at topic=..., partition=..., offset=...` of each row (empty without such columns), for
    the line that stops a job on a bad record."""
    if not position:
        return F.lit("")
    return F.concat(F.lit(" at "), F.concat_ws(", ", *[
        F.concat(F.lit(f"{name}="), F.coalesce(F.col(name).cast("string"), F.lit("null"))) for name in position]))


def jvm_decode_with_schema(df: DataFrame, column: str, registry: RegistryClient, reader_text: str, *,
                           headers: list[bytes] | None, marker: bytes, output: str, on_error: str, framing: Framing,
                           position: list[str]) -> DataFrame:
    """`df` with `output` decoded by the Java UDF, columns in the Python path's order; `headers`
    None (a stream) lets the executors fetch writers from the registry."""
    shape = avro_to_spark(reader_text)
    result = T.StructType([T.StructField("value", shape.data_type, True),
                           T.StructField("error", T.StringType(), True)])
    plan = decode_plan(headers, registry, reader_text, framing, marker)
    decoded = df.withColumn(_DECODED, plan_call(df.sparkSession, "decode", plan, UDF_CLASS, result, F.col(column)))
    value, error = F.col(f"{_DECODED}.value"), F.col(f"{_DECODED}.error")
    if on_error == "fail":
        message = F.concat(F.lit(f"cannot decode {column}"), record_position(position), F.lit(": "), error)
        value = F.when(error.isNull(), value).otherwise(F.raise_error(message))
    columns = [F.col(f"`{field}`") for field in df.columns if field != output]
    columns.append(value.alias(output))
    if on_error == "route":
        columns.append(error.alias(f"{output}_error"))
    return decoded.select(*columns)
