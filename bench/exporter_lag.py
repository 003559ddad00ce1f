"""Exporter lag: seconds from a registration on the source to its visibility on the
target, through a running exporter between two `sqlregistry serve` registries on loopback.

Each of `--registrations` new subjects is registered on the source, then the target is polled
(every 5 ms, at most `--deadline` seconds) until the version answers there; the figures are the
p50/p90/p99 and the worst of those delays. Registrations are sequential, so each measures one
change found through the change token and copied by one pass.

    python bench/exporter_lag.py [--registrations 300] [--postgres] [--deadline 30]
"""
from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

import requests

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "tests"))

from support.live import start_server  # noqa: E402

JSON = {"Content-Type": "application/vnd.schemaregistry.v1+json"}


def schema(i: int) -> str:
    return json.dumps({"type": "record", "name": f"Lag{i}", "fields": [{"name": "id", "type": "long"}]})


def percentile(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(p / 100 * (len(ordered) - 1))))]


def measure(source: str, target: str, registrations: int, deadline: float) -> list[float]:
    http = requests.Session()
    http.post(f"{source}/exporters", headers=JSON, timeout=10, data=json.dumps(
        {"name": "lag", "subjects": ["lag-*"], "contextType": "NONE", "config": {"schema.registry.url": target}}))
    lags = []
    for i in range(registrations):
        subject = f"lag-{i:05d}"
        reply = http.post(f"{source}/subjects/{subject}/versions", headers=JSON, timeout=10,
                          data=json.dumps({"schema": schema(i)}))
        reply.raise_for_status()
        started = time.perf_counter()
        end = started + deadline
        while time.perf_counter() < end:
            if http.get(f"{target}/subjects/{subject}/versions/1", timeout=10).status_code == 200:
                lags.append(time.perf_counter() - started)
                break
            time.sleep(0.005)
        else:
            print(f"{subject}: not on the target within {deadline:.0f}s", file=sys.stderr)
    return lags


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--registrations", type=int, default=300)
    parser.add_argument("--deadline", type=float, default=30.0)
    parser.add_argument("--postgres", action="store_true", help="both registries on PostgreSQL (else SQLite)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        directory = Path(tmp)
        cluster = None
        if args.postgres:
            from support.postgres import start_cluster

            cluster = start_cluster()
            urls = [cluster.url(cluster.create_database(f"lag{i}")) for i in range(2)]
        else:
            urls = [f"sqlite:///{directory / f'registry-{i}.db'}" for i in range(2)]
        servers = [start_server(url, directory / f"server-{i}.log", workers=1) for i, url in enumerate(urls)]
        try:
            lags = measure(servers[0].url, servers[1].url, args.registrations, args.deadline)
        finally:
            for server in servers:
                server.stop()
            if cluster is not None:
                cluster.stop()
    kind = "PostgreSQL" if args.postgres else "SQLite"
    print(f"exporter lag, {kind}, {len(lags)}/{args.registrations} registrations seen on the target: "
          f"p50 {percentile(lags, 50):.3f} s, p90 {percentile(lags, 90):.3f} s, p99 {percentile(lags, 99):.3f} s, "
          f"max {max(lags):.3f} s, mean {statistics.mean(lags):.3f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
