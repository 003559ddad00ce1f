"""Live registries for the transfer tests: each test that writes gets its own, on SQLite or
PostgreSQL, under gunicorn; optionally behind the test middlewares of `wrapped_wsgi`."""
from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from support.live import REPO_ROOT, LiveServer, launch, start_server
from support.postgres import free_port

from app.storage.migrate import upgrade_url

HERE = Path(__file__).resolve().parent
Registry = Callable[..., str]


@pytest.fixture
def registry(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Registry]:
    """`registry("sqlite"|"postgres", shape=None|"7x", pause_at=None, pause_dir=None)`: the URL
    of a new, empty registry, stopped (and its database dropped) after the test;
    `database_url` serves an existing database instead."""
    servers: list[LiveServer] = []
    drops: list[Callable[[], None]] = []

    def start(kind: str, shape: str | None = None, pause_at: int | None = None,
              pause_dir: Path | None = None, database_url: str | None = None) -> str:
        index = len(servers)
        if database_url is not None:
            url = database_url
        elif kind == "sqlite":
            url = f"sqlite:///{tmp_path / f'registry-{index}.db'}"
        else:
            cluster = request.getfixturevalue("pg_cluster")
            name = cluster.create_database("transfer")
            url = cluster.url(name)
            drops.append(lambda: cluster.drop_database(name))
        log = tmp_path / f"server-{index}.log"
        if shape is None and pause_at is None:
            server = start_server(url, log, workers=1)
        else:
            upgrade_url(url)
            port = free_port()
            env = {"REGISTRY_DATABASE_URL": url, "REGISTRY_METRICS": "false", "REGISTRY_LOG_LEVEL": "warning"}
            if shape:
                env["TRANSFER_TEST_SHAPE"] = shape
            if pause_at is not None:
                env["TRANSFER_TEST_PAUSE_AT"] = str(pause_at)
                env["TRANSFER_TEST_PAUSE_DIR"] = str(pause_dir)
            command = [sys.executable, "-m", "gunicorn", "--bind", f"127.0.0.1:{port}", "--workers", "1",
                       "--threads", "4", "--chdir", str(HERE), "--pythonpath", str(REPO_ROOT), "wrapped_wsgi:app"]
            server = launch(command, port, log, env)
        servers.append(server)
        start.databases[server.url] = url  # type: ignore[attr-defined]
        return server.url

    start.databases = {}  # type: ignore[attr-defined]  # server URL -> its database URL
    yield start
    for server in servers:
        server.stop()
    for drop in drops:
        drop()
