"""The same `decode` on a Structured Streaming query over a folder of Parquet topic dumps."""
from __future__ import annotations

import pytest
from samples import EVENT_V1, EVENT_V2, event

from app.client import AvroSerializer, RegistryClient
from app.pipeline import decode

pytestmark = pytest.mark.parametrize("live_server", ["sqlite"], indirect=True)


def test_streaming_query_over_a_folder_of_dumps_projects_every_record(spark, live_server, unique_subject, tmp_path):
    client = RegistryClient(live_server)
    subject = unique_subject()
    v1 = AvroSerializer(client, EVENT_V1, subject=subject)
    v2 = AvroSerializer(client, EVENT_V2, subject=subject)
    dumps = tmp_path / "dumps"
    for part, pattern in enumerate(([1, 1, 2], [1, 2, 2])):
        rows = [(f"k{part}{i}".encode(), (v1 if version == 1 else v2)(event(version, part * 10 + i)), "events", 0,
                 part * 10 + i) for i, version in enumerate(pattern)]
        spark.createDataFrame(rows, "key binary, value binary, topic string, partition int, offset long") \
            .write.parquet(str(dumps / f"part-{part}"))
    batch_schema = spark.read.parquet(str(dumps / "part-0")).schema

    stream = spark.readStream.schema(batch_schema).option("recursiveFileLookup", "true").parquet(str(dumps))
    decoded = decode(stream, "value", client, subject=subject, reader="latest")
    assert decoded.isStreaming
    query = (decoded.writeStream.format("memory").queryName("decoded_events").outputMode("append")
             .option("checkpointLocation", str(tmp_path / "checkpoint")).trigger(availableNow=True).start())
    query.awaitTermination(120)
    out = spark.sql("select * from decoded_events order by offset").collect()
    assert [row["offset"] for row in out] == [0, 1, 2, 10, 11, 12]
    assert out[0]["value"].asDict() == {**event(1, 0), "email": None, "score": 1.5}
    assert out[2]["value"].asDict() == event(2, 2)


def test_latest_seen_is_refused_on_a_stream(spark, live_server, unique_subject, tmp_path):
    client = RegistryClient(live_server)
    stream = spark.readStream.schema("value binary").parquet(str(tmp_path))
    with pytest.raises(ValueError, match="streaming"):
        decode(stream, "value", client, subject=unique_subject(), reader="latest-seen")
