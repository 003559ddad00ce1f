"""`sqlregistry pipeline decode` on JSON Schema and Protobuf subjects: the same flags as Avro
(plus `--message` for Protobuf), the Python path named and why, a bad record one line."""
from __future__ import annotations

import pytest
from confluent_kafka.schema_registry.protobuf import ProtobufSerializer
from format_samples import READING_V1, compile_proto, proto_reading, reading
from support.interop import context

from app.client import JsonSerializer, RegistryClient
from app.pipeline.job import main

pytestmark = pytest.mark.parametrize("live_server", ["sqlite"], indirect=True)


def dump(spark, path, values: list[bytes]) -> None:
    spark.createDataFrame([(value, n) for n, value in enumerate(values)], "value binary, offset long") \
        .write.parquet(str(path))


def test_a_json_schema_dump_decodes_on_the_python_path_and_a_bad_record_is_one_line(
        spark, live_server, unique_subject, tmp_path, capsys):
    subject = unique_subject()
    serialize = JsonSerializer(RegistryClient(live_server), READING_V1, subject=subject)
    good = [serialize(reading(n)) for n in range(3)]
    dump(spark, tmp_path / "good", good)
    common = ["decode", "--registry", live_server, "--subject", subject]
    assert main([*common, "--input", str(tmp_path / "good"), "--output", str(tmp_path / "out")]) == 0
    assert "decoding on the Python path: the JVM decoder reads Avro only; JSON Schema" in capsys.readouterr().err
    rows = spark.read.parquet(str(tmp_path / "out")).orderBy("offset").collect()
    assert [(row["value"]["id"], row["value"]["name"], row["value"]["tags"]) for row in rows] == \
        [(n, f"r-{n}", reading(n)["tags"]) for n in range(3)]

    dump(spark, tmp_path / "bad", [good[0], good[0][:5] + b'{"id": 1}'])
    assert main([*common, "--input", str(tmp_path / "bad"), "--output", str(tmp_path / "out2")]) == 1
    failure = [line for line in capsys.readouterr().err.splitlines() if "error:" in line]
    assert len(failure) == 1 and "at offset=1: " in failure[0] and "'name' is a required property" in failure[0]
    assert main([*common, "--input", str(tmp_path / "good"), "--output", str(tmp_path / "out3"),
                 "--engine", "jvm"]) == 1
    assert "JvmUnavailable: the JVM decoder reads Avro only" in capsys.readouterr().err


def test_a_protobuf_dump_decodes_the_message_the_flag_names(spark, live_server, confluent, unique_subject,
                                                            tmp_path, capsys):
    samples = compile_proto(tmp_path / "proto")
    topic = unique_subject("t")
    serialize = ProtobufSerializer(samples.Reading, confluent)
    messages = [proto_reading(samples, n) for n in range(3)]
    dump(spark, tmp_path / "dump", [serialize(message, context(topic)) for message in messages])
    assert main(["decode", "--registry", live_server, "--subject", f"{topic}-value", "--input",
                 str(tmp_path / "dump"), "--output", str(tmp_path / "out"), "--message",
                 "pipeline.samples.Reading", "--on-error", "route"]) == 0
    rows = spark.read.parquet(str(tmp_path / "out")).orderBy("offset").collect()
    assert [row["value_error"] for row in rows] == [None] * 3
    assert [(row["value"]["big"], row["value"]["kind"], row["value"]["label"]) for row in rows] == \
        [(m.big, samples.Reading.Kind.Name(m.kind), m.label) for m in messages]
