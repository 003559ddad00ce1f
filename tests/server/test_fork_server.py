"""The suite's fork server (tests/support/forkserver.py) stands in for a new interpreter: a
forked `sqlregistry serve` writes the same log and exits with the same status as a subprocess
running the same command, and is signalled, waited for and reaped as one."""
from __future__ import annotations

import signal
import socket
import sys
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest
from support.commands import run_command
from support.forkserver import ForkServer, eligible
from support.live import REPO_ROOT, answers
from support.postgres import free_port


@pytest.fixture
def fork_server() -> Iterator[ForkServer]:
    server = ForkServer()
    yield server
    server.close()


def serve_command(database_url: str, port: int) -> list[str]:
    return [sys.executable, "-m", "app.cli", "serve", "--host", "127.0.0.1", "--port", str(port),
            "--workers", "1", "--database-url", database_url]


def test_a_forked_serve_exits_and_logs_as_a_new_interpreter_does(fork_server: ForkServer, tmp_path: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        command = serve_command(f"sqlite:///{tmp_path / 'registry.db'}", taken.getsockname()[1])
        env = {"PATH": "/usr/bin:/bin", "REGISTRY_LOG_LEVEL": "warning"}
        fresh = run_command(command, cwd=REPO_ROOT, env=env, capture_output=True, text=True)
        forked = fork_server.spawn(command, REPO_ROOT, env, tmp_path / "forked.log")
        assert forked.wait(timeout=60) == fresh.returncode == 1
    assert (tmp_path / "forked.log").read_text() == fresh.stdout + fresh.stderr
    assert "already in use" in fresh.stderr
    assert not (tmp_path / "registry.db").exists()


def test_a_forked_server_answers_and_stops_on_sigterm_like_a_subprocess(
        fork_server: ForkServer, sqlite_at_head, tmp_path: Path) -> None:
    port = free_port()
    command = serve_command(sqlite_at_head(tmp_path / "registry.db"), port)
    assert eligible(command)
    process = fork_server.spawn(command, REPO_ROOT, {"PATH": "/usr/bin:/bin"}, tmp_path / "server.log")
    url = f"http://127.0.0.1:{port}"
    try:
        assert answers(process, url + "/", timeout=60), (tmp_path / "server.log").read_text()
        with urllib.request.urlopen(url + "/subjects", timeout=10) as reply:
            assert reply.read() == b"[]"
        assert process.poll() is None
    finally:
        process.send_signal(signal.SIGTERM)
    assert process.wait(timeout=30) == 0
    process.kill()  # a process already reaped is not signalled again
    assert process.poll() == 0


def test_only_this_interpreter_running_a_preloaded_module_is_forked() -> None:
    assert eligible([sys.executable, "-m", "gunicorn", "wsgi:app"])
    assert not eligible([sys.executable, "-c", "import app.cli.main"])
    assert not eligible(["/usr/bin/python3-other", "-m", "app.cli", "serve"])
    assert not eligible([sys.executable, "-m", "app.pipeline.job"])
