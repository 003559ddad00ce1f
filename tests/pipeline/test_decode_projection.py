"""Seed 004's rolling upgrade: versions 1,1,2,1,2,2 interleaved in one topic, decoded on a real
Spark session against a live registry and projected onto one reader schema per mode."""
from __future__ import annotations

import uuid
from collections.abc import Callable

import pytest
from samples import EVENT_V1, EVENT_V2, EVENT_V3, event

from app.client import AvroDeserializer, AvroSerializer, LookupOnly, RegistryClient
from app.pipeline import decode, decode_by_writer, writer_ids
from app.pipeline.decode import writer_headers

PATTERN = [1, 1, 2, 1, 2, 2]


def kafka_rows(serializers: dict[int, AvroSerializer], pattern: list[int], topic: str) -> list[tuple]:
    """Rows in the shape of Spark's Kafka source: key, value, topic, partition, offset, timestamp."""
    from datetime import datetime, timezone
    rows = []
    for offset, version in enumerate(pattern):
        value = serializers[version](event(version, offset))
        rows.append((str(offset).encode(), value, topic, offset % 2, offset,
                     datetime(2026, 1, 1, tzinfo=timezone.utc)))
    return rows


KAFKA_COLUMNS = "key binary, value binary, topic string, partition int, offset long, timestamp timestamp"


@pytest.fixture
def evolving(live_server, unique_subject):
    """A subject with versions 1 and 2 registered (3 is registered by the tests that need it)."""
    client = RegistryClient(live_server)
    subject = unique_subject()
    serializers = {}
    for version, text in ((1, EVENT_V1), (2, EVENT_V2)):
        client.register(subject, text)
        serializers[version] = AvroSerializer(client, text, subject=subject, writer=LookupOnly())
    return client, subject, serializers


def test_interleaved_versions_project_onto_latest_with_defaults(engine, spark, evolving):
    client, subject, serializers = evolving
    rows = kafka_rows(serializers, PATTERN * 5, "events")
    df = spark.createDataFrame(rows, KAFKA_COLUMNS)
    out = decode(df, "value", client, subject=subject, reader="latest", engine=engine).orderBy("offset").collect()
    assert len(out) == len(rows)
    assert out[0]["topic"] == "events" and out[0]["key"] == b"0"
    for row, version in zip(out, PATTERN * 5):
        expected = {"email": None, "score": 1.5, **event(version, row["offset"])}
        assert row["value"].asDict() == expected
    # Independent decoder: fastavro through app.client in a plain loop gives the same values.
    plain = AvroDeserializer(RegistryClient(client.urls), reader=EVENT_V2)
    assert [row["value"].asDict() for row in out] == [plain(r[1]) for r in rows]


def test_reader_version_number_drops_the_newer_fields(engine, spark, evolving):
    client, subject, serializers = evolving
    df = spark.createDataFrame(kafka_rows(serializers, PATTERN, "events"), KAFKA_COLUMNS)
    out = decode(df, "value", client, subject=subject, reader=1, output="event", engine=engine) \
        .orderBy("offset").collect()
    assert [row["event"].asDict() for row in out] == [event(1, n) for n in range(len(PATTERN))]
    assert out[0]["value"] is not None  # the framed bytes are kept when the output is another column


def test_latest_seen_uses_the_newest_version_in_the_data_not_the_registry(engine, spark, evolving):
    client, subject, serializers = evolving
    client.register(subject, EVENT_V3)  # registered, but no record uses it yet
    df = spark.createDataFrame(kafka_rows(serializers, PATTERN, "events"), KAFKA_COLUMNS)
    rows = kafka_rows(serializers, PATTERN, "events")
    seen = decode(df, "value", client, subject=subject, reader="latest-seen", engine=engine)
    latest = decode(df, "value", client, subject=subject, reader="latest", engine=engine)
    assert seen.schema["value"].dataType.fieldNames() == ["id", "name", "email", "score"]
    assert latest.schema["value"].dataType.fieldNames() == ["id", "name", "email", "score", "tags"]
    plain = AvroDeserializer(RegistryClient(client.urls), reader=EVENT_V2)
    assert [row["value"].asDict() for row in seen.orderBy("offset").collect()] == [plain(r[1]) for r in rows]
    # Data written only with version 1 is read as version 1: no column the data never had.
    only_v1 = decode(df.where("offset in (0, 1, 3)"), "value", client, subject=subject, reader="latest-seen",
                     engine=engine)
    assert only_v1.schema["value"].dataType.fieldNames() == ["id", "name"]


def test_writer_mode_gives_one_frame_per_writer_schema_in_its_own_shape(engine, spark, evolving):
    client, _, serializers = evolving
    df = spark.createDataFrame(kafka_rows(serializers, PATTERN, "events"), KAFKA_COLUMNS)
    ids = writer_ids(df, "value")
    frames = decode_by_writer(df, "value", client, engine=engine)
    assert sorted(frames) == ids and len(ids) == 2
    shapes = {schema_id: frame.schema["value"].dataType.fieldNames() for schema_id, frame in frames.items()}
    assert sorted(shapes.values(), key=len) == [["id", "name"], ["id", "name", "email", "score"]]
    # Each record exactly as its own writer wrote it, against fastavro with no reader schema.
    plain = AvroDeserializer(RegistryClient(client.urls))
    written = {offset: plain(value) for _, value, _, _, offset, _ in kafka_rows(serializers, PATTERN, "events")}
    decoded = {row["offset"]: row["value"].asDict() for frame in frames.values() for row in frame.collect()}
    assert decoded == written


def test_parquet_topic_dump_decodes_like_the_kafka_source(engine, spark, evolving, tmp_path):
    client, subject, serializers = evolving
    df = spark.createDataFrame(kafka_rows(serializers, PATTERN, "events"), KAFKA_COLUMNS)
    df.write.parquet(str(tmp_path / "dump"))
    dumped = spark.read.parquet(str(tmp_path / "dump"))
    out = decode(dumped, "value", client, subject=subject, engine=engine).orderBy("offset").collect()
    assert [row["value"]["name"] for row in out] == [f"user-{n}" for n in range(len(PATTERN))]


def spark_jobs(spark, work: Callable[[], object]) -> int:
    """How many Spark jobs `work` ran from this thread."""
    context = spark.sparkContext
    group = f"counted-{uuid.uuid4().hex}"
    context.setJobGroup(group, "counted by a test")
    try:
        work()
    finally:
        context.setLocalProperty("spark.jobGroup.id", None)
    return len(context.statusTracker().getJobIdsForGroup(group))


def test_the_jvm_path_plans_latest_seen_and_writer_mode_from_one_read_of_the_headers(spark, decoder_jar,
                                                                                    evolving):
    from app.pipeline.engine import choose_engine

    client, subject, serializers = evolving
    choose_engine(spark, "jvm")  # the jar loaded before counting
    df = spark.createDataFrame(kafka_rows(serializers, PATTERN, "events"), KAFKA_COLUMNS)
    one_read = spark_jobs(spark, lambda: writer_headers(df, "value"))
    assert one_read >= 1
    assert spark_jobs(spark, lambda: decode_by_writer(df, "value", client, engine="jvm")) == one_read
    assert spark_jobs(spark, lambda: decode(df, "value", client, subject=subject, reader="latest-seen",
                                            engine="jvm")) == one_read
