"""`pipeline encode`: rows in (Parquet or a table), Parquet of `key` and framed `value` out, the writer registered or
looked up as the client's strategies do; what it writes, `pipeline decode` reads back."""
from __future__ import annotations

import pytest
from samples import EVENT_V1, EVENT_V2, event

from app.client import AvroDeserializer, RegistryClient
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
