"""JSON Schema records written by confluent-kafka's own `JSONSerializer`, decoded by the pipeline:
value by value in the mapped Spark types, validated against their writer as Confluent's
deserializer validates, projected onto the reader version, bad ones routed or stopping the job."""
from __future__ import annotations

import json
from datetime import datetime

import pytest
from confluent_kafka.schema_registry.json_schema import JSONSerializer
from format_samples import READING_V1, READING_V2, reading
from pyspark.errors import PySparkException
from pyspark.sql import types as T
from support.interop import context

from app.client import RegistryClient
from app.pipeline import decode
from app.pipeline.jvm import JvmUnavailable

pytestmark = pytest.mark.parametrize("live_server", ["sqlite"], indirect=True)


def written(confluent, topic: str, schema: dict, records: list[dict]) -> list[bytes]:
    serialize = JSONSerializer(json.dumps(schema), confluent, conf={"auto.register.schemas": True})
    return [serialize(record, context(topic)) for record in records]


def frame(spark, values: list[bytes | None]):
    rows = [(b"k", value, "readings", 0, offset) for offset, value in enumerate(values)]
    return spark.createDataFrame(rows, "key binary, value binary, topic string, partition int, offset long")


def expected(record: dict, reader: dict) -> dict:
    """What the decoded struct holds for `record` read as `reader`: Spark's values of each
    reader property, its default (or None) where the record lacks it."""
    out = {}
    for name, prop in reader["properties"].items():
        value = record.get(name, prop.get("default"))
        if name == "at" and value is not None:
            value = datetime.fromtimestamp(datetime.fromisoformat(value).timestamp())  # Spark's local, naive
        out[name] = value
    return out


def test_confluent_json_records_decode_value_by_value_in_the_mapped_types(spark, live_server, confluent,
                                                                         unique_subject):
    topic = unique_subject("t")
    records = [reading(n) for n in range(10)]
    df = frame(spark, written(confluent, topic, READING_V1, records) + [None])
    decoded = decode(df, "value", RegistryClient(live_server), subject=f"{topic}-value")
    struct = decoded.schema["value"].dataType
    assert struct["id"].dataType == T.LongType() and struct["score"].dataType == T.DoubleType()
    assert struct["at"].dataType == T.TimestampType() and struct["ok"].dataType == T.BooleanType()
    assert struct["tags"].dataType == T.ArrayType(T.StringType(), True)
    assert struct["counts"].dataType == T.MapType(T.StringType(), T.LongType(), True)
    assert struct["place"].dataType == T.StructType([T.StructField("city", T.StringType()),
                                                     T.StructField("zip", T.StringType())])
    assert struct["note"].dataType == T.StringType() and struct["note"].nullable
    rows = decoded.orderBy("offset").collect()
    assert [row["value"].asDict(recursive=True) for row in rows[:10]] == [expected(r, READING_V1) for r in records]
    assert rows[10]["value"] is None and [row["key"] for row in rows] == [b"k"] * 11


def test_records_of_two_versions_are_projected_onto_the_reader(spark, live_server, confluent, unique_subject):
    topic = unique_subject("t")
    subject = f"{topic}-value"
    registry = RegistryClient(live_server)
    old = [reading(n) for n in range(4)]
    data = written(confluent, topic, READING_V1, old)
    registry.set_config(subject, compatibility="NONE")  # an open content model takes no added property
    new = [reading(n, version=2) for n in range(4, 8)]
    data += written(confluent, topic, READING_V2, new)
    df = frame(spark, data)

    latest = decode(df, "value", registry, subject=subject).orderBy("offset").collect()
    assert [row["value"].asDict(recursive=True) for row in latest] == \
        [expected(r, READING_V2) for r in old + new]
    assert latest[0]["value"]["unit"] == "celsius" and latest[0]["value"]["level"] is None  # default, null
    first = decode(df, "value", registry, subject=subject, reader=1).orderBy("offset").collect()
    assert [row["value"].asDict(recursive=True) for row in first] == [expected(r, READING_V1) for r in old + new]
    seen = decode(df.where("offset < 4"), "value", registry, subject=subject, reader="latest-seen")
    assert "unit" not in seen.schema["value"].dataType.names


def test_bad_json_records_are_routed_with_their_cause_or_stop_the_job(spark, live_server, confluent,
                                                                      unique_subject):
    topic = unique_subject("t")
    good = written(confluent, topic, READING_V1, [reading(1)])[0]
    header = good[:5]
    values = [
        good,
        header + b'{"id": "seven", "name": "x"}',         # a wrong type
        header + b'{"id": 7}',                             # a required property missing
        header + b'{"id": 7, "name": ',                    # not JSON
        b"\x01" + good[1:],                                # unknown magic byte
        b"\x00\x7f\xff\xff\xf0" + good[5:],               # an id the registry never gave
        header + b'{"id": 7, "name": "x", "at": "noon"}',  # valid (format is an annotation), no timestamp
        None,
    ]
    registry = RegistryClient(live_server)
    df = frame(spark, values)
    rows = decode(df, "value", registry, subject=f"{topic}-value", on_error="route").orderBy("offset").collect()
    reasons = [row["value_error"] for row in rows]
    assert reasons[0] is None and reasons[7] is None and rows[0]["value"]["id"] == 1
    assert "RecordInvalid" in reasons[1] and "'seven' is not of type 'integer'" in reasons[1]
    assert "'name' is a required property" in reasons[2]
    assert "as JSON" in reasons[3] and "magic byte" in reasons[4]
    assert "SchemaNotFound" in reasons[5] and "not an RFC 3339 date-time" in reasons[6]
    assert all(rows[i]["value"] is None for i in range(1, 8))

    with pytest.raises(PySparkException, match=r"topic=readings, partition=0, offset=2: .*'name' is a required"):
        decode(df.where("offset in (0, 2)"), "value", registry, subject=f"{topic}-value").collect()


def test_json_schema_decodes_on_the_python_path_and_refuses_the_jvm_one(spark, live_server, confluent,
                                                                        unique_subject, caplog):
    topic = unique_subject("t")
    df = frame(spark, written(confluent, topic, READING_V1, [reading(1)]))
    registry = RegistryClient(live_server)
    with pytest.raises(JvmUnavailable, match="reads Avro only; JSON Schema"):
        decode(df, "value", registry, subject=f"{topic}-value", engine="jvm")
    with caplog.at_level("INFO", logger="app.pipeline"):
        assert decode(df, "value", registry, subject=f"{topic}-value").count() == 1
    assert "decoding on the Python path: the JVM decoder reads Avro only" in caplog.text


def test_a_stream_of_json_records_decodes_as_a_batch_does(spark, live_server, confluent, unique_subject, tmp_path):
    topic = unique_subject("t")
    records = [reading(n) for n in range(4)]
    frame(spark, written(confluent, topic, READING_V1, records)).coalesce(1).write.parquet(str(tmp_path / "dumps"))
    stream = spark.readStream.schema("key binary, value binary, topic string, partition int, offset long") \
        .parquet(str(tmp_path / "dumps"))
    decoded = decode(stream, "value", RegistryClient(live_server), subject=f"{topic}-value")
    assert decoded.isStreaming
    query = (decoded.writeStream.format("memory").queryName("decoded_json_readings").outputMode("append")
             .option("checkpointLocation", str(tmp_path / "checkpoint")).start())
    try:
        query.processAllAvailable()
    finally:
        query.stop()
    rows = spark.sql("select * from decoded_json_readings order by offset").collect()
    assert [row["value"].asDict(recursive=True) for row in rows] == [expected(r, READING_V1) for r in records]
