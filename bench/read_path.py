"""Read-path throughput of the registry under gunicorn, relative to a Flask hello world.

Serializers and deserializers in every producer and consumer hit the read endpoints, so
these are the ones that must stay cheap. Each server (hello world, then the registry on
SQLite, then on PostgreSQL when available) runs alone with the same gunicorn settings, and a
separate process drives keep-alive HTTP load at it over loopback: `wrk` when installed
(apt-get install wrk), otherwise a small threaded http.client generator. With wrk, one more
row reads ids spread over 1,000 schemas. Prints figures only.

    python bench/read_path.py [--duration 5] [--connections 32] [--workers 2] [--spread 1000] [--no-postgres]
"""
from __future__ import annotations

import argparse
import http.client
import json
import multiprocessing
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from support.live import LiveServer

REPO = Path(__file__).resolve().parents[1]
# The private PostgreSQL cluster the test suite uses (tests/support/postgres.py).
sys.path.insert(0, str(REPO / "tests"))

SCHEMA = json.dumps({
    "type": "record", "name": "Reading", "namespace": "bench",
    "fields": [{"name": f"f{i}", "type": "string", "default": ""} for i in range(20)],
})
CONTENT_TYPE = "application/vnd.schemaregistry.v1+json"


@dataclass
class Figures:
    requests: int
    seconds: float
    p50_ms: float
    p99_ms: float

    @property
    def rps(self) -> float:
        return self.requests / self.seconds


# ------------------------------------------------------------------ servers
def start_gunicorn(app_ref: str, env: dict[str, str], workers: int, threads: int, log: Path) -> LiveServer:
    """The same gunicorn flags for every target, so only the application differs."""
    from support.live import launch
    from support.postgres import free_port

    port = free_port()
    command = [
        sys.executable, "-m", "gunicorn", app_ref, "--bind", f"127.0.0.1:{port}", "--workers", str(workers),
        "--worker-class", "gthread", "--threads", str(threads), "--keep-alive", "75", "--log-level", "warning",
    ]
    return launch(command, port, log, env)


def prepare_registry(database_url: str) -> None:
    """Migrate before gunicorn starts: workers of a plain `gunicorn wsgi:app` would race to do it."""
    subprocess.run([sys.executable, "-m", "app.cli", "db", "upgrade", "--database-url", database_url],
                   cwd=REPO, check=True, stdout=subprocess.DEVNULL)


def register(base: str, subject: str, schema: str = SCHEMA) -> int:
    body = json.dumps({"schema": schema}).encode()
    request = urllib.request.Request(f"{base}/subjects/{subject}/versions", data=body, method="POST",
                                     headers={"Content-Type": CONTENT_TYPE})
    with urllib.request.urlopen(request, timeout=10) as reply:
        return json.load(reply)["id"]


# ------------------------------------------------------------------ load generators
def run_wrk(url: str, duration: float, connections: int, headers: Mapping[str, str] | None = None,
            script: Path | None = None) -> Figures:
    threads = max(1, min(connections, 2))
    header_flags = [f"-H{name}: {value}" for name, value in (headers or {}).items()]
    script_flags = ["-s", str(script)] if script is not None else []
    out = subprocess.run(
        ["wrk", f"-t{threads}", f"-c{connections}", f"-d{duration:.0f}s", "--latency", *header_flags, *script_flags,
         url],
        check=True, capture_output=True, text=True,
    ).stdout
    requests = int(re.search(r"(\d+) requests in", out).group(1))
    seconds = _wrk_time(re.search(r"requests in ([\d.]+\w+),", out).group(1))
    return Figures(requests, seconds, _wrk_percentile(out, "50%"), _wrk_percentile(out, "99%"))


def _wrk_time(text: str) -> float:
    value, unit = re.fullmatch(r"([\d.]+)(\w+)", text).groups()
    return float(value) * {"us": 1e-6, "ms": 1e-3, "s": 1.0, "m": 60.0}[unit]


def _wrk_percentile(out: str, label: str) -> float:
    return _wrk_time(re.search(rf"^\s*{label}\s+(\S+)", out, re.MULTILINE).group(1)) * 1000


def _python_load(host: str, port: int, path: str, duration: float, connections: int, pipe) -> None:
    """Child process: `connections` threads, each on one keep-alive connection, for `duration` s."""
    latencies: list[list[float]] = [[] for _ in range(connections)]
    start = time.perf_counter()
    deadline = start + duration

    def drive(bucket: list[float]) -> None:
        conn = http.client.HTTPConnection(host, port, timeout=10)
        while time.perf_counter() < deadline:
            began = time.perf_counter()
            conn.request("GET", path)
            reply = conn.getresponse()
            reply.read()
            if reply.status != 200:
                raise RuntimeError(f"GET {path}: HTTP {reply.status}")
            bucket.append(time.perf_counter() - began)
        conn.close()

    workers = [threading.Thread(target=drive, args=(bucket,)) for bucket in latencies]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    pipe.send(([x for bucket in latencies for x in bucket], time.perf_counter() - start))
    pipe.close()


def run_python(url: str, duration: float, connections: int) -> Figures:
    host_port, _, path = url.removeprefix("http://").partition("/")
    host, _, port = host_port.partition(":")
    receive, send = multiprocessing.Pipe(duplex=False)
    child = multiprocessing.get_context("spawn").Process(
        target=_python_load, args=(host, int(port), "/" + path, duration, connections, send)
    )
    child.start()
    samples, seconds = receive.recv()
    child.join()
    samples.sort()
    return Figures(len(samples), seconds, 1000 * samples[len(samples) // 2],
                   1000 * samples[min(len(samples) - 1, int(len(samples) * 0.99))])


# ------------------------------------------------------------------ driver
def measure(label: str, base: str, paths: list[str], args: argparse.Namespace, rows: list) -> None:
    drive = run_wrk if shutil.which("wrk") and not args.python_load else run_python
    for path in paths:
        drive(base + path, 1, args.connections)  # warm-up: caches, pools, worker imports
        rows.append((label, path, drive(base + path, args.duration, args.connections)))


def bench_registry(label: str, database_url: str, args: argparse.Namespace, workdir: Path, rows: list) -> None:
    prepare_registry(database_url)
    server = start_gunicorn("wsgi:app", {"REGISTRY_DATABASE_URL": database_url, "REGISTRY_LOG_LEVEL": "warning"},
                            args.workers, args.threads, workdir / f"{label}.log")
    base = server.url
    try:
        schema_id = register(base, "bench-value")
        paths = ["/", f"/schemas/ids/{schema_id}", "/subjects/bench-value/versions/1",
                 "/subjects/bench-value/versions/latest"]
        measure(label, base, paths, args, rows)
        if shutil.which("wrk") and not args.python_load and args.spread:
            measure_spread(label, base, args, workdir, rows)
    finally:
        server.stop()


def measure_spread(label: str, base: str, args: argparse.Namespace, workdir: Path, rows: list) -> None:
    """`GET /schemas/ids/{id}` over `--spread` schemas, each request the next id (wrk's Lua)."""
    ids = [register(base, f"spread-{n}", SCHEMA.replace('"Reading"', f'"Reading{n}"')) for n in range(args.spread)]
    script = workdir / "spread.lua"
    script.write_text(
        f"local first, count, n = {min(ids)}, {len(ids)}, 0\n"
        "request = function() n = n % count; n = n + 1; return wrk.format('GET', '/schemas/ids/' .. (first + n - 1)) end\n"
    )
    run_wrk(base + "/", 1, args.connections, script=script)  # warm-up: every id read once or more
    path = f"/schemas/ids/{{{min(ids)}..{max(ids)}}}"
    rows.append((label, path, run_wrk(base + "/", args.duration, args.connections, script=script)))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--duration", type=float, default=5.0, help="seconds of load per endpoint")
    parser.add_argument("--connections", type=int, default=32, help="concurrent keep-alive connections")
    parser.add_argument("--spread", type=int, default=1000,
                        help="also read ids spread over this many schemas (with wrk; 0: skip)")
    parser.add_argument("--workers", type=int, default=2, help="gunicorn workers (same for every server)")
    parser.add_argument("--threads", type=int, default=4, help="gthread threads per worker")
    parser.add_argument("--no-postgres", action="store_true", help="skip the PostgreSQL run")
    parser.add_argument("--python-load", action="store_true", help="use the Python generator even if wrk exists")
    args = parser.parse_args()

    rows: list[tuple[str, str, Figures]] = []
    workdir = Path(tempfile.mkdtemp(prefix="sqlreg-bench-"))
    cluster = None
    try:
        hello = start_gunicorn("bench.hello_app:app", {}, args.workers, args.threads, workdir / "hello.log")
        try:
            measure("hello-world", hello.url, ["/"], args, rows)
        finally:
            hello.stop()
        bench_registry("sqlite", f"sqlite:///{workdir / 'registry.db'}", args, workdir, rows)
        if not args.no_postgres:
            from support.postgres import PostgresUnavailable, start_cluster

            try:
                cluster = start_cluster()
            except PostgresUnavailable as exc:
                print(f"(PostgreSQL skipped: {exc})")
            else:
                bench_registry("postgres", cluster.url(cluster.create_database("bench")), args, workdir, rows)
    finally:
        if cluster is not None:
            cluster.stop()
        shutil.rmtree(workdir, ignore_errors=True)

    baseline = rows[0][2].rps
    generator = "wrk" if shutil.which("wrk") and not args.python_load else "python http.client"
    print(f"load: {generator}, {args.connections} keep-alive connections, {args.duration:.0f}s per row; "
          f"gunicorn gthread {args.workers} workers x {args.threads} threads; {os.cpu_count()} CPUs")
    print(f"{'server':<12} {'GET path':<40} {'req/s':>9} {'p50 ms':>8} {'p99 ms':>8} {'vs hello':>9}")
    for label, path, fig in rows:
        print(f"{label:<12} {path:<40} {fig.rps:>9.0f} {fig.p50_ms:>8.2f} {fig.p99_ms:>8.2f} {fig.rps / baseline:>9.2f}")


if __name__ == "__main__":
    main()
