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
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import pytest
from werkzeug.serving import make_server


def in_ci() -> bool:
    return os.environ.get("CI", "").strip().lower() not in ("", "0", "false", "no")


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


@dataclass
class CountingMiddleware:
    """Records (method, path with query) of every request before the app sees it."""

    app: Callable[..., Any]
    requests: list[tuple[str, str]] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def __call__(self, environ: dict[str, Any], start_response: Callable[..., Any]) -> Any:
        target = environ.get("RAW_URI") or environ.get("REQUEST_URI") or environ.get("PATH_INFO", "")
        with self.lock:
            self.requests.append((environ["REQUEST_METHOD"], target))
        return self.app(environ, start_response)


@dataclass
class CountingRegistry:
    url: str
    middleware: CountingMiddleware

    @property
    def requests(self) -> list[tuple[str, str]]:
        with self.middleware.lock:
            return list(self.middleware.requests)


@pytest.fixture
def counting_registry(app) -> Iterator[CountingRegistry]:
    middleware = CountingMiddleware(app.wsgi_app)
    server = make_server("127.0.0.1", 0, middleware, threaded=True)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    try:
        yield CountingRegistry(f"http://127.0.0.1:{server.server_port}", middleware)
    finally:
        server.shutdown()
        thread.join(timeout=10)
        server.server_close()
