"""Protobuf records written by confluent-kafka's own `ProtobufSerializer`, decoded by the
pipeline: two messages of one file (the second has message index 1), nested, repeated, map,
enum, Timestamp and wrapper fields compared value by value; projection onto a later version;
bad frames and payloads routed; a recursive message refused naming its field."""
from __future__ import annotations

from datetime import datetime, timedelta
from decimal import Decimal

import pytest
from confluent_kafka.schema_registry.protobuf import ProtobufSerializer
from format_samples import PROTO_V2, RECURSIVE_PROTO, compile_proto, proto_reading
from pyspark.sql import types as T
from support.interop import context

from app.client import RegistryClient, Schema
from app.pipeline import decode
from app.pipeline.formats import UnsupportedSchemaType

pytestmark = pytest.mark.parametrize("live_server", ["sqlite"], indirect=True)


@pytest.fixture(scope="module")
def samples(tmp_path_factory):
    return compile_proto(tmp_path_factory.mktemp("pipeline-proto"))


def written(confluent, topic: str, messages: list) -> list[bytes]:
    serializers = {}
    out = []
    for message in messages:
        kind = type(message)
        if kind not in serializers:
            serializers[kind] = ProtobufSerializer(kind, confluent)
        out.append(serializers[kind](message, context(topic)))
    return out


def frame(spark, values: list[bytes | None]):
    rows = [(b"k", value, "readings", 0, offset) for offset, value in enumerate(values)]
    return spark.createDataFrame(rows, "key binary, value binary, topic string, partition int, offset long")


def expected(message, *, unit: bool = False) -> dict:
    """The struct a Reading becomes, built from the message by hand."""
    def sensor(found):
        return {"name": found.name, "position": {"lat": found.position.lat, "lon": found.position.lon}
                if found.HasField("position") else None}

    out = {
        "small": message.small, "big": message.big, "u32": message.u32, "u64": Decimal(message.u64),
        "f64": Decimal(message.f64), "s32": message.s32, "ratio": message.ratio, "ok": message.ok,
        "label": message.label, "raw": bytearray(message.raw),
        "kind": type(message).Kind.Name(message.kind),
        "sensor": sensor(message.sensor) if message.HasField("sensor") else None,
        "counts": list(message.counts), "sensors": [sensor(s) for s in message.sensors],
        "totals": dict(message.totals),
        # Spark hands timestamps back naive, in this process's local time
        "taken_at": datetime.fromtimestamp(message.taken_at.seconds)
        + timedelta(microseconds=message.taken_at.nanos // 1000),
        "maybe": message.maybe.value if message.HasField("maybe") else None,
        "note": message.note if message.HasField("note") else None,
    }
    if unit:
        out.update(unit="", extra=[])
    return out


def test_confluent_protobuf_records_of_two_messages_decode_value_by_value(spark, live_server, confluent, samples,
                                                                          unique_subject):
    topic = unique_subject("t")
    readings = [proto_reading(samples, n) for n in range(8)]
    data = written(confluent, topic, [*readings, samples.Heartbeat(at=5)])
    assert data[0][5:7] == b"\x02\x02" and data[8][5:6] == b"\x00"  # message indexes [1] and [0]
    df = frame(spark, data + [None])
    registry = RegistryClient(live_server)
    decoded = decode(df, "value", registry, subject=f"{topic}-value", message="pipeline.samples.Reading",
                     on_error="route")
    struct = decoded.schema["value"].dataType
    assert [struct[name].dataType for name in ("small", "big", "u32", "u64", "f64", "s32", "raw", "kind")] == [
        T.IntegerType(), T.LongType(), T.LongType(), T.DecimalType(20, 0), T.DecimalType(20, 0), T.IntegerType(),
        T.BinaryType(), T.StringType()]
    assert struct["counts"].dataType == T.ArrayType(T.IntegerType(), False)
    assert struct["totals"].dataType == T.MapType(T.StringType(), T.LongType(), True)
    assert struct["taken_at"].dataType == T.TimestampType() and struct["maybe"].dataType == T.LongType()
    assert struct["sensor"].dataType["position"].dataType.names == ["lat", "lon"]
    rows = decoded.orderBy("offset").collect()
    assert [row["value"].asDict(recursive=True) for row in rows[:8]] == [expected(m) for m in readings]
    assert rows[0]["value"]["counts"] == [] and rows[0]["value"]["totals"] == {}  # empty, not null
    assert rows[8]["value"] is None and "is a pipeline.samples.Heartbeat" in rows[8]["value_error"]
    assert rows[9]["value"] is None and rows[9]["value_error"] is None

    first = decode(df.where("offset = 8"), "value", registry, subject=f"{topic}-value")  # the file's first message
    assert first.collect()[0]["value"].asDict() == {"at": 5}


def test_records_of_an_earlier_version_read_added_fields_as_proto3_defaults(spark, live_server, confluent, samples,
                                                                            unique_subject):
    topic = unique_subject("t")
    readings = [proto_reading(samples, n) for n in range(3)]
    df = frame(spark, written(confluent, topic, readings))
    registry = RegistryClient(live_server)
    registry.register(f"{topic}-value", Schema(PROTO_V2, "PROTOBUF"))
    rows = decode(df, "value", registry, subject=f"{topic}-value", message="pipeline.samples.Reading") \
        .orderBy("offset").collect()
    assert [row["value"].asDict(recursive=True) for row in rows] == [expected(m, unit=True) for m in readings]
    seen = decode(df, "value", registry, subject=f"{topic}-value", reader="latest-seen",
                  message="pipeline.samples.Reading")
    assert "unit" not in seen.schema["value"].dataType.names


def test_bad_protobuf_frames_and_payloads_are_routed_with_their_cause(spark, live_server, confluent, samples,
                                                                     unique_subject):
    topic = unique_subject("t")
    good = written(confluent, topic, [proto_reading(samples, 3)])[0]
    values = [
        good,
        b"\x01" + good[1:],                   # unknown magic byte
        b"\x00\x7f\xff\xff\xf0" + good[5:],  # an id the registry never gave
        good[:5] + b"\x02\x0a" + good[7:],    # message index 5 of a file of two
        good[:7] + b"\x0a\xff\x01",           # a length running past the end
        good[:5],                             # no message-index block
    ]
    rows = decode(frame(spark, values), "value", RegistryClient(live_server), subject=f"{topic}-value",
                  message="pipeline.samples.Reading", on_error="route").orderBy("offset").collect()
    reasons = [row["value_error"] for row in rows]
    assert reasons[0] is None and rows[0]["value"]["small"] == -3
    assert "magic byte" in reasons[1] and "SchemaNotFound" in reasons[2]
    assert "out of range" in reasons[3] and "cannot decode" in reasons[4] and "cut short" in reasons[5]
    assert all(row["value"] is None for row in rows[1:])


def test_a_recursive_message_is_refused_naming_its_field(spark, live_server, unique_subject):
    registry = RegistryClient(live_server)
    subject = unique_subject()
    registry.register(subject, Schema(RECURSIVE_PROTO, "PROTOBUF"))
    df = frame(spark, [None])
    with pytest.raises(UnsupportedSchemaType, match=r"field Tree\.root\.children is of the recursive message "
                                                    r"pipeline\.samples\.tree\.Node"):
        decode(df, "value", registry, subject=subject)
