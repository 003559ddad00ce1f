"""Run the real registry under gunicorn, over real HTTP, for the interop tests.

The server is started through `sqlregistry serve` (as `python -m app.cli`, so an editable
install is not required), which means these tests also cover the CLI, the migration step in
the gunicorn master and the worker start-up path exactly as production runs them.
"""
from __future__ import annotations

import os
import shutil
import signal
import ssl
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from support.forkserver import ForkedProcess, ForkServer, eligible
from support.pki import TestPki
from support.postgres import free_port

REPO_ROOT = Path(__file__).resolve().parents[2]
# Turned on by the test suite (tests/conftest.py), never by the benchmarks: servers are forks of
# a process that imported the registry once (support/forkserver.py) instead of new interpreters.
FORK_SERVER: ForkServer | None = None


@dataclass
class LiveServer:
    url: str
    process: subprocess.Popen[bytes] | ForkedProcess
    log_path: Path

    def log_tail(self, size: int = 4000) -> str:
        try:
            return self.log_path.read_text(errors="replace")[-size:]
        except OSError:
            return ""

    def stop(self) -> None:
        """SIGTERM is gunicorn's graceful shutdown; escalate only if it hangs."""
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()


def start_server(
    database_url: str, log_path: Path, workers: int = 2, timeout: float = 60.0, env: dict[str, str] | None = None
) -> LiveServer:
    """Start `sqlregistry serve` on a free loopback port and return once `GET /` answers;
    `env` adds REGISTRY_* variables (or overrides the quiet log level)."""
    port = free_port()
    command = [
        sys.executable, "-m", "app.cli", "serve",
        "--host", "127.0.0.1", "--port", str(port), "--workers", str(workers), "--database-url", database_url,
    ]
    return launch(command, port, log_path, {"REGISTRY_LOG_LEVEL": "warning", **(env or {})}, timeout)


@dataclass(frozen=True)
class ScratchRegistry:
    """A registry on SQLite in a temporary directory, which also holds the caller's own files."""

    server: LiveServer
    workdir: Path


@contextmanager
def scratch_registry(prefix: str) -> Iterator[ScratchRegistry]:
    """`sqlregistry serve` on a new SQLite database in a new temporary directory (the
    benchmarks' registry); the server is stopped and the directory, with whatever the caller
    wrote there, removed at the end."""
    workdir = Path(tempfile.mkdtemp(prefix=prefix))
    try:
        server = start_server(f"sqlite:///{workdir / 'registry.db'}", workdir / "server.log")
        try:
            yield ScratchRegistry(server, workdir)
        finally:
            server.stop()
    finally:
        shutil.rmtree(workdir, ignore_errors=True)


def start_tls_server(
    database_url: str, log_path: Path, pki: TestPki, cert_reqs: int = 1, workers: int = 2,
    env: dict[str, str] | None = None, timeout: float = 60.0,
) -> LiveServer:
    """`sqlregistry serve` over HTTPS with the test PKI's server certificate; with
    `cert_reqs` 1 or 2, client certificates of the PKI's CA are asked for (2: required)."""
    port = free_port()
    command = [
        sys.executable, "-m", "app.cli", "serve",
        "--host", "127.0.0.1", "--port", str(port), "--workers", str(workers), "--database-url", database_url,
        "--certfile", str(pki.server.cert_path), "--keyfile", str(pki.server.key_path),
    ]
    if cert_reqs:
        command += ["--ca-certs", str(pki.ca.cert_path), "--cert-reqs", str(cert_reqs)]
    # The readiness probe presents a client certificate, which a server with --cert-reqs 2 needs.
    probe = pki.client_cn.client_context(pki.ca)
    return launch(command, port, log_path, {"REGISTRY_LOG_LEVEL": "warning", **(env or {})}, timeout, tls=probe)


def launch(
    command: list[str], port: int, log_path: Path, env: dict[str, str] | None = None, timeout: float = 60.0,
    tls: ssl.SSLContext | None = None,
) -> LiveServer:
    """Run an HTTP server command from the repository root, output to `log_path`, and return
    once it answers `GET /` on the loopback `port` (the benchmarks start other servers too);
    with `tls`, over HTTPS with that client context."""
    full_env = {**os.environ, "PYTHONUNBUFFERED": "1", **(env or {})}
    process: subprocess.Popen[bytes] | ForkedProcess
    if FORK_SERVER is not None and eligible(command):
        process = FORK_SERVER.spawn(command, REPO_ROOT, full_env, log_path)
    else:
        with log_path.open("wb") as log:
            process = subprocess.Popen(command, cwd=REPO_ROOT, env=full_env, stdout=log, stderr=subprocess.STDOUT,
                                       stdin=subprocess.DEVNULL)
    scheme = "https" if tls is not None else "http"
    server = LiveServer(url=f"{scheme}://127.0.0.1:{port}", process=process, log_path=log_path)
    name = " ".join(command[2:4])  # "app.cli serve", "gunicorn wsgi:app"
    if answers(process, server.url + "/", timeout, tls):
        return server
    if process.poll() is not None:
        raise RuntimeError(f"{name} exited with {process.returncode} before answering:\n{server.log_tail()}")
    server.stop()
    raise RuntimeError(f"{name} did not answer GET / within {timeout:.0f}s:\n{server.log_tail()}")


def answers(
    process: subprocess.Popen[bytes] | ForkedProcess, url: str, timeout: float, tls: ssl.SSLContext | None = None
) -> bool:
    """Whether `url` answers 200 within `timeout` seconds; False as soon as `process` exits."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            return False
        try:
            with urllib.request.urlopen(url, timeout=2, context=tls) as reply:
                if reply.status == 200:
                    return True
        except (urllib.error.URLError, ConnectionError, TimeoutError):
            pass
        time.sleep(0.05)
    return False
