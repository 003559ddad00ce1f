"""`pipeline encode`: rows in (Parquet or a table), Parquet of `key` and framed `value` out, the writer registered or
looked up as the client's strategies do, in any of the three formats; what it writes, `pipeline decode` reads back."""
from __future__ import annotations

import pytest
from samples import EVENT_V1, EVENT_V2, event

from app.client import AvroDeserializer, JsonDeserializer, RegistryClient
from app.pipeline import decode
from app.pipeline.job import main

pytestmark = pytest.mark.parametrize("live_server", ["sqlite"], indirect=True)


def test_encoded_rows_decode_back_to_themselves(spark, live_server, unique_subject, tmp_path):
    subject = unique_subject()
    rows = [(f"k{n}".encode(), *event(1, n).values()) for n in range(4)]
    spark.createDataFrame(rows, "key binary, id long, name string").write.parquet(str(tmp_path / "rows"))
    (tmp_path / "event.avsc").write_text(EVENT_V1)
    assert main(["encode", "--registry", live_server, "--subject", subject, "--input", str(tmp_path / "rows"),
                 "--schema", str(tmp_path / "event.avsc"), "--output", str(tmp_path / "framed")]) == 0
    framed = spark.read.parquet(str(tmp_path / "framed"))
    assert framed.columns == ["key", "value"]
    client = RegistryClient(live_server)
    assert client.get_versions(subject) == [1]  # registered (auto-register, the default)
    assert main(["decode", "--registry", live_server, "--subject", subject, "--input", str(tmp_path / "framed"),
                 "--output", str(tmp_path / "decoded")]) == 0
    back = spark.read.parquet(str(tmp_path / "decoded")).orderBy("key").collect()
    assert [(row["key"], row["value"].asDict()) for row in back] == [(f"k{n}".encode(), event(1, n))
                                                                      for n in range(4)]


def test_a_table_encodes_with_a_registered_version_and_its_key_column_becomes_key(
        spark, live_server, unique_subject, tmp_path, database, capsys):
    subject = unique_subject()
    client = RegistryClient(live_server)
    client.register(subject, EVENT_V1)
    v2 = client.register(subject, EVENT_V2)
    spark.createDataFrame([("a", *event(2, 1).values())], "user string, id long, name string, email string, "
                          "score double").write.saveAsTable(f"{database}.users")
    common = ["encode", "--registry", live_server, "--subject", subject, "--table", f"{database}.users",
              "--key", "user", "--output", str(tmp_path / "framed")]
    # The schema derived from the columns (nullable fields) is no version of the subject: LookupOnly's 40403.
    assert main([*common, "--writer", "lookup"]) == 1
    assert "(error_code 40403" in capsys.readouterr().err
    assert main([*common, "--writer", "latest"]) == 0
    (row,) = spark.read.parquet(str(tmp_path / "framed")).collect()
    assert row["key"] == "a" and int.from_bytes(row["value"][1:5], "big") == v2.schema_id
    assert AvroDeserializer(client)(row["value"]) == event(2, 1)
    assert client.get_versions(subject) == [1, 2]


TWO_MESSAGES = """syntax = "proto3";
package shop;
message Ping { int64 at = 1; }
message Order {
  int64 id = 1;
  string item = 2;
  repeated string tags = 3;
}
"""


def test_a_proto_file_encodes_as_the_message_named_and_decodes_back(spark, live_server, unique_subject, tmp_path,
                                                                    capsys):
    subject = unique_subject()
    spark.createDataFrame([(b"k1", 1, "pen", ["a"]), (b"k2", 2, "ink", [])], "key binary, id long, item string, "
                          "tags array<string>").write.parquet(str(tmp_path / "rows"))
    (tmp_path / "order.proto").write_text(TWO_MESSAGES)
    assert main(["encode", "--registry", live_server, "--subject", subject, "--input", str(tmp_path / "rows"),
                 "--schema", str(tmp_path / "order.proto"), "--message", "shop.Order",
                 "--output", str(tmp_path / "framed")]) == 0
    assert "encoding on the Python path: the JVM encoder writes Avro only; Protobuf" in capsys.readouterr().err
    client = RegistryClient(live_server)
    assert client.get_version(subject, 1).schema.schema_type == "PROTOBUF"
    framed = spark.read.parquet(str(tmp_path / "framed"))
    assert {bytes(row["value"][5:7]) for row in framed.collect()} == {b"\x02\x02"}  # message indexes [1]
    back = decode(framed, "value", client, subject=subject, message="shop.Order").orderBy("key").collect()
    assert [row["value"].asDict() for row in back] == [{"id": 1, "item": "pen", "tags": ["a"]},
                                                       {"id": 2, "item": "ink", "tags": []}]


def test_json_schema_derived_by_the_command_is_looked_up_and_written_with(spark, live_server, unique_subject,
                                                                          tmp_path):
    subject = unique_subject()
    spark.createDataFrame([("k", 7, "ann")], "key string, id long, name string").write.parquet(str(tmp_path / "rows"))
    common = ["encode", "--registry", live_server, "--subject", subject, "--input", str(tmp_path / "rows"),
              "--schema-type", "json", "--output", str(tmp_path / "framed")]
    assert main([*common, "--writer", "lookup"]) == 1  # nothing registered yet: LookupOnly's 40403
    assert main(common) == 0 and main([*common, "--writer", "lookup"]) == 0
    client = RegistryClient(live_server)
    assert client.get_versions(subject) == [1]
    values = [row["value"] for row in spark.read.parquet(str(tmp_path / "framed")).collect()]
    assert [JsonDeserializer(client)(value) for value in values] == [{"id": 7, "name": "ann"}] * 2
