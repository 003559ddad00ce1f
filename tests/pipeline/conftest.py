"""Fixtures for the pipeline tests: ONE local Spark session per test run, and a registry.

Spark needs pyspark and a Java runtime. Without them these tests skip locally; under CI (`CI`
set) they fail instead, as the PostgreSQL tests do, so a CI image that lost Java cannot pass
silently. The session is `local[2]` with the UI off, few shuffle partitions and the driver
bound to 127.0.0.1 (no network), and its Python workers run this interpreter.

`counting_registry`: the registry app served in-process by werkzeug behind a middleware that
records every request, so a test can count what Spark's Python workers asked for.
"""
from __future__ import annotations

import os
import shutil
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from support.ci import in_ci
from support.counting import CountingRegistry, counting_server


def _spark_missing() -> str | None:
    try:
        import pyarrow  # noqa: F401
        import pyspark  # noqa: F401
    except ImportError as exc:
        return f"pyspark/pyarrow are not installed ({exc}); pip install -e '.[pipeline]'"
    if shutil.which("java") is None and not os.environ.get("JAVA_HOME"):
        return "no Java runtime (apt-get install openjdk-17-jre-headless)"
    return None


@pytest.fixture(scope="session")
def spark():
    missing = _spark_missing()
    if missing:
        if in_ci():
            pytest.fail(f"CI must run the Spark tests, but: {missing}", pytrace=False)
        pytest.skip(missing)
    os.environ["PYSPARK_PYTHON"] = sys.executable
    os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
    os.environ["PYSPARK_DRIVER_PYTHON"] = sys.executable
    from pyspark.sql import SparkSession

    session = (
        SparkSession.builder.master("local[2]")
        .appName("sqlregistry-tests")
        .config("spark.driver.host", "127.0.0.1")
        .config("spark.driver.bindAddress", "127.0.0.1")
        .config("spark.ui.enabled", "false")
        .config("spark.sql.shuffle.partitions", "2")
        .config("spark.default.parallelism", "2")
        .config("spark.sql.session.timeZone", "UTC")
        .config("spark.python.worker.reuse", "true")
        .getOrCreate()
    )
    session.sparkContext.setLogLevel("ERROR")
    yield session
    session.stop()


@pytest.fixture(params=["jvm", "python"])
def engine(request, spark) -> str:
    """Each decoder path in turn: a test taking this pins behaviour both must share. Without a
    JDK to build the JVM decoder its half skips locally and fails under CI, as Spark's own absence does;
    a compile error of the decoder's source fails everywhere."""
    if request.param == "jvm":
        from app.pipeline.engine import choose_engine
        from app.pipeline.jvm import JvmBuildFailed, JvmUnavailable

        try:
            choose_engine(spark, "jvm")
        except JvmBuildFailed as exc:
            pytest.fail(f"the JVM decoder's source does not compile: {exc}", pytrace=False)
        except JvmUnavailable as exc:
            if in_ci():
                pytest.fail(f"CI must run the JVM decoder, but: {exc}", pytrace=False)
            pytest.skip(str(exc))
    return request.param


@pytest.fixture(scope="session")
def decoder_jar(spark) -> Path:
    """The JVM decoder's jar, for tests that hand it to Spark themselves; without a JDK to build
    it the test skips locally and fails under CI; a compile error fails everywhere."""
    from app.pipeline.jvm import JvmBuildFailed, JvmUnavailable, jar_path

    try:
        return jar_path()
    except JvmBuildFailed as exc:
        pytest.fail(f"the JVM decoder's source does not compile: {exc}", pytrace=False)
    except JvmUnavailable as exc:
        if in_ci():
            pytest.fail(f"CI must run the JVM decoder, but: {exc}", pytrace=False)
        pytest.skip(str(exc))


@pytest.fixture
def counting_registry(app) -> Iterator[CountingRegistry]:
    with counting_server(app) as registry:
        yield registry


@pytest.fixture
def database(spark, tmp_path) -> Iterator[str]:
    """A catalog database of its own in the test's folder, for table tests on the shared
    session's catalog (whose default warehouse is the working directory)."""
    name = f"t_{uuid.uuid4().hex[:8]}"
    spark.sql(f"CREATE DATABASE {name} LOCATION '{tmp_path / name}'")
    yield name
    spark.sql(f"DROP DATABASE {name} CASCADE")
