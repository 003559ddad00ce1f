"""The decode job: a topic dump to Parquet; a later run after the subject evolved adds the new
columns and the earlier output stays readable through Parquet schema merge."""
from __future__ import annotations

import pytest
from samples import EVENT_V1, EVENT_V2, event

from app.client import SINGLE_OBJECT, AvroSerializer, RegistryClient
from app.pipeline.job import main

pytestmark = pytest.mark.parametrize("live_server", ["sqlite"], indirect=True)


def dump(spark, path, serializer, version, offsets):
    rows = [(serializer(event(version, n)), n) for n in offsets]
    spark.createDataFrame(rows, "value binary, offset long").write.parquet(str(path))


def test_runs_before_and_after_an_evolution_merge_in_one_parquet_folder(spark, live_server, unique_subject,
                                                                       tmp_path):
    client = RegistryClient(live_server)
    subject = unique_subject()
    dump(spark, tmp_path / "day1", AvroSerializer(client, EVENT_V1, subject=subject), 1, range(3))
    common = ["decode", "--registry", live_server, "--subject", subject, "--output", str(tmp_path / "out")]
    assert main([*common, "--input", str(tmp_path / "day1")]) == 0
    dump(spark, tmp_path / "day2", AvroSerializer(client, EVENT_V2, subject=subject), 2, range(3, 6))
    assert main([*common, "--input", str(tmp_path / "day2"), "--reader", "latest-seen"]) == 0

    merged = spark.read.option("mergeSchema", "true").parquet(str(tmp_path / "out"))
    rows = merged.orderBy("offset").collect()
    assert [row["offset"] for row in rows] == list(range(6))
    assert merged.schema["value"].dataType.fieldNames() == ["id", "name", "email", "score"]
    assert rows[0]["value"].asDict() == {**event(1, 0), "email": None, "score": None}
    assert rows[4]["value"].asDict() == event(2, 4)


def test_single_object_dump_decodes_with_the_framing_flag(spark, live_server, unique_subject, tmp_path):
    client = RegistryClient(live_server)
    subject = unique_subject()
    client.register(subject, EVENT_V1)
    serializer = AvroSerializer(client, EVENT_V1, subject=subject, framing=SINGLE_OBJECT)
    dump(spark, tmp_path / "dump", serializer, 1, range(4))
    assert main(["decode", "--registry", live_server, "--subject", subject, "--input", str(tmp_path / "dump"),
                 "--output", str(tmp_path / "out"), "--framing", "single-object"]) == 0
    rows = spark.read.parquet(str(tmp_path / "out")).orderBy("offset").collect()
    assert [row["value"].asDict() for row in rows] == [event(1, n) for n in range(4)]


def test_a_bad_record_in_fail_mode_is_one_line_naming_its_cause(engine, spark, live_server, unique_subject,
                                                                tmp_path, capsys):
    client = RegistryClient(live_server)
    subject = unique_subject()
    serializer = AvroSerializer(client, EVENT_V1, subject=subject)
    rows = [(serializer(event(1, 0)), 0), (b"\x00\x00\x00\x00", 1)]  # a header cut short
    spark.createDataFrame(rows, "value binary, offset long").write.parquet(str(tmp_path / "dump"))
    assert main(["decode", "--registry", live_server, "--subject", subject, "--input", str(tmp_path / "dump"),
                 "--output", str(tmp_path / "out"), "--on-error", "fail", "--engine", engine]) == 1
    err = capsys.readouterr().err.splitlines()
    assert f"sqlregistry pipeline: decoding on the {'JVM' if engine == 'jvm' else 'Python'} path: " in err[0]
    failure = [line for line in err if line.startswith("sqlregistry pipeline: error:")]
    assert len(failure) == 1 and "BadRecord: cannot decode value at offset=1: " in failure[0]
    assert "too short" in failure[0]
    assert not any(line.lstrip().startswith("at org.apache") for line in err)


def test_the_sample_dump_decodes_to_its_records(spark, live_server, unique_subject, tmp_path, capsys):
    from app.pipeline.sample import payment
    import random

    subject = unique_subject()
    sample = str(tmp_path / "sample.parquet")
    assert main(["sample", "--registry", live_server, "--subject", subject, "--output", sample,
                 "--records", "20"]) == 0
    assert capsys.readouterr().out.startswith(f"wrote 20 records of {subject} (schema id ")
    assert main(["decode", "--registry", live_server, "--subject", subject, "--input", sample,
                 "--output", str(tmp_path / "out")]) == 0
    rows = spark.read.parquet(str(tmp_path / "out")).orderBy("offset").collect()
    rng = random.Random(7)
    assert [row["value"].asDict() for row in rows] == [payment(n, rng) for n in range(20)]
    assert rows[3]["key"] == b"p-000003"
