"""The JVM and Python decoders agree value for value on generated schemas and records, read as
written and projected onto a reader that added defaulted fields, and the path choice is
automatic, forced, or a fallback that says why."""
from __future__ import annotations

import json
import logging
import os
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from generated_avro import SCHEMAS, value_of
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from app.client import AvroSerializer, RegistryClient
from app.pipeline import decode
from app.pipeline.engine import choose_engine

REPO = Path(__file__).resolve().parents[2]


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


# Run in a new process: the session there has never seen the decoder, which this process's
# shared session (where other tests load it) cannot promise.
LOADED_PROBE = """
import json
from pyspark.sql import SparkSession
from app.pipeline.engine import choose_engine
from app.pipeline.jvm import UDF_CLASS

spark = (SparkSession.builder.master("local[1]").config("spark.ui.enabled", "false")
         .config("spark.driver.host", "127.0.0.1").config("spark.driver.bindAddress", "127.0.0.1").getOrCreate())
spark.sparkContext.setLogLevel("ERROR")


def loaded():
    jvm = spark.sparkContext._jvm
    try:
        jvm.java.lang.Class.forName(UDF_CLASS, False, jvm.java.lang.Thread.currentThread().getContextClassLoader())
        visible = True
    except Exception:
        visible = False
    jars = spark.sparkContext._jsc.sc().listJars().mkString("|")  # a Scala Seq of the added jars' URLs
    return {"jars": [jar for jar in jars.split("|") if jar], "class": visible}


seen = {"before": loaded()}
seen["python"] = [choose_engine(spark, "python").engine, loaded()]
seen["jvm"] = [choose_engine(spark, "jvm").engine, loaded()]  # the probe can see a load
print("LOADED " + json.dumps(seen))
spark.stop()
"""


@pytest.mark.slow
def test_forcing_the_python_path_never_loads_the_jar(decoder_jar, tmp_path):
    """Asked of the JVM: the session's added jars and whether the decoder's class is visible,
    before and after `engine="python"`, then after `engine="jvm"` (which must show both)."""
    env = {**os.environ, "PYTHONPATH": str(REPO), "PYSPARK_PYTHON": sys.executable,
           "PYSPARK_DRIVER_PYTHON": sys.executable, "SPARK_LOCAL_IP": "127.0.0.1"}
    done = subprocess.run([sys.executable, "-c", LOADED_PROBE], env=env, cwd=tmp_path, capture_output=True,
                          text=True, timeout=240, stdin=subprocess.DEVNULL, check=False)
    assert done.returncode == 0, done.stderr[-4000:]
    seen = json.loads(next(line for line in done.stdout.splitlines() if line.startswith("LOADED "))[7:])
    assert seen["before"] == {"jars": [], "class": False}
    assert seen["python"] == ["python", {"jars": [], "class": False}]
    engine, after = seen["jvm"]
    assert engine == "jvm" and after["class"] and [Path(jar).name for jar in after["jars"]] == [decoder_jar.name]


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
