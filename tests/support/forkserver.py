"""Start the test servers by forking a process that has imported the registry once.

Every live server a test starts (`sqlregistry serve`, or gunicorn on a test WSGI module) would
otherwise spend about a second of CPU importing Flask, SQLAlchemy, Alembic, gunicorn and the
registry before it answers; the suite starts some two hundred of them on two cores. Here one
process per pytest process imports those modules, and each server is a fork of it that then
runs the same command-line entry point (`python -m app.cli serve ...`, `python -m gunicorn
...`) with the test's arguments, environment, working directory and log file, as a fresh
interpreter would: the master parses its arguments, migrates or probes the database and forks
its gunicorn workers, which build the app and serve real HTTP.

What a fork cannot share is left out of the preload: prometheus-client chooses its multiprocess
mode when it is imported, from a variable the master sets just before forking its workers
(app/server/serving.py), so it and `app.metrics` are imported by each server as before.
Tests that look at start-up itself (what a process imports, how long it takes) run commands
of their own, and the benchmarks never use this: `support.live` forks only when the test
suite's conftest turns it on.

The process talks over its stdin and stdout, one JSON object per line: `spawn` answers with
the new server's pid, `poll` with its exit status once it has exited (this process is its
parent, so only it can reap it).
"""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
import traceback
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[2]
# What the registry's servers import before answering, apart from prometheus-client, and
# apart from the modules a command runs (`app.cli.main`): run as `__main__` once imported, runpy
# warns that they were.
PRELOAD = (
    "app.server.serving", "app.server.preload", "app.server.factory", "app.server.gunicorn_worker",
    "app.storage.migrate", "app.storage.repository", "app.server.runners.exporters", "app.wiring",
    "app.formats.avro.format", "app.formats.json_schema.format", "app.formats.protobuf.format",
    "gunicorn.app.wsgiapp", "gunicorn.arbiter", "gunicorn.workers.gthread", "gunicorn.glogging",
    "alembic.command", "alembic.config", "alembic.runtime.migration",
    "sqlalchemy.dialects.sqlite", "sqlalchemy.dialects.postgresql.psycopg", "psycopg", "sqlite3",
)
# The commands a fork may stand for: `python -m <module> ...`.
MODULES = ("app.cli", "gunicorn")


def eligible(command: list[str]) -> bool:
    """Whether `command` is this interpreter running one of the modules the fork server has loaded."""
    return len(command) > 2 and command[0] == sys.executable and command[1] == "-m" and command[2] in MODULES


class ForkedProcess:
    """The part of `subprocess.Popen` the tests use, for a server the fork server started."""

    def __init__(self, server: ForkServer, pid: int, args: list[str]) -> None:
        self._server = server
        self.pid = pid
        self.args = args
        self.returncode: int | None = None

    def poll(self) -> int | None:
        if self.returncode is None:
            self.returncode = self._server.exit_status(self.pid)
        return self.returncode

    def wait(self, timeout: float | None = None) -> int:
        deadline = None if timeout is None else time.monotonic() + timeout
        while self.poll() is None:
            if deadline is not None and time.monotonic() > deadline:
                raise subprocess.TimeoutExpired(self.args, timeout or 0)
            time.sleep(0.02)
        assert self.returncode is not None
        return self.returncode

    def send_signal(self, sig: int) -> None:
        # Never after the fork server reaped it: its pid could belong to another process by then.
        if self.poll() is None:
            os.kill(self.pid, sig)

    def terminate(self) -> None:
        self.send_signal(signal.SIGTERM)

    def kill(self) -> None:
        self.send_signal(signal.SIGKILL)


class ForkServer:
    """The client side: starts the fork server on first use, one per pytest process."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._process: subprocess.Popen[bytes] | None = None

    def spawn(self, command: list[str], cwd: Path, env: dict[str, str], log_path: Path) -> ForkedProcess:
        reply = self._call({"op": "spawn", "argv": command[2:], "cwd": str(cwd), "env": env, "log": str(log_path)})
        return ForkedProcess(self, int(reply["pid"]), command)

    def exit_status(self, pid: int) -> int | None:
        return self._call({"op": "poll", "pid": pid})["returncode"]

    def close(self) -> None:
        with self._lock:
            if self._process is not None and self._process.poll() is None:
                assert self._process.stdin is not None
                self._process.stdin.close()
                self._process.wait(timeout=30)

    def _call(self, request: dict[str, object]) -> dict[str, object]:
        with self._lock:
            if self._process is None or self._process.poll() is not None:
                self._process = subprocess.Popen(
                    [sys.executable, __file__], cwd=REPO_ROOT, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                    env={**os.environ, "PYTHONUNBUFFERED": "1"})
            assert self._process.stdin is not None and self._process.stdout is not None
            self._process.stdin.write(json.dumps(request).encode() + b"\n")
            self._process.stdin.flush()
            line = self._process.stdout.readline()
        if not line:
            raise RuntimeError("the test fork server exited (see the test's stderr)")
        reply = json.loads(line)
        if "error" in reply:
            raise RuntimeError(f"the test fork server could not start {request.get('argv')}: {reply['error']}")
        return reply


def _serve() -> None:
    """The fork server's loop: requests on stdin, replies on stdout, until stdin closes."""
    sys.path[0] = str(REPO_ROOT)  # as `python -m` from the repository root has it
    for module in PRELOAD:
        __import__(module)
    if "prometheus_client" in sys.modules:
        raise SystemExit("the fork server's preload imported prometheus_client, which a fork cannot share")
    if "app.cli" in sys.modules or "gunicorn.__main__" in sys.modules:
        raise SystemExit("the fork server's preload imported what its forks run as __main__")
    if threading.active_count() > 1:  # a fork copies only the forking thread, not the locks others hold
        raise SystemExit("the fork server's preload started a thread; forking it would be unsafe")
    requests, replies = sys.stdin.buffer, sys.stdout.fileno()
    for line in requests:
        request = json.loads(line)
        try:
            if request["op"] == "spawn":
                reply: dict[str, object] = {"pid": _fork(request)}
            else:
                pid, status = os.waitpid(request["pid"], os.WNOHANG)
                reply = {"returncode": os.waitstatus_to_exitcode(status) if pid else None}
        except Exception as exc:  # noqa: BLE001 - the test reads it as a RuntimeError
            reply = {"error": f"{type(exc).__name__}: {exc}"}
        os.write(replies, json.dumps(reply).encode() + b"\n")


def _fork(request: dict) -> int:
    log = os.open(request["log"], os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    pid = os.fork()
    if pid:
        os.close(log)
        return pid
    code = 1
    try:
        devnull = os.open(os.devnull, os.O_RDONLY)
        os.dup2(devnull, 0)
        os.dup2(log, 1)
        os.dup2(log, 2)
        os.close(devnull)
        os.close(log)
        os.chdir(request["cwd"])
        os.environ.clear()
        os.environ.update(request["env"])
        code = _run_module(request["argv"])
    except BaseException:  # noqa: BLE001 - a fork must never return into the server's loop
        traceback.print_exc()
    finally:
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code)


def _run_module(argv: list[str]) -> int:
    """`python -m argv[0] argv[1:]` in this process: its exit status, as the interpreter's."""
    import atexit
    import runpy

    sys.argv = list(argv)
    code: int = 0
    try:
        runpy.run_module(argv[0], run_name="__main__", alter_sys=True)
    except SystemExit as exc:
        if exc.code is None:
            code = 0
        elif isinstance(exc.code, int):
            code = exc.code
        else:
            print(exc.code, file=sys.stderr)
            code = 1
    except BaseException:  # noqa: BLE001 - printed as the interpreter would
        traceback.print_exc()
        code = 1
    atexit._run_exitfuncs()
    return code


if __name__ == "__main__":
    _serve()
