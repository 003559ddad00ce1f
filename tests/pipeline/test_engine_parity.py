"""The JVM and Python decoders agree value for value on generated schemas and records, read as
written and projected onto a reader that added defaulted fields, and the path choice is
automatic, forced, or a fallback that says why."""
from __future__ import annotations

import itertools
import json
import logging
import random
from datetime import date, datetime, timezone
from decimal import Decimal
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from app.client import AvroSerializer, RegistryClient
from app.pipeline import decode
from app.pipeline.engine import choose_engine

_names = itertools.count()

LEAVES = st.sampled_from([
    "boolean", "int", "long", "float", "double", "string", "bytes",
    {"type": "int", "logicalType": "date"},
    {"type": "long", "logicalType": "timestamp-micros"},
    {"type": "long", "logicalType": "timestamp-millis"},
    {"type": "bytes", "logicalType": "decimal", "precision": 9, "scale": 2},
    "enum", "fixed",
])


def _named(kind: str) -> dict[str, Any]:
    name = f"T{next(_names)}"
    if kind == "enum":
        return {"type": "enum", "name": name, "symbols": ["A", "B", "C"]}
    return {"type": "fixed", "name": name, "size": 3}


def _leaf(kind: Any) -> Any:
    return _named(kind) if kind in ("enum", "fixed") else kind


def _record(fields: list[Any]) -> dict[str, Any]:
    return {"type": "record", "name": f"R{next(_names)}",
            "fields": [{"name": f"f{i}", "type": kind} for i, kind in enumerate(fields)]}


def _composite(inner: st.SearchStrategy) -> st.SearchStrategy:
    return st.one_of(
        st.lists(inner, min_size=1, max_size=3).map(_record),
        inner.map(lambda items: {"type": "array", "items": items}),
        inner.map(lambda values: {"type": "map", "values": values}),
        inner.map(lambda kind: ["null", kind] if not isinstance(kind, list) else kind),
        st.just(["null", "int", "string"]),
        st.just(["int", "long"]),
        st.just(["string", "bytes", "double"]),
    )


SCHEMAS = st.lists(st.recursive(LEAVES.map(_leaf), _composite, max_leaves=6), min_size=1, max_size=5).map(_record)


def value_of(schema: Any, rng: random.Random) -> Any:
    """A random value of `schema` as fastavro writes it."""
    if isinstance(schema, list):
        member = rng.choice(schema)
        return None if member == "null" else value_of(member, rng)
    if isinstance(schema, dict) and "logicalType" in schema:
        return {
            "date": lambda: date(2000, 1, 1) if rng.random() < 0.5 else date(1969, 12, rng.randint(1, 31)),
            "timestamp-micros": lambda: datetime.fromtimestamp(rng.randint(-10**9, 10**9) + rng.randint(0, 999_999)
                                                               / 1e6, tz=timezone.utc),
            "timestamp-millis": lambda: datetime.fromtimestamp(rng.randint(-10**9, 10**9), tz=timezone.utc),
            "decimal": lambda: Decimal(rng.randint(-10**8, 10**8)).scaleb(-2),
        }[schema["logicalType"]]()
    kind = schema["type"] if isinstance(schema, dict) else schema
    if kind == "record":
        return {field["name"]: value_of(field["type"], rng) for field in schema["fields"]}
    if kind == "array":
        return [value_of(schema["items"], rng) for _ in range(rng.randint(0, 3))]
    if kind == "map":
        return {f"k{i}": value_of(schema["values"], rng) for i in range(rng.randint(0, 3))}
    if kind == "enum":
        return rng.choice(schema["symbols"])
    if kind == "fixed":
        return bytes(rng.randrange(256) for _ in range(schema["size"]))
    return {
        "boolean": lambda: rng.random() < 0.5, "int": lambda: rng.randint(-2**31, 2**31 - 1),
        "long": lambda: rng.randint(-2**63, 2**63 - 1), "float": lambda: rng.choice([0.5, -2.25, 1e10]),
        "double": lambda: rng.uniform(-1e6, 1e6), "string": lambda: rng.choice(["", "é", "x" * rng.randint(1, 9)]),
        "bytes": lambda: rng.randbytes(rng.randint(0, 4)),
    }[kind]()


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
