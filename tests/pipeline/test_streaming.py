"""The same `decode` on a Structured Streaming query over a folder of Parquet topic dumps, on both
decoder paths: on the JVM path the executors find the stream's writers in the registry
themselves, so a writer registered after the query started decodes in a later micro-batch, an
unknown one is the record's error word for word as on the Python path, and each writer costs
one request per executor JVM, carrying the client's Authorization header."""
from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest
from pyspark.errors import StreamingQueryException
from samples import EVENT_V1, EVENT_V2, event
from support.postgres import free_port

from app.client import (CONFLUENT, SINGLE_OBJECT, AvroSerializer, RegistryClient, Schema, SchemaNotFound,
                        SchemaReference)
from app.pipeline import decode, decode_with_schema

KAFKA_COLUMNS = "key binary, value binary, topic string, partition int, offset long"
live_sqlite = pytest.mark.parametrize("live_server", ["sqlite"], indirect=True)


def drop(spark, folder: Path, values: list[bytes], first_offset: int) -> None:
    """One Parquet topic dump of `values` in `folder`, as a stream's source sees a new file."""
    rows = [(f"k{first_offset + i}".encode(), value, "events", 0, first_offset + i) for i, value in enumerate(values)]
    spark.createDataFrame(rows, KAFKA_COLUMNS).coalesce(1).write.parquet(str(folder))


def stream_of(spark, dumps: Path):
    return spark.readStream.schema(KAFKA_COLUMNS).option("recursiveFileLookup", "true").parquet(str(dumps))


def memory_query(decoded, name: str, checkpoint: Path):
    return (decoded.writeStream.format("memory").queryName(name).outputMode("append")
            .option("checkpointLocation", str(checkpoint)).start())


def everything_decoded(decoded, name: str, checkpoint: Path) -> list:
    """The rows a query over what the stream holds now wrote, by offset."""
    query = memory_query(decoded, name, checkpoint)
    try:
        query.processAllAvailable()
    finally:
        query.stop()
    return decoded.sparkSession.sql(f"select * from {name} order by offset").collect()


@live_sqlite
def test_streaming_query_over_a_folder_of_dumps_projects_every_record(engine, spark, live_server, unique_subject,
                                                                      tmp_path):
    client = RegistryClient(live_server)
    subject = unique_subject()
    v1 = AvroSerializer(client, EVENT_V1, subject=subject)
    v2 = AvroSerializer(client, EVENT_V2, subject=subject)
    dumps = tmp_path / "dumps"
    for part, pattern in enumerate(([1, 1, 2], [1, 2, 2])):
        drop(spark, dumps / f"part-{part}", [(v1 if version == 1 else v2)(event(version, part * 10 + i))
                                             for i, version in enumerate(pattern)], part * 10)

    decoded = decode(stream_of(spark, dumps), "value", client, subject=subject, reader="latest", engine=engine)
    assert decoded.isStreaming
    name = f"decoded_events_{engine}"
    query = (decoded.writeStream.format("memory").queryName(name).outputMode("append")
             .option("checkpointLocation", str(tmp_path / "checkpoint")).trigger(availableNow=True).start())
    query.awaitTermination(120)
    out = spark.sql(f"select * from {name} order by offset").collect()
    assert [row["offset"] for row in out] == [0, 1, 2, 10, 11, 12]
    assert out[0]["value"].asDict() == {**event(1, 0), "email": None, "score": 1.5}
    assert out[2]["value"].asDict() == event(2, 2)


@live_sqlite
def test_a_writer_registered_after_the_query_started_decodes_in_a_later_micro_batch(
        engine, spark, live_server, unique_subject, tmp_path):
    client = RegistryClient(live_server)
    subject = unique_subject()
    v1 = AvroSerializer(client, EVENT_V1, subject=subject)
    dumps = tmp_path / "dumps"
    drop(spark, dumps / "part-0", [v1(event(1, n)) for n in range(3)], 0)
    decoded = decode(stream_of(spark, dumps), "value", client, subject=subject, reader="latest",
                     on_error="route", engine=engine)
    name = f"late_writer_{engine}"
    query = memory_query(decoded, name, tmp_path / "checkpoint")
    try:
        query.processAllAvailable()
        # Registered only now: no plan made before the query started can name it.
        v2 = AvroSerializer(client, EVENT_V2, subject=subject)
        drop(spark, dumps / "part-1", [v2(event(2, n)) for n in range(10, 13)], 10)
        query.processAllAvailable()
    finally:
        query.stop()
    assert sum(1 for progress in query.recentProgress if progress["numInputRows"] > 0) == 2
    out = spark.sql(f"select * from {name} order by offset").collect()
    assert [row["value_error"] for row in out] == [None] * 6
    # Read as the reader of the query's start (v1): v2's added fields are dropped.
    assert [row["value"].asDict() for row in out] == [event(1, n) for n in (0, 1, 2, 10, 11, 12)]


@live_sqlite
@pytest.mark.parametrize("framing", ["confluent", "single-object"])
def test_a_writer_the_registry_does_not_know_is_the_records_error_as_on_the_python_path(
        engine, framing, spark, live_server, unique_subject, tmp_path):
    client = RegistryClient(live_server)
    subject = unique_subject()
    chosen = SINGLE_OBJECT if framing == "single-object" else CONFLUENT
    known = AvroSerializer(client, EVENT_V1, subject=subject, framing=chosen)
    stranger = b"\x00\x7f\xff\xff\xf0" if framing == "confluent" else b"\xc3\x01" + bytes(range(8))
    with pytest.raises(SchemaNotFound) as refused:  # as the Python client words the registry's answer
        chosen.find_writer(chosen.writer_key(stranger), client, None)
    expected = f"SchemaNotFound: {refused.value}"
    dumps = tmp_path / "dumps"
    drop(spark, dumps / "part-0", [known(event(1, 0)), stranger + b"\x02\x04", known(event(1, 2))], 0)
    decoded = decode(stream_of(spark, dumps), "value", client, subject=subject, reader="latest",
                     on_error="route", framing=chosen, engine=engine)
    out = everything_decoded(decoded, f"unknown_writer_{engine}_{framing.replace('-', '_')}", tmp_path / "checkpoint")
    assert [row["value_error"] for row in out] == [None, expected, None]
    assert [row["value"] and row["value"].asDict() for row in out] == [event(1, 0), None, event(1, 2)]


@pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)
def test_executors_fetch_each_stream_writer_once_with_the_clients_authorization(
        spark, counting_registry, unique_subject, tmp_path):
    subject = unique_subject()
    producer = RegistryClient(counting_registry.url)
    v1 = AvroSerializer(producer, EVENT_V1, subject=subject)
    v2 = AvroSerializer(producer, EVENT_V2, subject=subject)
    dumps = tmp_path / "dumps"
    for part in range(4):  # four files, so the micro-batch runs as several tasks
        drop(spark, dumps / f"part-{part}", [(v1 if n % 2 else v2)(event(2 - n % 2, part * 10 + n))
                                             for n in range(6)], part * 10)
    ids = {producer.lookup(subject, EVENT_V1).schema_id, producer.lookup(subject, EVENT_V2).schema_id}
    # The server checks no credentials; the header only has to arrive.
    reader = RegistryClient(counting_registry.url, bearer_token="pipeline-t0ken")
    decoded = decode(stream_of(spark, dumps).repartition(4), "value", reader, subject=subject, reader=1,
                     engine="jvm")
    assert len(everything_decoded(decoded, "fetched_once", tmp_path / "checkpoint")) == 24
    fetches = Counter(target for method, target in counting_registry.requests if target.startswith("/schemas/ids/"))
    # local[2] is one executor JVM: one request per writer, whichever task met it first.
    assert fetches == Counter({f"/schemas/ids/{schema_id}": 1 for schema_id in ids})
    assert counting_registry.authorizations_of("/schemas/ids/") == ["Bearer pipeline-t0ken"] * len(ids)


@live_sqlite
def test_latest_seen_is_refused_on_a_stream(spark, live_server, unique_subject, tmp_path):
    client = RegistryClient(live_server)
    stream = spark.readStream.schema("value binary").parquet(str(tmp_path))
    with pytest.raises(ValueError, match="streaming"):
        decode(stream, "value", client, subject=unique_subject(), reader="latest-seen")


def test_an_unreachable_registry_fails_the_stream_rather_than_its_records(engine, spark, tmp_path):
    dumps = tmp_path / "dumps"
    drop(spark, dumps / "part-0", [b"\x00\x00\x00\x00\x01\x02\x04"], 0)
    nowhere = RegistryClient(f"http://127.0.0.1:{free_port()}", retries=0, timeout=2)
    decoded = decode_with_schema(stream_of(spark, dumps), "value", nowhere, EVENT_V1, on_error="route",
                                 engine=engine)
    query = memory_query(decoded, f"unreachable_{engine}", tmp_path / "checkpoint")
    try:
        with pytest.raises(StreamingQueryException, match="RegistryUnavailable"):
            query.processAllAvailable()
    finally:
        query.stop()


@live_sqlite
def test_a_registry_reply_longer_than_the_clients_bound_fails_the_stream(engine, spark, live_server, unique_subject,
                                                                         tmp_path):
    """The executors read a writer's reply up to the client's `max_reply_bytes`, as the client
    does: a longer one is refused as an unreachable peer is, never read whole."""
    client = RegistryClient(live_server)
    dumps = tmp_path / "dumps"
    drop(spark, dumps / "part-0", [AvroSerializer(client, EVENT_V1, subject=unique_subject())(event(1, 0))], 0)
    bounded = RegistryClient(live_server, retries=0, max_reply_bytes=64)  # less than the writer's schema
    decoded = decode_with_schema(stream_of(spark, dumps), "value", bounded, EVENT_V1, on_error="route",
                                 engine=engine)
    query = memory_query(decoded, f"bounded_{engine}", tmp_path / "checkpoint")
    try:
        with pytest.raises(StreamingQueryException, match="(more|longer) than 64 bytes"):
            query.processAllAvailable()
    finally:
        query.stop()


@live_sqlite
def test_a_stream_writer_with_references_decodes_with_them_fetched_first(engine, spark, live_server, unique_subject,
                                                                          tmp_path):
    client = RegistryClient(live_server)
    address = {"type": "record", "name": "Address", "namespace": "shop", "fields": [{"name": "city", "type": "string"}]}
    address_subject = unique_subject("address")
    client.register(address_subject, json.dumps(address))
    order = {"type": "record", "name": "Order", "namespace": "shop",
             "fields": [{"name": "id", "type": "long"}, {"name": "to", "type": "shop.Address"}]}
    writer = Schema(json.dumps(order), references=(SchemaReference("shop.Address", address_subject, 1),))
    serialize = AvroSerializer(client, writer, subject=unique_subject())
    dumps = tmp_path / "dumps"
    drop(spark, dumps / "part-0", [serialize({"id": n, "to": {"city": f"c{n}"}}) for n in range(3)], 0)
    inline = json.dumps({**order, "fields": [order["fields"][0], {"name": "to", "type": address}]})
    decoded = decode_with_schema(stream_of(spark, dumps), "value", client, inline, engine=engine)
    out = everything_decoded(decoded, f"referenced_{engine}", tmp_path / "checkpoint")
    assert [row["value"].asDict(recursive=True) for row in out] == [{"id": n, "to": {"city": f"c{n}"}}
                                                                    for n in range(3)]


@live_sqlite
def test_a_protobuf_stream_decodes_as_the_message_named_and_routes_bad_records(spark, live_server, unique_subject,
                                                                               tmp_path):
    from confluent_kafka.schema_registry import SchemaRegistryClient
    from confluent_kafka.schema_registry.protobuf import ProtobufSerializer
    from format_samples import compile_proto, proto_reading
    from support.interop import context

    samples = compile_proto(tmp_path / "proto")
    topic = unique_subject("t")
    confluent = SchemaRegistryClient({"url": live_server})
    serialize = ProtobufSerializer(samples.Reading, confluent)
    written = [serialize(proto_reading(samples, n), context(topic)) for n in range(6)]
    confluent.close()
    dumps = tmp_path / "dumps"
    drop(spark, dumps / "part-0", written[:3], 0)
    drop(spark, dumps / "part-1", [*written[3:], b"\x00\x00\x00"], 10)
    client = RegistryClient(live_server)
    options = dict(subject=f"{topic}-value", message="pipeline.samples.Reading", on_error="route")
    decoded = decode(stream_of(spark, dumps), "value", client, **options)
    assert decoded.isStreaming
    out = everything_decoded(decoded, "decoded_protobuf_readings", tmp_path / "checkpoint")
    batch = decode(spark.read.parquet(str(dumps / "part-0"), str(dumps / "part-1")), "value", client, **options) \
        .orderBy("offset").collect()
    assert [row["offset"] for row in out] == [0, 1, 2, 10, 11, 12, 13]
    assert [row.asDict(recursive=True) for row in out] == [row.asDict(recursive=True) for row in batch]
    assert [row["value"]["small"] for row in out[:6]] == [0, -1, -2, -3, -4, -5]
    assert out[6]["value"] is None and out[6]["value_error"]
