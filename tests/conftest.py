"""Shared fixtures: a fresh registry per test, on SQLite and on a real PostgreSQL.

`database_url` is parametrized over both databases, so every test built on `database_url`,
`settings`, `app`, `client` or `service` runs twice. Each test gets its own database, already
at the migration head: both kinds are copied from a template migrated once per session
(a file copy for SQLite, `CREATE DATABASE ... TEMPLATE` for PostgreSQL), which keeps a
per-test database cheap. Tests that need an empty, unmigrated database use
`empty_database_url`.

Without PostgreSQL binaries the postgres cases are skipped locally; under CI (`CI` set) they
fail instead, so a CI image that lost PostgreSQL cannot pass silently.
"""
from __future__ import annotations

import logging
import os
import re
import shutil
import sqlite3
import sys
import tempfile
import uuid
from pathlib import Path
from typing import Callable, Iterator

import pytest

# Make `support` importable however pytest was configured to import test modules.
sys.path.insert(0, str(Path(__file__).resolve().parent))

from support import live, spark_jvm  # noqa: E402
from support.ci import in_ci  # noqa: E402
from support.forkserver import ForkServer  # noqa: E402
from support.live import LiveServer, start_server  # noqa: E402
from support.postgres import (  # noqa: E402
    PostgresCluster, PostgresUnavailable, shared_cluster, stop_shared_cluster,
)

from app.storage.migrate import upgrade_url  # noqa: E402

# Fails the run at collection when xdist's grouping does not hold (support/xdist_groups.py).
pytest_plugins = ("support.xdist_groups",)

DATABASE_KINDS = [
    pytest.param("sqlite", id="sqlite"),
    pytest.param("postgres", id="postgres", marks=pytest.mark.postgres),
]


# ------------------------------------------------------------------ one run, several processes
# scripts/test runs the suite on pytest-xdist's workers. What a run shares (its PostgreSQL
# cluster) lives in a directory the first process makes and every worker inherits through
# the environment; the process that outlives the workers (the controller, or pytest itself
# without xdist) ends it.
RUN_DIR_VARIABLE = "SQLREGISTRY_TEST_RUN_DIR"
# Tests that share one heavy thing per process run on one worker, so that a run starts it once.
XDIST_GROUPS = {"pipeline": "spark", "test_browser.py": "browser"}


def _is_worker(config: pytest.Config) -> bool:
    return hasattr(config, "workerinput")


def pytest_configure(config: pytest.Config) -> None:
    # A hung test fails alone at its time limit (`timeout` in pyproject.toml) instead of holding
    # the run until CI's own limit: without the plugin that enforces it, the run does not start.
    if not config.pluginmanager.hasplugin("timeout"):
        raise pytest.UsageError("the suite's per-test time limit needs pytest-timeout: pip install -e '.[test]'")
    if not _is_worker(config):
        os.environ[RUN_DIR_VARIABLE] = tempfile.mkdtemp(prefix="sqlregistry-tests-")
    # Every Spark JVM a test starts, in this process or as a command, gets its options from the
    # environment: the JIT's first tier, no UI, and the class-data-sharing archive that
    # scripts/test makes (support/spark_jvm.py).
    os.environ.update(spark_jvm.current().environment())
    # boto3 asks an AWS endpoint up to five times, backing off between tries: the tests' KMS is
    # moto on loopback, where a refusal is the answer (an unreachable KMS cost a test 14 s).
    os.environ.setdefault("AWS_MAX_ATTEMPTS", "1")
    # Live servers start as forks of a process that imported the registry once
    # (support/forkserver.py); SQLREGISTRY_TEST_FORK_SERVER=0 starts each as a new interpreter.
    if os.environ.get("SQLREGISTRY_TEST_FORK_SERVER", "1") != "0":
        live.FORK_SERVER = ForkServer()


def pytest_unconfigure(config: pytest.Config) -> None:
    if live.FORK_SERVER is not None:
        live.FORK_SERVER.close()
        live.FORK_SERVER = None
    if not _is_worker(config) and RUN_DIR_VARIABLE in os.environ:
        run_dir = Path(os.environ.pop(RUN_DIR_VARIABLE))
        stop_shared_cluster(run_dir)
        shutil.rmtree(run_dir, ignore_errors=True)


@pytest.hookimpl(tryfirst=True)  # before xdist's own hook reads the groups
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """The xdist group (`--dist loadgroup`) of the tests that share a Spark session or a browser,
    and of a module's tests that share a module-scoped fixture (a server, a fleet): spread over
    the workers, each worker would start its own."""
    if not config.pluginmanager.hasplugin("xdist"):
        return
    for item in items:
        group = next((XDIST_GROUPS[part] for part in (item.path.name, item.path.parent.name)
                      if part in XDIST_GROUPS), None)
        if group is None and _uses_a_module_fixture(item):
            group = str(item.path.relative_to(item.path.parents[1]))
        if group is not None:
            item.add_marker(pytest.mark.xdist_group(group))


def _uses_a_module_fixture(item: pytest.Item) -> bool:
    info = getattr(item, "_fixtureinfo", None)
    return info is not None and any(
        definitions[-1].scope == "module" for definitions in info.name2fixturedefs.values())


# ------------------------------------------------------------------ a running tally
def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    """With SQLREGISTRY_TEST_TALLY set (scripts/test sets it), one line per finished test in that
    file, so that a run stopped at its time limit can still say how far it got and what failed.
    Under xdist the controller sees every worker's reports: the workers themselves write nothing."""
    tally = os.environ.get("SQLREGISTRY_TEST_TALLY")
    if not tally or os.environ.get("PYTEST_XDIST_WORKER"):
        return
    outcome = None
    if report.when == "call" or (report.when == "setup" and not report.passed):
        outcome = "error" if report.when == "setup" and report.failed else report.outcome
    elif report.when == "teardown" and report.failed:
        outcome = "error"
    if outcome is not None:
        with open(tally, "a", encoding="utf-8") as out:
            out.write(f"{outcome} {report.nodeid}\n")


# ------------------------------------------------------------------ logging left by commands
@pytest.fixture(autouse=True)
def app_logger_as_it_was() -> Iterator[None]:
    """A command run in process (`serve`'s set-up) gives the `app` logger a handler on the stderr
    of that moment, a test's capture that closes when the test ends: later tests on the worker
    then log into a closed stream. Each test leaves the logger as it found it."""
    logger = logging.getLogger("app")
    handlers, level = list(logger.handlers), logger.level
    yield
    logger.handlers[:] = handlers
    logger.setLevel(level)


# ------------------------------------------------------------------ PostgreSQL
@pytest.fixture(scope="session")
def pg_cluster() -> Iterator[PostgresCluster]:
    """One private PostgreSQL cluster per test run, shared by its workers and stopped when the
    run ends (`pytest_unconfigure`); each worker makes databases of its own in it."""
    try:
        cluster = shared_cluster(Path(os.environ[RUN_DIR_VARIABLE]))
    except PostgresUnavailable as exc:
        if in_ci():
            pytest.fail(f"CI must run the PostgreSQL tests, but: {exc}", pytrace=False)
        pytest.skip(f"PostgreSQL not available: {exc}")
    yield cluster
    cluster.close()


@pytest.fixture(scope="session")
def pg_template(pg_cluster: PostgresCluster) -> str:
    """A database migrated to head once; per-test databases are copies of it."""
    name = pg_cluster.create_database("template")
    upgrade_url(pg_cluster.url(name))
    return name


@pytest.fixture(scope="session")
def sqlite_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("sqlite-template") / "registry.db"
    upgrade_url(f"sqlite:///{path}")
    return path


@pytest.fixture(scope="session")
def sqlite_at_head(sqlite_template: Path) -> Callable[[Path], str]:
    """Makes a new SQLite database at the migration head at a path, and gives its URL."""

    def make(target: Path) -> str:
        # SQLite's backup API copies correctly whatever the journal mode.
        source, copy = sqlite3.connect(sqlite_template), sqlite3.connect(target)
        try:
            source.backup(copy)
        finally:
            source.close()
            copy.close()
        return f"sqlite:///{target}"

    return make


# ------------------------------------------------------------------ per-test databases
@pytest.fixture(params=DATABASE_KINDS)
def database_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """A fresh database at the migration head: SQLite file or PostgreSQL database."""
    if request.param == "sqlite":
        yield request.getfixturevalue("sqlite_at_head")(tmp_path / "registry.db")
        return
    cluster: PostgresCluster = request.getfixturevalue("pg_cluster")
    name = cluster.create_database("t", template=request.getfixturevalue("pg_template"))
    yield cluster.url(name)
    cluster.drop_database(name)


@pytest.fixture(params=DATABASE_KINDS)
def empty_database_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """A fresh database with no tables at all, for tests of the migrations themselves."""
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'empty.db'}"
        return
    cluster: PostgresCluster = request.getfixturevalue("pg_cluster")
    name = cluster.create_database("empty")
    yield cluster.url(name)
    cluster.drop_database(name)


@pytest.fixture
def settings(database_url: str):
    from app.settings import Settings

    return Settings(database_url=database_url)


@pytest.fixture
def app(settings):
    from app.server.factory import create_app

    app = create_app(settings)
    yield app
    # Close pooled connections now: dropping a PostgreSQL database that still has sessions
    # means terminating them, which costs more than the test itself.
    app.extensions["registry"].storage.close()


@pytest.fixture
def client(app):
    return app.test_client()


@pytest.fixture
def service(app):
    return app.extensions["registry"]


# ------------------------------------------------------------------ live server
@pytest.fixture(scope="session", params=DATABASE_KINDS)
def live_server(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """Base URL of the registry running under gunicorn; one server per database kind per session.

    The server is shared, so tests must use subjects of their own (`unique_subject`) and must
    not change global config or mode without restoring it.
    """
    workdir = tmp_path_factory.mktemp(f"live-{request.param}")
    if request.param == "sqlite":
        url = f"sqlite:///{workdir / 'registry.db'}"
        cleanup: Callable[[], None] = lambda: None  # noqa: E731
    else:
        cluster: PostgresCluster = request.getfixturevalue("pg_cluster")
        # An empty database: the server's own start-up must migrate it.
        name = cluster.create_database("live")
        url = cluster.url(name)
        cleanup = lambda: cluster.drop_database(name)  # noqa: E731
    server: LiveServer = start_server(url, workdir / "server.log")
    try:
        yield server.url
    finally:
        server.stop()
        cleanup()


@pytest.fixture
def unique_subject(request: pytest.FixtureRequest) -> Callable[[str], str]:
    """Make subject names no other test (or client cache) has seen: `unique_subject("value")`."""
    stem = re.sub(r"[^A-Za-z0-9_.-]+", "-", request.node.name)[:60]

    def make(suffix: str = "value") -> str:
        return f"{stem}-{uuid.uuid4().hex[:8]}-{suffix}"

    return make


@pytest.fixture(scope="session")
def protobuf_samples(tmp_path_factory: pytest.TempPathFactory):
    """The sample `.proto` files of `support.protobuf_samples`, compiled by protoc at test time."""
    from support.protobuf_samples import generate

    return generate(tmp_path_factory.mktemp("protobuf-samples"))


# ------------------------------------------------------------------ clients of the live server
@pytest.fixture
def ours(live_server: str):
    """This project's client (app.client) on the live server."""
    from app.client import RegistryClient

    return RegistryClient(live_server)


@pytest.fixture
def confluent(live_server: str):
    """confluent-kafka's registry client on the live server (the interop tests' other side)."""
    from confluent_kafka.schema_registry import SchemaRegistryClient

    client = SchemaRegistryClient({"url": live_server})
    yield client
    client.close()


# ------------------------------------------------------------------ identity provider
@pytest.fixture
def dead_url() -> str:
    """A loopback URL where nothing listens: connecting is refused at once (the client's and
    the commands' tests)."""
    from support.postgres import free_port

    return f"http://127.0.0.1:{free_port()}"


@pytest.fixture
def idp():
    """A loopback identity provider publishing a JWKS (tests/support/idp.py); per test, since
    tests rotate its keys and take it down."""
    from support.idp import IdentityProvider

    provider = IdentityProvider()
    yield provider
    provider.down()


# ------------------------------------------------------------------ TLS
@pytest.fixture(scope="session")
def pki(tmp_path_factory: pytest.TempPathFactory):
    """Throwaway CAs, a server certificate for 127.0.0.1/localhost and client certificates
    (tests/support/pki.py), as PEM files."""
    from support.pki import make_pki

    return make_pki(tmp_path_factory.mktemp("pki"))


@pytest.fixture(scope="session")
def tls_live_server(pki, tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    """`sqlregistry serve` over HTTPS on SQLite (TLS does not depend on the database), asking
    for client certificates of the test CA but not requiring them (`--cert-reqs 1`). Shared
    like `live_server`: tests use subjects of their own."""
    from support.live import start_tls_server

    workdir = tmp_path_factory.mktemp("live-tls")
    server = start_tls_server(f"sqlite:///{workdir / 'registry.db'}", workdir / "server.log", pki, cert_reqs=1)
    try:
        yield server
    finally:
        server.stop()
