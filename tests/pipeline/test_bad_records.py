"""Bad records never vanish: `fail` stops the job naming where the record came from, `route`
keeps every input row exactly once with the reason beside a null struct."""
from __future__ import annotations

import pytest
from pyspark.errors import PySparkException
from samples import EVENT_V1, event

from app.client import AvroSerializer, RegistryClient
from app.pipeline import decode

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
