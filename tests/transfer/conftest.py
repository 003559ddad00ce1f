"""Live registries for the transfer tests: each test that writes gets its own, on SQLite or
PostgreSQL, under gunicorn; optionally behind the test middlewares of `wrapped_wsgi`."""
from __future__ import annotations

import ssl
import subprocess
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from support.live import REPO_ROOT, LiveServer, launch, start_server
from support.postgres import free_port

from app.storage.migrate import upgrade_url

HERE = Path(__file__).resolve().parent


@dataclass(frozen=True)
class Tls:
    """PEM files: the CA, the server's certificate and key, and a client certificate the CA
    signed; `require_client` makes the server ask for it (mutual TLS)."""

    ca: Path
    cert: Path
    key: Path
    client_cert: Path
    client_key: Path
    require_client: bool = False


@pytest.fixture(scope="session")
def tls_files(tmp_path_factory: pytest.TempPathFactory) -> Tls:
    """A private CA, a server certificate for 127.0.0.1 and a client certificate (openssl)."""
    d = tmp_path_factory.mktemp("tls")

    def openssl(*args: str) -> None:
        subprocess.run(["openssl", *args], cwd=d, check=True, capture_output=True)

    openssl("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj", "/CN=test-ca",
            "-keyout", "ca.key", "-out", "ca.pem")
    (d / "san.ext").write_text("subjectAltName=IP:127.0.0.1\n")
    for name in ("server", "client"):
        openssl("req", "-newkey", "rsa:2048", "-nodes", "-subj", f"/CN={name}", "-keyout", f"{name}.key",
                "-out", f"{name}.csr")
        openssl("x509", "-req", "-in", f"{name}.csr", "-CA", "ca.pem", "-CAkey", "ca.key", "-CAcreateserial",
                "-days", "2", "-extfile", "san.ext", "-out", f"{name}.pem")
    return Tls(d / "ca.pem", d / "server.pem", d / "server.key", d / "client.pem", d / "client.key")


def _start_tls(database_url: str, log: Path, tls: Tls) -> LiveServer:
    """gunicorn with TLS (and optionally client certificates), answering once HTTPS works."""
    upgrade_url(database_url)
    port = free_port()
    command = [sys.executable, "-m", "gunicorn", "--bind", f"127.0.0.1:{port}", "--workers", "1",
               "--chdir", str(HERE), "--pythonpath", str(REPO_ROOT), "--certfile", str(tls.cert),
               "--keyfile", str(tls.key), "wrapped_wsgi:app"]
    if tls.require_client:
        command += ["--ca-certs", str(tls.ca), "--cert-reqs", str(int(ssl.CERT_REQUIRED))]
    context = ssl.create_default_context(cafile=str(tls.ca))
    context.load_cert_chain(str(tls.client_cert), str(tls.client_key))
    return launch(command, port, log, {"REGISTRY_DATABASE_URL": database_url, "REGISTRY_METRICS": "false",
                                       "REGISTRY_LOG_LEVEL": "warning"}, tls=context)


@pytest.fixture
def empty_pg(pg_cluster, pg_template: str) -> Iterator[str]:
    """The URL of a new PostgreSQL database at the migration head, with no server on it."""
    name = pg_cluster.create_database("transfer-db", template=pg_template)
    yield pg_cluster.url(name)
    pg_cluster.drop_database(name)


Registry = Callable[..., str]


@pytest.fixture
def registry(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Registry]:
    """`registry("sqlite"|"postgres", shape=None|"7x"|"no-max-id", pause_at=None, pause_dir=None,
    tls=None, authorization=None, write_log=None, env=None)`: the URL
    of a new, empty registry, stopped (and its database dropped) after the test;
    `database_url` serves an existing database instead; `env` adds `TRANSFER_TEST_*` variables
    for wrapped_wsgi's other middlewares."""
    servers: list[LiveServer] = []
    drops: list[Callable[[], None]] = []

    def start(kind: str, shape: str | None = None, pause_at: int | None = None,
              pause_dir: Path | None = None, database_url: str | None = None, tls: Tls | None = None,
              authorization: list[str] | None = None, write_log: Path | None = None,
              env: dict[str, str] | None = None) -> str:
        index = len(servers)
        if database_url is not None:
            url = database_url
        elif kind == "sqlite":
            url = request.getfixturevalue("sqlite_at_head")(tmp_path / f"registry-{index}.db")
        else:
            cluster = request.getfixturevalue("pg_cluster")
            name = cluster.create_database("transfer", template=request.getfixturevalue("pg_template"))
            url = cluster.url(name)
            drops.append(lambda: cluster.drop_database(name))
        log = tmp_path / f"server-{index}.log"
        if tls is not None:
            server = _start_tls(url, log, tls)
        elif shape is None and pause_at is None and authorization is None and write_log is None and not env:
            server = start_server(url, log, workers=1)
        else:
            upgrade_url(url)
            port = free_port()
            variables = {"REGISTRY_DATABASE_URL": url, "REGISTRY_METRICS": "false", "REGISTRY_LOG_LEVEL": "warning",
                         **(env or {})}
            if shape:
                variables["TRANSFER_TEST_SHAPE"] = shape
            if authorization:
                variables["TRANSFER_TEST_AUTHORIZATION"] = "|".join(authorization)
            if write_log is not None:
                variables["TRANSFER_TEST_WRITE_LOG"] = str(write_log)
            if pause_at is not None:
                variables["TRANSFER_TEST_PAUSE_AT"] = str(pause_at)
                variables["TRANSFER_TEST_PAUSE_DIR"] = str(pause_dir)
            command = [sys.executable, "-m", "gunicorn", "--bind", f"127.0.0.1:{port}", "--workers", "1",
                       "--threads", "4", "--chdir", str(HERE), "--pythonpath", str(REPO_ROOT), "wrapped_wsgi:app"]
            server = launch(command, port, log, variables)
        servers.append(server)
        start.databases[server.url] = url  # type: ignore[attr-defined]
        return server.url

    start.databases = {}  # type: ignore[attr-defined]  # server URL -> its database URL
    yield start
    for server in servers:
        server.stop()
    for drop in drops:
        drop()
