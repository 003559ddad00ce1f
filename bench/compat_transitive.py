"""Cost of a transitive compatibility check against a long history.

BACKWARD_TRANSITIVE compares a new schema with every live version, so the check and the
registration behind it grow with the history. This loads 100 versions of a 50-field record
(each adding an optional field with a default; the subject is at NONE while loading), switches
the subject to BACKWARD_TRANSITIVE, then times `POST /compatibility/subjects/{s}/versions` and
the registration of versions 101 onwards: in process through Flask's test client (no network,
no gunicorn) and over HTTP against `sqlregistry serve`. Prints figures only.

    python bench/compat_transitive.py [--checks 20] [--registrations 5] [--postgres]
"""
from __future__ import annotations

import argparse
import http.client
import json
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "tests"))  # support.*: the fixtures' PostgreSQL cluster and server launcher

CONTENT_TYPE = "application/vnd.schemaregistry.v1+json"
BASE_FIELDS = 50
HISTORY = 100

# (method, path, body) -> (status, decoded JSON)
Send = Callable[[str, str, dict | None], tuple[int, object]]


def schema(version: int) -> str:
    """Version 1 has 50 fields; each later version adds one optional field with a default."""
    fields = [{"name": f"f{i}", "type": "long", "default": 0} for i in range(BASE_FIELDS)]
    fields += [{"name": f"extra{i}", "type": ["null", "string"], "default": None} for i in range(2, version + 1)]
    return json.dumps({"type": "record", "name": "Wide", "namespace": "bench", "fields": fields})


def flask_sender(database_url: str) -> Send:
    from app.server.factory import create_app
    from app.settings import Settings

    client = create_app(Settings(database_url=database_url)).test_client()

    def send(method: str, path: str, body: dict | None) -> tuple[int, object]:
        reply = client.open(path, method=method, json=body, headers={"Accept": CONTENT_TYPE})
        return reply.status_code, reply.get_json()

    return send


def http_sender(base_url: str) -> Send:
    host, _, port = base_url.removeprefix("http://").partition(":")
    conn = http.client.HTTPConnection(host, int(port), timeout=120)  # one keep-alive connection

    def send(method: str, path: str, body: dict | None) -> tuple[int, object]:
        payload = json.dumps(body).encode() if body is not None else None
        conn.request(method, path, body=payload, headers={"Content-Type": CONTENT_TYPE, "Accept": CONTENT_TYPE})
        reply = conn.getresponse()
        return reply.status, json.loads(reply.read() or b"null")

    return send


def expect(send: Send, method: str, path: str, body: dict | None = None) -> object:
    status, reply = send(method, path, body)
    if status != 200:
        raise RuntimeError(f"{method} {path}: HTTP {status} {reply}")
    return reply


def run(label: str, send: Send, args: argparse.Namespace) -> None:
    subject = "wide-" + label.replace("/", "-")
    expect(send, "PUT", f"/config/{subject}", {"compatibility": "NONE"})
    began = time.perf_counter()
    for version in range(1, HISTORY + 1):
        expect(send, "POST", f"/subjects/{subject}/versions", {"schema": schema(version)})
    load_s = time.perf_counter() - began
    expect(send, "PUT", f"/config/{subject}", {"compatibility": "BACKWARD_TRANSITIVE"})

    candidate = {"schema": schema(HISTORY + 1)}
    checks = []
    for _ in range(args.checks):
        began = time.perf_counter()
        verdict = expect(send, "POST", f"/compatibility/subjects/{subject}/versions", candidate)
        checks.append((time.perf_counter() - began) * 1000)
        if not verdict.get("is_compatible"):
            raise RuntimeError(f"expected a compatible verdict, got {verdict}")

    registrations = []
    for version in range(HISTORY + 1, HISTORY + 1 + args.registrations):
        began = time.perf_counter()
        expect(send, "POST", f"/subjects/{subject}/versions", {"schema": schema(version)})
        registrations.append((time.perf_counter() - began) * 1000)

    print(f"{label:<20} load {HISTORY} versions {load_s:6.2f}s | "
          f"check vs {HISTORY}: median {statistics.median(checks):7.1f} ms  min {min(checks):7.1f} ms | "
          f"register v{HISTORY + 1}: {registrations[0]:7.1f} ms"
          + (f"  (v{HISTORY + 2}..: median {statistics.median(registrations[1:]):.1f} ms)"
             if len(registrations) > 1 else ""))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--checks", type=int, default=20, help="timed compatibility checks per run")
    parser.add_argument("--registrations", type=int, default=5, help="versions registered after the first 100")
    parser.add_argument("--postgres", action="store_true", help="also run on a private PostgreSQL cluster")
    args = parser.parse_args()

    from support.live import start_server

    workdir = Path(tempfile.mkdtemp(prefix="sqlreg-compat-"))
    databases = {"sqlite": lambda name: f"sqlite:///{workdir / name}.db"}
    cluster = None
    if args.postgres:
        from support.postgres import start_cluster

        cluster = start_cluster()
        databases["postgres"] = lambda name: cluster.url(cluster.create_database(name))
    print(f"{HISTORY} versions of a {BASE_FIELDS}-field record, BACKWARD_TRANSITIVE")
    try:
        for kind, make_url in databases.items():
            run(f"{kind}/in-process", flask_sender(make_url("inproc")), args)
            server = start_server(make_url("http"), workdir / f"{kind}.log")
            try:
                run(f"{kind}/http", http_sender(server.url), args)
            finally:
                server.stop()
    finally:
        if cluster is not None:
            cluster.stop()
        shutil.rmtree(workdir, ignore_errors=True)


if __name__ == "__main__":
    main()
