"""CPU cost of one read request inside the WSGI app, relative to a Flask hello world.

`read_path.py` measures throughput over HTTP, which on a shared 2-core machine swings with
whatever else runs. This measures what the registry itself adds: the process CPU time of N
requests driven straight through the WSGI callable (no sockets, no gunicorn), one thread,
for the hello world and for each read endpoint on SQLite and PostgreSQL. PostgreSQL's own
server time runs in another process, so the wall time per request is printed as well.
Prints figures only.

    python bench/read_cpu.py [--requests 20000] [--no-postgres]
"""
from __future__ import annotations

import argparse
import io
import json
import sys
import tempfile
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "tests"))
sys.path.insert(0, str(REPO / "bench"))

SCHEMA = json.dumps({
    "type": "record", "name": "Reading", "namespace": "bench",
    "fields": [{"name": f"f{i}", "type": "string", "default": ""} for i in range(20)],
})
CONTENT_TYPE = "application/vnd.schemaregistry.v1+json"
PATHS = ("/", "/schemas/ids/1", "/subjects/bench-value/versions/1", "/subjects/bench-value/versions/latest")

WsgiApp = Callable[[dict[str, Any], Callable[..., Any]], Iterable[bytes]]


def environ(path: str) -> dict[str, Any]:
    return {
        "REQUEST_METHOD": "GET", "PATH_INFO": path, "RAW_URI": path, "REQUEST_URI": path, "QUERY_STRING": "",
        "SERVER_NAME": "127.0.0.1", "SERVER_PORT": "8081", "SERVER_PROTOCOL": "HTTP/1.1",
        "HTTP_HOST": "127.0.0.1:8081", "HTTP_ACCEPT": "*/*",
        "wsgi.url_scheme": "http", "wsgi.input": io.BytesIO(b""), "wsgi.errors": sys.stderr,
        "wsgi.multithread": True, "wsgi.multiprocess": True, "wsgi.run_once": False, "wsgi.version": (1, 0),
    }


def measure(app: WsgiApp, path: str, requests: int) -> tuple[float, float]:
    """(CPU µs, wall µs) per request, after a warm-up."""
    statuses: list[str] = []

    def start_response(status: str, headers: list[tuple[str, str]], exc_info: Any = None) -> None:
        statuses.append(status)

    def once() -> None:
        body = app(environ(path), start_response)
        b"".join(body)
        if hasattr(body, "close"):
            body.close()

    for _ in range(200):
        once()
    if not statuses[-1].startswith("200"):
        raise RuntimeError(f"GET {path}: {statuses[-1]}")
    cpu, wall = time.process_time(), time.perf_counter()
    for _ in range(requests):
        once()
    return (time.process_time() - cpu) / requests * 1e6, (time.perf_counter() - wall) / requests * 1e6


def registry_app(database_url: str) -> WsgiApp:
    from app.server.factory import create_app
    from app.settings import Settings

    app = create_app(Settings(database_url=database_url))
    reply = app.test_client().post("/subjects/bench-value/versions", json={"schema": SCHEMA}, content_type=CONTENT_TYPE)
    if reply.status_code != 200:
        raise RuntimeError(reply.get_data(as_text=True))
    return app.wsgi_app


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--requests", type=int, default=20000)
    parser.add_argument("--no-postgres", action="store_true")
    args = parser.parse_args()

    from hello_app import app as hello

    base_cpu, base_wall = measure(hello.wsgi_app, "/", args.requests)
    print(f"{'server':<10} {'GET path':<40} {'cpu µs':>8} {'wall µs':>8} {'cpu vs hello':>13}")
    print(f"{'hello':<10} {'/':<40} {base_cpu:8.1f} {base_wall:8.1f} {1.0:13.2f}")
    targets: list[tuple[str, Callable[[], str]]] = []
    with tempfile.TemporaryDirectory() as tmp:
        targets.append(("sqlite", lambda: f"sqlite:///{tmp}/registry.db"))
        cluster = None
        if not args.no_postgres:
            from support.postgres import PostgresUnavailable, start_cluster

            try:
                cluster = start_cluster()
                targets.append(("postgres", lambda: cluster.url(cluster.create_database("bench"))))
            except PostgresUnavailable as exc:
                print(f"(PostgreSQL skipped: {exc})")
        try:
            for name, make_url in targets:
                app = registry_app(make_url())
                for path in PATHS:
                    cpu, wall = measure(app, path, args.requests)
                    print(f"{name:<10} {path:<40} {cpu:8.1f} {wall:8.1f} {base_cpu / cpu:13.2f}")
        finally:
            if cluster is not None:
                cluster.stop()


if __name__ == "__main__":
    main()
