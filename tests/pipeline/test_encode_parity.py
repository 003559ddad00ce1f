"""The JVM encoder writes the Python path's bytes (fastavro's, as `AvroSerializer` writes them)
where Avro's Java library would choose otherwise: a union member picked by fastavro's rules,
map entries in the column's order, decimals at fastavro's byte length, timestamps floored to
milliseconds, defaults for fields without a column; and on generated schemas, rows decoded from
generated records encode to the same bytes on both paths."""
from __future__ import annotations

import json
import random
from datetime import datetime, timedelta, timezone
from decimal import Decimal

import pytest
from generated_avro import COLUMN_SCHEMAS, value_of
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from app.client import AvroSerializer, RegistryClient
from app.pipeline import decode, encode

pytestmark = pytest.mark.parametrize("live_server", ["sqlite"], indirect=True)

TRICKY = json.dumps({"type": "record", "name": "Tricky", "namespace": "parity", "fields": [
    {"name": "id", "type": "long"},
    {"name": "counts", "type": {"type": "map", "values": "int"}},
    {"name": "nested", "type": {"type": "array", "items": {"type": "record", "name": "Holder", "fields": [
        {"name": "tags", "type": ["null", {"type": "map", "values": "string"}]},
        {"name": "note", "type": ["null", "string"]}]}}},  # no column, no default: null
    {"name": "price", "type": {"type": "bytes", "logicalType": "decimal", "precision": 8, "scale": 3}},
    {"name": "fixed_price", "type": {"type": "fixed", "name": "Price", "size": 6, "logicalType": "decimal",
                                     "precision": 10, "scale": 2}},
    {"name": "wide", "type": ["null", "double", "long"]},
    {"name": "narrow", "type": ["null", "int", "long"]},
    {"name": "ratio", "type": ["null", "float", "double"]},
    {"name": "shape", "type": ["null",
                               {"type": "record", "name": "Point", "fields": [{"name": "x", "type": "int"}]},
                               {"type": "record", "name": "Pair", "fields": [{"name": "x", "type": "int"},
                                                                             {"name": "y", "type": "int"}]}]},
    {"name": "colour", "type": ["null", {"type": "enum", "name": "Colour", "symbols": ["RED", "BLUE"]}, "string"]},
    {"name": "at", "type": {"type": "long", "logicalType": "timestamp-millis"}},
    {"name": "local", "type": {"type": "long", "logicalType": "local-timestamp-micros"}},
    {"name": "defaulted", "type": {"type": "array", "items": "int"}, "default": [1, 2]},
]})

COLUMNS = ("id long, counts map<string,int>, nested array<struct<tags:map<string,string>>>, price decimal(7,2), "
           "fixed_price decimal(10,2), wide long, narrow long, ratio double, shape struct<x:int,y:int>, "
           "colour string, at timestamp, local timestamp_ntz")


def row(n: int) -> tuple:
    epoch = datetime(1970, 1, 1, tzinfo=timezone.utc)
    return (
        n,
        {f"k{9 - i}": i * n for i in range(7)},  # more than four entries, not in key order
        [{"tags": {f"t{5 - i}": str(i) for i in range(6)}}, {"tags": None}],
        [Decimal("-1.28"), Decimal("0.00"), Decimal("-0.01"), Decimal("99999.99"), Decimal("-327.68")][n % 5],
        [Decimal("-1.28"), Decimal("12345678.90"), Decimal("0.01")][n % 3],
        [None, 7, -2**40][n % 3],
        [None, 5, 2**31, -2**31][n % 4],
        [None, 0.1, -1e300][n % 3],
        None if n % 3 == 0 else {"x": n, "y": -n},
        [None, "RED", "GREEN"][n % 3],
        epoch + timedelta(microseconds=[-1, 1_999, -1_000_001, 86_400_000_123][n % 4]),
        datetime(1969, 12, 31, 23, 59, 59, 999_999) + timedelta(days=n),
    )


def test_the_jvm_encoder_writes_the_python_paths_bytes_on_tricky_values(spark, decoder_jar, live_server,
                                                                       unique_subject):
    client = RegistryClient(live_server)
    subject = unique_subject()
    df = spark.createDataFrame([row(n) for n in range(12)], COLUMNS)
    jvm = encode(df, client, subject=subject, schema=TRICKY, keep=["id"], columns=df.columns, engine="jvm")
    python = encode(df, client, subject=subject, schema=TRICKY, keep=["id"], columns=df.columns, engine="python")
    jvm_rows = {r["id"]: r["value"] for r in jvm.collect()}
    python_rows = {r["id"]: r["value"] for r in python.collect()}
    assert len(jvm_rows) == 12
    assert {n: bytes(v) for n, v in jvm_rows.items()} == {n: bytes(v) for n, v in python_rows.items()}


def _encoded(df, client, subject: str, text: str, names: list[str], engine: str) -> dict[int, bytes] | str:
    """Each row's bytes by `n`, or the name of what the path raised."""
    try:
        rows = encode(df, client, subject=subject, schema=text, keep=["n"], columns=names, engine=engine).collect()
    except Exception as exc:  # the parity is in failing too
        return type(exc).__name__
    return {row["n"]: bytes(row["value"]) for row in rows}


@settings(max_examples=12, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(schema=COLUMN_SCHEMAS, seed=st.integers(0, 2**16))
def test_both_paths_encode_rows_of_generated_schemas_alike(spark, decoder_jar, live_server, unique_subject, schema,
                                                          seed):
    client = RegistryClient(live_server)
    subject = unique_subject()
    text = json.dumps(schema)
    serialize = AvroSerializer(client, text, subject=subject)
    rng = random.Random(seed)
    framed = spark.createDataFrame([(n, serialize(value_of(schema, rng))) for n in range(6)], "n long, value binary")
    names = [field["name"] for field in schema["fields"]]
    rows = decode(framed, "value", client, subject=subject, engine="python").select("n", "value.*")
    jvm = _encoded(rows, client, subject, text, names, "jvm")
    assert isinstance(jvm, dict) and len(jvm) == 6, (text, jvm)
    assert jvm == _encoded(rows, client, subject, text, names, "python"), text


LINKED = json.dumps({"type": "record", "name": "Link", "namespace": "parity", "fields": [
    {"name": "id", "type": "long"},
    {"name": "next", "type": ["null", "Link"]}]})  # no default: a struct without `next` writes null there


def test_the_jvm_encoder_writes_a_recursive_record_whose_struct_stops_short(spark, decoder_jar, live_server,
                                                                          unique_subject):
    client = RegistryClient(live_server)
    subject = unique_subject()
    df = spark.createDataFrame([(1, {"id": 2}), (3, None)], "id long, next struct<id:long>")
    jvm = encode(df, client, subject=subject, schema=LINKED, keep=["id"], columns=df.columns, engine="jvm")
    python = encode(df, client, subject=subject, schema=LINKED, keep=["id"], columns=df.columns, engine="python")
    jvm_rows = {r["id"]: bytes(r["value"]) for r in jvm.collect()}
    assert len(jvm_rows) == 2
    assert jvm_rows == {r["id"]: bytes(r["value"]) for r in python.collect()}
