"""Start-up time: from process start to the first answer to `GET /`, relative to a Flask hello world.

A fleet restarts instances on every deploy and systemd restarts a crashed one; how soon a new
process answers is what the balancer and the clients wait for. Each target is started several
times (round robin over the targets), alone, with the same gunicorn settings (gthread, same workers and threads) and polled
over loopback every few milliseconds until it answers 200:

- the hello world (`gunicorn bench.hello_app:app`), the baseline, and the same importing
  SQLAlchemy first (the floor for anything built on it);
- `sqlregistry serve` on a database already at head (a restart), on SQLite and PostgreSQL;
- `sqlregistry serve` on an empty database (a first start, which migrates);
- `gunicorn -c deploy/gunicorn.conf.py wsgi:app` on a database already at head.

Right after the first answer, `GET /subjects` is polled too: the first answer that needs the
database ("db read"; a worker builds its storage after its first answer, app/storage/deferred.py).

Our own modules are compiled to bytecode first (`compileall`, into the checkout's ignored
`__pycache__` folders), as `pip install` does for an installed package and for Flask and
gunicorn already: under PYTHONDONTWRITEBYTECODE (set in some shells and CI) a checkout would
otherwise compile every module of ours from source in every worker at every start, about
60 ms of CPU per worker that no installed server pays, while the hello world pays none.

Prints figures only. `python bench/startup.py [--runs 5] [--workers 2] [--no-postgres]`
"""
from __future__ import annotations

import argparse
import compileall
import http.client
import os
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
# The private PostgreSQL cluster the test suite uses (tests/support/postgres.py).
sys.path.insert(0, str(REPO / "tests"))

from support.postgres import free_port


@dataclass
class Target:
    label: str
    # Given a free port and a fresh scratch directory: the command and its extra environment.
    command: Callable[[int, Path], tuple[list[str], dict[str, str]]]


@dataclass
class Start:
    seconds: float  # wall clock, spawn to first 200
    cpu_seconds: float  # CPU the master and its workers had used by then (NaN off Linux)
    database_seconds: float  # wall clock, spawn to the first 200 of a read that needs the database


def tree_cpu_seconds(pid: int) -> float:
    """CPU time of a process and its direct children, from /proc (Linux).

    Wall time on a shared machine moves with everyone else's load; the CPU spent before the
    first answer does not, so it is printed beside it.
    """
    proc = Path("/proc")
    if not proc.is_dir():
        return float("nan")
    ticks = os.sysconf("SC_CLK_TCK")
    total = 0
    for stat in proc.glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rpartition(")")[2].split()
        except OSError:
            continue  # exited meanwhile
        # After the command name: state, ppid, ..., utime (index 11), stime (12).
        if stat.parent.name == str(pid) or fields[1] == str(pid):
            total += int(fields[11]) + int(fields[12])
    return total / ticks


def answered_after(command: list[str], env: dict[str, str], port: int, log: Path, limit: float = 60.0) -> Start:
    """Time from spawning `command` to its first 200 on `GET /`; the server is then stopped."""
    full_env = {**os.environ, "REGISTRY_LOG_LEVEL": "warning", **env}
    with log.open("wb") as out:
        began = time.perf_counter()
        process = subprocess.Popen(command, cwd=REPO, env=full_env, stdout=out, stderr=subprocess.STDOUT,
                                   stdin=subprocess.DEVNULL)
    try:
        while time.perf_counter() - began < limit:
            if process.poll() is not None:
                raise RuntimeError(f"{command} exited with {process.returncode}:\n{log.read_text()[-2000:]}")
            connection = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
            try:
                connection.request("GET", "/")
                if connection.getresponse().status == 200:
                    first, cpu = time.perf_counter() - began, tree_cpu_seconds(process.pid)
                    return Start(first, cpu, first_database_answer(port, began, limit))
            except OSError:
                time.sleep(0.005)
            finally:
                connection.close()
        raise RuntimeError(f"{command} did not answer within {limit:.0f}s:\n{log.read_text()[-2000:]}")
    finally:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def first_database_answer(port: int, began: float, limit: float) -> float:
    """Seconds from spawn to the first 200 of `GET /subjects` (a read of the database; the
    hello world answers it 404, which counts the same), asked right after the first answer."""
    while time.perf_counter() - began < limit:
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        try:
            connection.request("GET", "/subjects")
            if connection.getresponse().status in (200, 404):
                return time.perf_counter() - began
        except OSError:
            time.sleep(0.005)
        finally:
            connection.close()
    return float("nan")


def gunicorn_command(app_ref: str, port: int, workers: int, threads: int) -> list[str]:
    return [sys.executable, "-m", "gunicorn", app_ref, "--bind", f"127.0.0.1:{port}", "--workers", str(workers),
            "--worker-class", "gthread", "--threads", str(threads), "--keep-alive", "75", "--log-level", "warning"]


def serve_command(port: int, workers: int, threads: int, database_url: str) -> list[str]:
    return [sys.executable, "-m", "app.cli", "serve", "--host", "127.0.0.1", "--port", str(port),
            "--workers", str(workers), "--threads", str(threads), "--database-url", database_url]


def migrated(database_url: str) -> str:
    subprocess.run([sys.executable, "-m", "app.cli", "db", "upgrade", "--database-url", database_url],
                   cwd=REPO, check=True, stdout=subprocess.DEVNULL)
    return database_url


def targets(args: argparse.Namespace, workdir: Path, postgres_url: Callable[[], str] | None) -> list[Target]:
    w, t = args.workers, args.threads
    sqlite_at_head = migrated(f"sqlite:///{workdir / 'at-head.db'}")
    found = [
        Target("hello world", lambda port, _: (gunicorn_command("bench.hello_app:app", port, w, t), {})),
        # The floor for any app on this stack: the hello world that also imports SQLAlchemy
        # (its Core and ORM), as the registry must before it can answer a real request.
        Target("hello world + import sqlalchemy", lambda port, _: (
            [sys.executable, "-c", "import sqlalchemy.orm; from gunicorn.app.wsgiapp import run; run()",
             *gunicorn_command("bench.hello_app:app", port, w, t)[3:]], {})),
        Target("serve, SQLite at head", lambda port, _: (serve_command(port, w, t, sqlite_at_head), {})),
        Target("serve, SQLite empty (migrates)",
               lambda port, scratch: (serve_command(port, w, t, f"sqlite:///{scratch / 'new.db'}"), {})),
        Target("deploy conf, SQLite at head", lambda port, _: (
            [sys.executable, "-m", "gunicorn", "-c", "deploy/gunicorn.conf.py", "wsgi:app"],
            {"REGISTRY_DATABASE_URL": sqlite_at_head, "REGISTRY_HOST": "127.0.0.1", "REGISTRY_PORT": str(port),
             "REGISTRY_WORKERS": str(w), "REGISTRY_THREADS": str(t)})),
    ]
    if postgres_url is not None:
        pg_at_head = migrated(postgres_url())
        found.append(Target("serve, PostgreSQL at head", lambda port, _: (serve_command(port, w, t, pg_at_head), {})))
        found.append(Target("serve, PostgreSQL empty (migrates)",
                            lambda port, _: (serve_command(port, w, t, postgres_url()), {})))
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5, help="starts per target (median and best are printed)")
    parser.add_argument("--workers", type=int, default=2, help="gunicorn workers (same for every server)")
    parser.add_argument("--threads", type=int, default=4, help="gthread threads per worker")
    parser.add_argument("--no-postgres", action="store_true", help="skip the PostgreSQL runs")
    args = parser.parse_args()

    # Bytecode for our modules, as an installed package has it (see the module's docstring).
    for source in ("app", "bench", "wsgi.py", "deploy/gunicorn.conf.py"):
        path = REPO / source
        compiled = compileall.compile_dir(path, quiet=2) if path.is_dir() else compileall.compile_file(path, quiet=2)
        if not compiled:
            raise SystemExit(f"could not compile {path} to bytecode")
    workdir = Path(tempfile.mkdtemp(prefix="sqlreg-startup-"))
    cluster = None
    rows: list[tuple[str, list[Start]]] = []
    try:
        postgres_url = None
        if not args.no_postgres:
            from support.postgres import PostgresUnavailable, start_cluster

            try:
                cluster = start_cluster()
            except PostgresUnavailable as exc:
                print(f"(PostgreSQL skipped: {exc})")
            else:
                postgres_url = lambda: cluster.url(cluster.create_database("startup"))
        found = targets(args, workdir, postgres_url)
        rows = [(target.label, []) for target in found]
        # Round robin, so that a burst of load from elsewhere on the machine hits every target.
        for run in range(args.runs):
            for index, target in enumerate(found):
                scratch = workdir / f"{index}-{run}"
                scratch.mkdir()
                port = free_port()
                command, env = target.command(port, scratch)
                rows[index][1].append(answered_after(command, env, port, scratch / "server.log"))
    finally:
        if cluster is not None:
            cluster.stop()
        shutil.rmtree(workdir, ignore_errors=True)

    def medians(starts: list[Start]) -> tuple[float, float]:
        return statistics.median(s.seconds for s in starts), statistics.median(s.cpu_seconds for s in starts)

    wall_base, cpu_base = medians(rows[0][1])
    print(f"process start to first 200 on GET /; {args.runs} starts each; gunicorn gthread "
          f"{args.workers} workers x {args.threads} threads; {os.cpu_count()} CPUs; "
          "cpu = master + workers at the first answer")
    print(f"{'server':<36} {'median ms':>10} {'best ms':>8} {'vs hello':>9} {'cpu ms':>7} {'vs hello':>9} "
          f"{'db read ms':>11} {'vs hello':>9}")
    database_base = statistics.median(s.database_seconds for s in rows[0][1])
    for label, starts in rows:
        wall, cpu = medians(starts)
        best = min(s.seconds for s in starts)
        database = statistics.median(s.database_seconds for s in starts)
        print(f"{label:<36} {wall * 1000:>10.0f} {best * 1000:>8.0f} {wall / wall_base:>9.2f} "
              f"{cpu * 1000:>7.0f} {cpu / cpu_base:>9.2f} {database * 1000:>11.0f} {database / database_base:>9.2f}")


if __name__ == "__main__":
    main()
