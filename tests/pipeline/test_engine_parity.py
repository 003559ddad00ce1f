"""The JVM and Python decoders agree value for value on generated schemas and records, read as
written and projected onto a reader that added defaulted fields, and the path choice is
automatic, forced, or a fallback that says why."""
from __future__ import annotations

import json
import logging
import random
from typing import Any

import pytest
from generated_avro import SCHEMAS, value_of
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from app.client import AvroSerializer, RegistryClient
from app.pipeline import decode
from app.pipeline.engine import choose_engine


def _rows(out) -> list[Any]:
    return [row["value"].asDict(recursive=True) if row["value"] is not None else None for row in out]


@pytest.mark.parametrize("live_server", ["sqlite"], indirect=True)
@settings(max_examples=12, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(schema=SCHEMAS, seed=st.integers(0, 2**16))
def test_both_paths_decode_generated_schemas_and_records_alike(spark, live_server, unique_subject, schema, seed):
    choose_engine(spark, "jvm")  # the JVM path is required here, not a silent fallback
    client = RegistryClient(live_server)
    subject = unique_subject()
    rng = random.Random(seed)
    text = json.dumps(schema)
    serialize = AvroSerializer(client, text, subject=subject)
    values = [serialize(value_of(schema, rng)) for _ in range(6)]
    # A second version with a defaulted field: half the records are projected onto it.
    newer = {**schema, "fields": [*schema["fields"], {"name": "added", "type": ["null", "string"],
                                                      "default": None}]}
    client.register(subject, json.dumps(newer))
    df = spark.createDataFrame([(n, v) for n, v in enumerate(values)], "n long, value binary")
    for reader in (1, "latest"):
        jvm = decode(df, "value", client, subject=subject, reader=reader, engine="jvm").orderBy("n").collect()
        python = decode(df, "value", client, subject=subject, reader=reader, engine="python").orderBy("n").collect()
        assert _rows(jvm) == _rows(python), (text, reader)


def test_auto_takes_the_jvm_path_and_says_so(spark, caplog):
    with caplog.at_level(logging.INFO, logger="app.pipeline"):
        assert choose_engine(spark).jvm
    assert any(line.startswith("decoding on the JVM path: ") for line in caplog.messages)


def test_a_stream_takes_the_jvm_path_saying_its_executors_fetch_the_writers(spark, caplog):
    with caplog.at_level(logging.INFO, logger="app.pipeline"):
        choice = choose_engine(spark, "auto", streaming=True)
    assert choice.jvm and choice.reason.endswith("a stream's writers are fetched by the executors from the registry")
    assert caplog.messages == [str(choice)]


def test_forcing_the_python_path_never_loads_the_jar(spark, caplog):
    with caplog.at_level(logging.INFO, logger="app.pipeline"):
        assert choose_engine(spark, "python").engine == "python"
    assert caplog.messages == ["decoding on the Python path: asked for (engine='python')"]


def test_without_a_java_compiler_the_jar_is_refused_with_the_package_to_install(monkeypatch, tmp_path):
    from app.pipeline import jvm

    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.delenv("JAVA_HOME", raising=False)
    with pytest.raises(jvm.JvmUnavailable, match="openjdk-17-jdk-headless"):
        jvm._compile(jvm._pyspark_jars(), tmp_path / "decoder.jar")
    assert not (tmp_path / "decoder.jar").exists()


def test_an_encode_says_which_path_writes(spark, caplog):
    with caplog.at_level(logging.INFO, logger="app.pipeline"):
        choice = choose_engine(spark, "auto", work="encoding")
    assert choice.jvm and caplog.messages == [str(choice)]
    assert str(choice).startswith("encoding on the JVM path: ")
