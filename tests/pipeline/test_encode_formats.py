"""`encode` for JSON Schema and Protobuf: a writer derived from the DataFrame, given as text or
registered, rows written with the client's serializers pinned to it; what it writes `decode`
reads back to the same rows, and confluent-kafka's own deserializers read to the same records."""
from __future__ import annotations

import json
from datetime import datetime, timezone

import pytest
from confluent_kafka.schema_registry.json_schema import JSONDeserializer
from confluent_kafka.schema_registry.protobuf import ProtobufDeserializer, ProtobufSerializer
from format_samples import READING_V1, compile_proto, proto_reading
from support.interop import context

from app.client import IncompatibleSchema, RegistryClient, Schema
from app.pipeline import decode, encode

pytestmark = pytest.mark.parametrize("live_server", ["sqlite"], indirect=True)

COLUMNS = ("id long not null, score double, name string, ok boolean, at timestamp, tags array<string>, "
           "counts map<string,bigint>, place struct<city:string,zip:string>")


def rows(count: int) -> list[tuple]:
    return [(n, n / 4, None if n % 3 == 2 else f"r-{n}", n % 2 == 0,
             datetime(2026, 1, 2, 3, 4, n, 5000, tzinfo=timezone.utc), [f"t{i}" for i in range(n % 3)],
             {"a": n, "b": -n} if n % 2 else {}, None if n % 4 == 3 else (f"c{n}", str(4000 + n)))
            for n in range(count)]


@pytest.fixture(scope="module")
def table(spark):
    return spark.createDataFrame(rows(6), COLUMNS)


def as_dicts(frame, column: str) -> list[dict]:
    return [row[column].asDict(recursive=True) for row in frame.orderBy(f"{column}.id").collect()]


@pytest.mark.parametrize("schema_type", ["JSON", "PROTOBUF"])
def test_a_schema_derived_from_the_columns_round_trips_through_decode(spark, table, live_server, unique_subject,
                                                                      schema_type):
    client = RegistryClient(live_server)
    subject = unique_subject()
    framed = encode(table, client, subject=subject, schema_type=schema_type, record_name="Reading",
                    namespace="shop")
    written = client.get_version(subject, "latest").schema
    assert written.schema_type == schema_type
    back = decode(framed, "value", client, subject=subject, output="row")
    expected = [dict(zip(table.columns, row)) for row in table.orderBy("id").collect()]
    for record in expected:  # what each format gives back for what it cannot tell apart
        record["place"] = record["place"] and record["place"].asDict()
        if schema_type == "PROTOBUF":  # proto3 has no null repeated field or map
            record["tags"], record["counts"] = record["tags"] or [], record["counts"] or {}
    assert as_dicts(back, "row") == expected


def test_json_rows_are_what_confluents_deserializer_reads_and_validates(spark, table, live_server, confluent,
                                                                        unique_subject):
    topic = unique_subject("t")
    client = RegistryClient(live_server)
    framed = encode(table, client, subject=f"{topic}-value", schema_type="JSON").collect()
    derived = json.loads(client.get_version(f"{topic}-value", "latest").schema.text)
    assert derived["additionalProperties"] is False and derived["required"] == ["id"]
    assert derived["properties"]["name"] == {"oneOf": [{"type": "null"}, {"type": "string"}]}
    read = JSONDeserializer(None, schema_registry_client=confluent)
    records = sorted((read(row["value"], context(topic)) for row in framed), key=lambda record: record["id"])
    assert records[2]["name"] is None and records[1]["at"] == "2026-01-02T03:04:01.005000Z"
    assert records[1]["counts"] == {"a": 1, "b": -1} and records[3]["place"] is None
    assert [r["id"] for r in records] == list(range(6))


def test_a_json_schema_file_is_registered_and_a_row_it_forbids_stops_the_job_naming_the_row(
        spark, live_server, unique_subject):
    client = RegistryClient(live_server)
    subject = unique_subject()
    strict = {**READING_V1, "properties": {**READING_V1["properties"], "name": {"type": "string", "minLength": 3}}}
    df = spark.createDataFrame([(1, "abc"), (2, "x")], "id long, name string")
    framed = encode(df, client, subject=subject, schema=json.dumps(strict), schema_type="JSON", keep=["id"],
                    columns=["id", "name"])
    with pytest.raises(Exception, match=r"cannot encode the row with id=2: .*'x' is too short"):
        framed.collect()
    with pytest.raises(ValueError, match=r"columns without a property \['nope'\]"):
        encode(df.withColumnRenamed("name", "nope"), client, subject=subject, version=1, columns=["id", "nope"])


@pytest.fixture(scope="module")
def samples(tmp_path_factory):
    return compile_proto(tmp_path_factory.mktemp("pipeline-proto-encode"))


def test_protobuf_rows_with_a_registered_version_are_confluents_messages_again(spark, live_server, confluent, samples,
                                                                               unique_subject):
    """Records confluent-kafka wrote, decoded by the pipeline and encoded again with the same
    version and message (index 1 of the file), are the same messages to confluent-kafka."""
    topic = unique_subject("t")
    readings = [proto_reading(samples, n) for n in range(6)]
    serialize = ProtobufSerializer(samples.Reading, confluent)
    data = [serialize(message, context(topic)) for message in readings]
    source = spark.createDataFrame([(n, value) for n, value in enumerate(data)], "n long, value binary")
    client = RegistryClient(live_server)
    decoded = decode(source, "value", client, subject=f"{topic}-value", message="pipeline.samples.Reading")
    framed = encode(decoded.select("n", "value.*"), client, subject=f"{topic}-value", version=1, keep=["n"],
                    message="pipeline.samples.Reading").orderBy("n").collect()
    assert [row["value"][5:7] for row in framed] == [b"\x02\x02"] * 6  # message indexes [1]
    read = ProtobufDeserializer(samples.Reading, {"use.deprecated.format": False})
    assert [read(row["value"], context(topic)) for row in framed] == readings


def test_a_proto_file_that_breaks_compatibility_fails_with_the_registry_reasons(spark, table, live_server,
                                                                                unique_subject, tmp_path):
    client = RegistryClient(live_server)
    subject = unique_subject()
    encode(table.select("id", "name"), client, subject=subject, schema_type="PROTOBUF", record_name="Reading")
    assert "optional string name = 2;" in client.get_version(subject, 1).schema.text
    changed = 'syntax = "proto3";\nmessage Reading {\n  int64 id = 1;\n  int64 name = 2;\n}\n'
    with pytest.raises(IncompatibleSchema):
        encode(table.select("id", "name"), client, subject=subject, schema=Schema(changed, "PROTOBUF")) \
            .write.parquet(str(tmp_path / "o"))
    assert not (tmp_path / "o").exists() and client.get_versions(subject) == [1]
