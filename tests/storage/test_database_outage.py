"""A database that fails answers Confluent's 50001/50002 at once, and a database that comes
back is used again without a single failed request.

The PostgreSQL cases stop and start a cluster of their own (one per module), never the
session's shared one; each test gets a database copied from a template migrated once. The
bounds on how long a failing request may take are generous: they pin "answers instead of
hanging", not a speed.
"""
from __future__ import annotations

import json
import os
import shutil
import socket
import sqlite3
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from psycopg import sql
from sqlalchemy import Engine, event
from support.live import start_server
from support.postgres import PostgresCluster, PostgresUnavailable, start_cluster

from app.server.factory import create_app
from app.settings import Settings
from app.storage.migrate import upgrade_url

V1_JSON = "application/vnd.schemaregistry.v1+json"
# Nothing below waits on purpose, so anything slower than this is a hang.
PROMPT_S = 5.0


def _record(field: str) -> str:
    """A record any two of which are compatible both ways (the extra field has a default)."""
    fields = [{"name": "id", "type": "long"}, {"name": field, "type": "string", "default": ""}]
    return json.dumps({"type": "record", "name": "Event", "fields": fields})


@dataclass
class Reply:
    status: int
    body: Any
    seconds: float

    @property
    def error_code(self) -> int | None:
        return self.body.get("error_code") if isinstance(self.body, dict) else None


Send = Callable[[str, str, Any], Reply]


def flask_sender(app: Flask) -> Send:
    client = app.test_client()

    def send(method: str, path: str, body: Any = None) -> Reply:
        started = time.monotonic()
        data = json.dumps(body) if body is not None else None
        response = client.open(path, method=method, data=data, headers={"Content-Type": V1_JSON} if data else {})
        return Reply(response.status_code, response.get_json(silent=True), time.monotonic() - started)

    return send


def http_sender(base_url: str) -> Send:
    def send(method: str, path: str, body: Any = None) -> Reply:
        started = time.monotonic()
        data = json.dumps(body).encode() if body is not None else None
        request = urllib.request.Request(base_url + path, data=data, method=method,
                                         headers={"Content-Type": V1_JSON} if data else {})
        try:
            with urllib.request.urlopen(request, timeout=30) as reply:
                status, raw = reply.status, reply.read()
        except urllib.error.HTTPError as error:
            status, raw = error.code, error.read()
        return Reply(status, json.loads(raw) if raw else None, time.monotonic() - started)

    return send


# One of each kind of request: the cached read paths, a listing, a settings read, and writes.
READS = [
    ("GET", "/schemas/ids/1", None),
    ("GET", "/subjects/orders-value/versions/1", None),
    ("GET", "/subjects/orders-value/versions/latest", None),
    ("GET", "/subjects", None),
    ("GET", "/config", None),
]
WRITES = [
    ("POST", "/subjects/orders-value/versions", {"schema": _record("b")}),
    ("PUT", "/config/orders-value", {"compatibility": "NONE"}),
    ("DELETE", "/subjects/orders-value/versions/1", None),
]


def assert_store_failure(reply: Reply, codes: tuple[int, ...] = (50001, 50002)) -> None:
    assert reply.status == 500, reply
    assert reply.error_code in codes, reply
    assert isinstance(reply.body.get("message"), str) and "Traceback" not in reply.body["message"], reply
    assert reply.seconds < PROMPT_S, reply


def engine_of(app: Flask) -> Engine:
    """The app's engine: its pool is where an outage leaves dead connections."""
    return app.extensions["registry"].storage.engine


def close_app(app: Flask) -> None:
    app.extensions["registry"].storage.close()


def seed(send: Send) -> None:
    assert send("POST", "/subjects/orders-value/versions", {"schema": _record("a")}).status == 200


# ------------------------------------------------------------------ PostgreSQL
@pytest.fixture(scope="module")
def outage_cluster() -> Iterator[PostgresCluster]:
    """A cluster these tests may stop, apart from the session's shared one."""
    try:
        cluster = start_cluster()
    except PostgresUnavailable as exc:
        if os.environ.get("CI", "").strip().lower() not in ("", "0", "false", "no"):
            pytest.fail(f"CI must run the PostgreSQL tests, but: {exc}", pytrace=False)
        pytest.skip(f"PostgreSQL not available: {exc}")
    yield cluster
    cluster.stop()


@pytest.fixture(scope="module")
def outage_template(outage_cluster: PostgresCluster) -> str:
    name = outage_cluster.create_database("outage_template")
    upgrade_url(outage_cluster.url(name))
    return name


@pytest.fixture
def outage_url(outage_cluster: PostgresCluster, outage_template: str) -> Iterator[str]:
    name = outage_cluster.create_database("outage", template=outage_template)
    yield outage_cluster.url(name)
    if not _accepts_connections(outage_cluster):  # a test that failed half-way through its outage
        outage_cluster.start_server()
    outage_cluster.drop_database(name)


@pytest.fixture
def pg_app(outage_url: str) -> Iterator[Flask]:
    app = create_app(Settings(database_url=outage_url))
    yield app
    close_app(app)


def _accepts_connections(cluster: PostgresCluster) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", cluster.port), timeout=1):
            return True
    except OSError:
        return False


def fill_pool(app: Flask, connections: int = 3) -> None:
    """Leave several idle connections in the pool, as a busy worker would, so an outage
    leaves several dead ones there."""
    engine = engine_of(app)
    with ExitStack() as stack:
        for _ in range(connections):
            stack.enter_context(engine.connect()).exec_driver_sql("SELECT 1")


def stop(cluster: PostgresCluster, mode: str) -> None:
    if mode == "immediate":
        # The test cluster runs without fsync or synchronous commit; a checkpoint keeps the
        # seeded rows through the crash an immediate shutdown is.
        cluster.execute(sql.SQL("CHECKPOINT"))
    cluster.stop_server(mode)


@pytest.mark.postgres
@pytest.mark.parametrize("mode", ["fast", "immediate"])
def test_requests_during_a_postgres_outage_answer_store_errors_and_recovery_fails_none(
    pg_app: Flask, outage_cluster: PostgresCluster, mode: str
) -> None:
    send = flask_sender(pg_app)
    seed(send)
    fill_pool(pg_app)
    stop(outage_cluster, mode)

    for method, path, body in READS + WRITES:
        assert_store_failure(send(method, path, body))

    outage_cluster.start_server()
    assert send("GET", "/schemas/ids/1").status == 200
    assert send("POST", "/subjects/orders-value/versions", {"schema": _record("b")}).status == 200


@pytest.mark.postgres
@pytest.mark.parametrize("mode", ["fast", "immediate"])
@pytest.mark.parametrize("first", ["read", "write"])
def test_the_first_request_after_a_postgres_restart_succeeds_on_a_pool_of_dead_connections(
    pg_app: Flask, outage_cluster: PostgresCluster, mode: str, first: str
) -> None:
    send = flask_sender(pg_app)
    seed(send)
    fill_pool(pg_app)
    stop(outage_cluster, mode)
    outage_cluster.start_server()  # no request in between: every pooled connection is dead

    read = ("GET", "/subjects/orders-value/versions/latest", None)
    write = ("POST", "/subjects/orders-value/versions", {"schema": _record("b")})
    for method, path, body in [read, write] if first == "read" else [write, read]:
        reply = send(method, path, body)
        assert reply.status == 200, reply
    assert send("GET", "/subjects/orders-value/versions").body == [1, 2]


@pytest.mark.postgres
@pytest.mark.parametrize("request_", [READS[0], WRITES[0]], ids=["read", "write"])
def test_a_connection_cut_during_a_request_answers_50001_and_the_next_request_succeeds(
    pg_app: Flask, outage_cluster: PostgresCluster, request_: tuple[str, str, Any]
) -> None:
    send = flask_sender(pg_app)
    seed(send)
    engine = engine_of(pg_app)
    cut: list[int] = []

    def terminate_backend(conn: Any, *_args: Any) -> None:
        """The server ends this session between checkout and the request's first statement."""
        if not cut:
            pid = conn.connection.dbapi_connection.info.backend_pid
            outage_cluster.execute(sql.SQL("SELECT pg_terminate_backend({}, 5000)").format(sql.Literal(pid)))
            cut.append(pid)

    event.listen(engine, "before_cursor_execute", terminate_backend)
    try:
        assert_store_failure(send(*request_), codes=(50001,))
    finally:
        event.remove(engine, "before_cursor_execute", terminate_backend)
    assert cut
    assert send(*READS[0]).status == 200
    assert send(*WRITES[0]).status == 200


@pytest.fixture
def unresponsive_port() -> Iterator[int]:
    """A port that accepts TCP connections but never answers, like a host behind a dead proxy."""
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen(16)
        yield listener.getsockname()[1]


@pytest.mark.postgres
def test_an_unresponsive_postgres_answers_50002_after_the_connect_timeout(unresponsive_port: int) -> None:
    url = f"postgresql+psycopg://postgres@127.0.0.1:{unresponsive_port}/registry?connect_timeout=2"
    app = create_app(Settings(database_url=url, auto_migrate=False))
    send = flask_sender(app)
    try:
        for method, path, body in [READS[0], WRITES[0]]:
            assert_store_failure(send(method, path, body), codes=(50002,))
    finally:
        close_app(app)


@pytest.mark.postgres
def test_a_live_server_answers_json_during_an_outage_and_recovers_without_a_failed_request(
    outage_url: str, outage_cluster: PostgresCluster, tmp_path: Path
) -> None:
    server = start_server(outage_url, tmp_path / "server.log", workers=2)
    send = http_sender(server.url)
    latest = ("GET", "/subjects/orders-value/versions/latest", None)

    def burst() -> list[Reply]:
        """Concurrent reads, so every worker holds pooled connections (or must answer)."""
        with ThreadPoolExecutor(max_workers=4) as pool:
            return list(pool.map(lambda _: send(*latest), range(16)))

    try:
        seed(send)
        assert {r.status for r in burst()} == {200}
        # A quiet outage: nothing notices until the first requests after it.
        stop(outage_cluster, "fast")
        outage_cluster.start_server()
        assert [r.status for r in burst()] == [200] * 16, server.log_tail()
        assert send(*WRITES[0]).status == 200
        # An outage with traffic: every request answers Confluent's JSON, and then recovers.
        stop(outage_cluster, "fast")
        for method, path, body in [READS[0], READS[3], latest, WRITES[1]]:
            assert_store_failure(send(method, path, body))
        outage_cluster.start_server()
        assert [r.status for r in burst()] == [200] * 16, server.log_tail()
        assert send("POST", "/subjects/orders-value/versions", {"schema": _record("c")}).status == 200
    finally:
        server.stop()
    assert "Traceback" not in server.log_tail(100_000)


# ------------------------------------------------------------------ SQLite
@pytest.fixture
def sqlite_path(tmp_path: Path) -> Path:
    return tmp_path / "db" / "registry.db"


def sqlite_app(path: Path, lock_timeout_s: float = 30.0) -> Flask:
    return create_app(Settings(database_url=f"sqlite:///{path}?timeout={lock_timeout_s}"))


def test_writes_to_an_sqlite_file_locked_by_another_process_answer_50002_and_reads_go_on(sqlite_path: Path) -> None:
    app = sqlite_app(sqlite_path, lock_timeout_s=0.5)
    send = flask_sender(app)
    seed(send)
    holder = sqlite3.connect(sqlite_path, isolation_level=None)
    try:
        holder.execute("BEGIN IMMEDIATE")  # what a stuck writer in another process looks like
        for method, path, body in WRITES:
            assert_store_failure(send(method, path, body), codes=(50002,))
        for method, path, body in READS:  # WAL: readers never wait for the writer
            assert send(method, path, body).status == 200
        holder.execute("ROLLBACK")
    finally:
        holder.close()
    assert send(*WRITES[0]).status == 200


def _remove_directory(path: Path) -> None:
    shutil.rmtree(path.parent)


def _overwrite_with_garbage(path: Path) -> None:
    for leftover in (path.with_name(path.name + "-wal"), path.with_name(path.name + "-shm")):
        leftover.unlink(missing_ok=True)
    path.write_bytes(b"not a database " * 1000)


@pytest.mark.parametrize("damage", [_remove_directory, _overwrite_with_garbage], ids=["missing", "not-a-database"])
def test_an_sqlite_file_that_cannot_be_opened_answers_50001(sqlite_path: Path, damage: Callable[[Path], None]) -> None:
    app = sqlite_app(sqlite_path)
    send = flask_sender(app)
    seed(send)
    engine_of(app).dispose()  # the next request opens the file anew
    damage(sqlite_path)
    for method, path, body in READS + WRITES:
        assert_store_failure(send(method, path, body), codes=(50001,))
