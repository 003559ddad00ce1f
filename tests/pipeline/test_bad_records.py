"""Bad records never vanish: `fail` stops the job naming where the record came from, `route`
keeps every input row exactly once with the reason beside a null struct."""
from __future__ import annotations

import importlib
import json

import pytest
from pyspark.errors import PySparkException
from samples import EVENT_V1, event

from app.client import AvroSerializer, RegistryClient
from app.pipeline import decode, decode_with_schema

pytestmark = pytest.mark.parametrize("live_server", ["sqlite"], indirect=True)


@pytest.fixture
def mixed(spark, live_server, unique_subject):
    client = RegistryClient(live_server)
    subject = unique_subject()
    good = AvroSerializer(client, EVENT_V1, subject=subject)(event(1, 7))
    values = [
        good,
        b"\x01" + good[1:],                       # unknown magic byte
        b"\x00\x7f\xff\xff\xf0" + good[5:],      # an id the registry never gave
        good[:6],                                 # truncated payload
        b"\x00",                                  # too short for a header
        None,                                     # a tombstone: null in, null out, no error
        good,
    ]
    rows = [(b"k", value, "orders", 3, offset) for offset, value in enumerate(values)]
    df = spark.createDataFrame(rows, "key binary, value binary, topic string, partition int, offset long")
    return client, subject, df


def test_fail_mode_stops_the_job_and_names_topic_partition_offset(engine, mixed):
    client, subject, df = mixed
    only_bad_magic = df.where("offset in (0, 1, 6)")
    # The Python path's worker raises BadRecord; the JVM path's plan raises Spark's raise_error.
    with pytest.raises(PySparkException, match=r"topic=orders, partition=3, offset=1: .*magic byte"):
        decode(only_bad_magic, "value", client, subject=subject, engine=engine).collect()


def test_route_mode_keeps_every_row_once_with_its_reason(engine, mixed):
    client, subject, df = mixed
    out = decode(df, "value", client, subject=subject, on_error="route", engine=engine).orderBy("offset").collect()
    assert [row["offset"] for row in out] == list(range(7))
    reasons = [row["value_error"] for row in out]
    assert reasons[0] is None and reasons[5] is None and reasons[6] is None
    assert "magic byte" in reasons[1]
    assert "SchemaNotFound" in reasons[2] or "40403" in reasons[2]
    assert "cannot decode" in reasons[3] and "too short" in reasons[4]
    assert out[0]["value"].asDict() == event(1, 7) and out[5]["value"] is None
    assert all(out[i]["value"] is None for i in (1, 2, 3, 4))


def test_a_writer_union_member_the_reader_lacks_fails_only_its_own_records(engine, spark, live_server,
                                                                          unique_subject):
    client = RegistryClient(live_server)
    writer = json.dumps({"type": "record", "name": "U", "fields": [
        {"name": "u", "type": ["int", "string", "boolean"]}]})
    reader = json.dumps({"type": "record", "name": "U", "fields": [{"name": "u", "type": ["int", "string"]}]})
    serialize = AvroSerializer(client, writer, subject=unique_subject())
    rows = [(n, serialize({"u": value})) for n, value in enumerate([7, "seven", True, 8])]
    df = spark.createDataFrame(rows, "offset long, value binary")
    out = decode_with_schema(df, "value", client, reader, on_error="route", engine=engine).orderBy("offset").collect()
    assert [row["value"] and row["value"].asDict(recursive=True) for row in out] == [
        {"u": {"member0": 7, "member1": None}}, {"u": {"member0": None, "member1": "seven"}}, None,
        {"u": {"member0": 8, "member1": None}}]
    assert [row["value_error"] is None for row in out] == [True, True, False, True]


def test_past_the_planned_header_cap_the_executors_look_writers_up_with_the_same_reasons(
        spark, mixed, monkeypatch: pytest.MonkeyPatch):
    """Data with more distinct headers than the driver plans (damaged, or made to look framed)
    decodes on the JVM path all the same: the executors ask the registry, as on a stream."""
    decode_module = importlib.import_module("app.pipeline.decode")  # the package's `decode` is the function
    client, subject, df = mixed
    planned = decode(df, "value", client, subject=subject, on_error="route", engine="jvm").orderBy("offset").collect()
    monkeypatch.setattr(decode_module, "MAX_PLANNED_HEADERS", 1)  # `mixed` holds two framed headers
    assert decode_module.planned_headers(df, "value", decode_module.CONFLUENT) is None
    looked_up = decode(df, "value", client, subject=subject, on_error="route", engine="jvm").orderBy("offset").collect()
    assert [row.asDict(recursive=True) for row in looked_up] == [row.asDict(recursive=True) for row in planned]
