"""Server time of the web UI's pages on a large registry.

Fills 10,000 subjects x 5 versions (each version adds a defaulted field, so every one is a
BACKWARD-compatible registration that also fills the field index), on SQLite and on
PostgreSQL, then times each page in process through the WSGI app (Flask's test client: the
server's work, no network) and prints the median and p95 in ms. Targets on the 2-core
machine: list and subject pages <= 100 ms p95, search <= 250 ms p95, diff <= 150 ms p95.
Figures only: nothing is asserted.

    python bench/ui.py [--subjects 10000] [--versions 5] [--samples 40] [--no-postgres] [--no-sqlite]
"""
from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "tests"))

from app.settings import Settings  # noqa: E402

FIELDS = ("amount", "currency", "customer", "created", "status", "note", "region", "channel")


def schema(subject_number: int, version: int) -> str:
    fields = [{"name": "id", "type": "long", "doc": "Row id"}]
    fields += [{"name": f"{FIELDS[(subject_number + i) % len(FIELDS)]}_{i}", "type": "string", "default": ""}
               for i in range(version)]
    return json.dumps({"type": "record", "name": f"Row{subject_number}", "namespace": "bench", "fields": fields})


def fill(database_url: str, subjects: int, versions: int) -> float:
    from app.core.types import SchemaRequest
    from app.wiring import build_registry

    service = build_registry(Settings(database_url=database_url, metrics=False))
    started = time.perf_counter()
    for n in range(subjects):
        for v in range(1, versions + 1):
            service.register(f"orders-{n:05d}-value", SchemaRequest(schema=schema(n, v)))
        if n and n % 1000 == 0:
            print(f"  filled {n} subjects ({time.perf_counter() - started:.0f} s)", flush=True)
    service.storage.close()
    return time.perf_counter() - started


def measure(label: str, database_url: str, subjects: int, samples: int) -> None:
    from app.server.factory import create_app

    app = create_app(Settings(database_url=database_url, metrics=False))
    client = app.test_client()
    middle = f"orders-{subjects // 2:05d}-value"
    pages = {
        "list /ui/": "/ui/",
        "list ?q=": "/ui/?q=00123",
        "list page 200": "/ui/?page=200",
        "search field": "/ui/search?q=amount_1",
        "subject": f"/ui/subjects/{middle}",
        "diff": f"/ui/subjects/{middle}/diff",
    }
    print(f"{label}: median / p95 server time over {samples} requests (ms)")
    for name, path in pages.items():
        assert client.get(path).status_code == 200, path  # warm: caches, connections, templates
        times = []
        for _ in range(samples):
            started = time.perf_counter()
            response = client.get(path)
            response.get_data()
            times.append((time.perf_counter() - started) * 1000)
        times.sort()
        p95 = times[min(len(times) - 1, int(round(0.95 * len(times))) - 1)]
        print(f"  {name:<16} {statistics.median(times):7.1f} {p95:7.1f}", flush=True)
    app.extensions["registry"].storage.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--subjects", type=int, default=10_000)
    parser.add_argument("--versions", type=int, default=5)
    parser.add_argument("--samples", type=int, default=40)
    parser.add_argument("--no-postgres", action="store_true")
    parser.add_argument("--no-sqlite", action="store_true")
    args = parser.parse_args()

    with tempfile.TemporaryDirectory() as work:
        targets = []
        if not args.no_sqlite:
            targets.append(("sqlite", lambda: f"sqlite:///{Path(work) / 'ui.db'}"))
        cluster = None
        if not args.no_postgres:
            from support.postgres import PostgresUnavailable, start_cluster

            try:
                cluster = start_cluster()
                targets.append(("postgres", lambda: cluster.url(cluster.create_database("ui"))))
            except PostgresUnavailable as exc:
                print(f"postgres skipped: {exc}")
        try:
            for label, make_url in targets:
                url = make_url()
                seconds = fill(url, args.subjects, args.versions)
                print(f"{label}: {args.subjects} subjects x {args.versions} versions registered in {seconds:.0f} s")
                measure(label, url, args.subjects, args.samples)
        finally:
            if cluster is not None:
                cluster.stop()


if __name__ == "__main__":
    main()
