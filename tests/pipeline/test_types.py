"""Avro -> Spark types as Spark's own Avro reader maps them, and every logical type's values
decoded on Spark equal to fastavro's own, value for value."""
from __future__ import annotations

import json
import uuid
from datetime import date, datetime, time, timezone
from decimal import Decimal

import pytest
from pyspark.sql import types as T
from samples import EVERYTHING

from app.client import AvroDeserializer, AvroSerializer, RegistryClient
from app.pipeline import UnsupportedAvroType, avro_to_spark, decode

pytestmark = pytest.mark.parametrize("live_server", ["sqlite"], indirect=True)


def test_type_table(live_server):
    shape = avro_to_spark(EVERYTHING).data_type
    types = {field.name: (field.dataType, field.nullable) for field in shape.fields}
    inner = T.StructType([T.StructField("x", T.IntegerType(), False)])
    assert types == {
        "flag": (T.BooleanType(), False), "small": (T.IntegerType(), False), "big": (T.LongType(), False),
        "ratio": (T.FloatType(), False), "precise": (T.DoubleType(), False), "text": (T.StringType(), False),
        "blob": (T.BinaryType(), False), "digest": (T.BinaryType(), False), "colour": (T.StringType(), False),
        "items": (T.ArrayType(T.IntegerType(), False), False),
        "attrs": (T.MapType(T.StringType(), T.LongType(), True), False),
        "inner": (inner, False), "maybe": (T.StringType(), True),
        "either": (T.StructType([T.StructField("member0", T.IntegerType(), True),
                                 T.StructField("member1", T.StringType(), True)]), True),
        "day": (T.DateType(), False), "at_ms": (T.TimestampType(), False), "at_us": (T.TimestampType(), False),
        "local_ms": (T.TimestampNTZType(), False), "local_us": (T.TimestampNTZType(), False),
        "amount": (T.DecimalType(10, 2), False), "fixed_amount": (T.DecimalType(12, 3), False),
        "uid": (T.StringType(), False), "clock_ms": (T.IntegerType(), False), "clock_us": (T.LongType(), False),
        "again": (inner, False),
    }


def test_recursive_types_are_refused_with_a_clear_error(live_server):
    linked = json.dumps({"type": "record", "name": "Node", "fields": [
        {"name": "value", "type": "int"}, {"name": "next", "type": ["null", "Node"], "default": None}]})
    with pytest.raises(UnsupportedAvroType, match="recursive type Node"):
        avro_to_spark(linked)


def everything(n: int) -> dict:
    return {
        "flag": n % 2 == 0, "small": -n, "big": 2**40 + n, "ratio": 0.5 * n, "precise": n / 3, "text": f"é{n}",
        "blob": bytes([n, 0, 255]), "digest": b"\x01\x02\x03" + bytes([n]), "colour": ["RED", "GREEN"][n % 2],
        "items": list(range(n % 4)), "attrs": {"a": n, "b": None}, "inner": {"x": n},
        "maybe": None if n % 2 else f"m{n}", "either": [None, n, f"s{n}"][n % 3],
        "day": date(2026, 1, 1 + n), "at_ms": datetime(2026, 3, 1, 12, 0, n, 123000, tzinfo=timezone.utc),
        "at_us": datetime(2026, 3, 1, 12, 0, n, 123456, tzinfo=timezone.utc),
        "local_ms": datetime(2026, 3, 1, 8, 0, n, 5000), "local_us": datetime(2026, 3, 1, 8, 0, n, 5),
        "amount": Decimal(f"{n}.25"), "fixed_amount": Decimal(f"-{n}.125"), "uid": uuid.UUID(int=n + 1),
        "clock_ms": time(23, 59, n, 125000), "clock_us": time(0, 0, n, 654321), "again": {"x": -n},
    }


def test_every_logical_type_and_union_decodes_as_fastavro_does(engine, spark, live_server, unique_subject):
    client = RegistryClient(live_server)
    subject = unique_subject()
    serialize = AvroSerializer(client, EVERYTHING, subject=subject)
    values = [serialize(everything(n)) for n in range(6)]
    df = spark.createDataFrame([(i, v) for i, v in enumerate(values)], "n int, value binary")
    rows = decode(df, "value", client, subject=subject, engine=engine).orderBy("n").collect()
    plain = AvroDeserializer(RegistryClient(live_server))
    for row, data in zip(rows, values):
        got = row["value"].asDict(recursive=True)
        want = plain(data)
        either = got.pop("either")
        assert either == (None if want["either"] is None else {
            "member0": want["either"] if isinstance(want["either"], int) else None,
            "member1": want["either"] if isinstance(want["either"], str) else None})
        want.pop("either")
        want["uid"] = str(want["uid"])
        # Times of day stay counts since midnight, as Spark's Avro reader keeps them.
        clock_ms, clock_us = want.pop("clock_ms"), want.pop("clock_us")
        assert got.pop("clock_ms") == ((clock_ms.hour * 60 + clock_ms.minute) * 60 + clock_ms.second) * 1000 \
            + clock_ms.microsecond // 1000
        assert got.pop("clock_us") == clock_us.second * 1_000_000 + clock_us.microsecond
        got["at_ms"] = got["at_ms"].replace(tzinfo=timezone.utc)  # Spark returns session-local naive times
        got["at_us"] = got["at_us"].replace(tzinfo=timezone.utc)
        assert got == want
