"""What a producer's `AssociatedNameStrategy` lookup costs: `GET
/associations/resources/-/{topic}?resourceType=topic&associationType=value` (the call
confluent-kafka 2.16's serializers make for each new topic) for a topic with an association
and for one without (the fallback case), against `GET /schemas/ids/{id}` (the hot read) as the
yardstick, on SQLite with `--topics` associated topics. Requests go through the WSGI app in
this process; p50/p90/p99 µs of each (best of `--rounds` interleaved rounds) and the ratios
to the hot read's are printed. Prints figures only.

    python bench/association_lookup.py [--topics 2000] [--requests 400] [--rounds 3]
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

from bench.timing import best_of_rounds  # noqa: E402

V1 = "application/vnd.schemaregistry.v1+json"
RECORD = json.dumps({"type": "record", "name": "Order", "fields": [{"name": "id", "type": "string"}]})


def percentiles(samples: list[float]) -> tuple[float, float, float]:
    cuts = statistics.quantiles(samples, n=100)
    return cuts[49], cuts[89], cuts[98]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--topics", type=int, default=2000)
    parser.add_argument("--requests", type=int, default=400)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()

    from app.server.factory import create_app
    from app.settings import Settings

    with tempfile.TemporaryDirectory() as workdir:
        app = create_app(Settings(database_url=f"sqlite:///{Path(workdir) / 'registry.db'}", audit=False))
        client = app.test_client()
        headers = {"Content-Type": V1}
        client.post("/subjects/shared-value/versions", data=json.dumps({"schema": RECORD}), headers=headers)
        for i in range(args.topics):
            body = {"resourceName": f"topic-{i}", "resourceNamespace": "lkc-1", "resourceId": f"id-{i}",
                    "associations": [{"subject": "shared-value", "associationType": "value"}]}
            assert client.post("/associations", data=json.dumps(body), headers=headers).status_code == 200

        def run(path: str) -> list[float]:
            samples = []
            for _ in range(args.requests):
                started = time.perf_counter()
                reply = client.get(path)
                samples.append((time.perf_counter() - started) * 1e6)
                assert reply.status_code == 200
            return sorted(samples)

        lookup = "?resourceType=topic&associationType=value"
        variants = {
            "GET /schemas/ids/1 (hot read)": lambda: run("/schemas/ids/1"),
            "lookup, associated topic": lambda: run(f"/associations/resources/-/topic-{args.topics // 2}{lookup}"),
            "lookup, unknown topic": lambda: run(f"/associations/resources/-/no-such-topic{lookup}"),
        }
        best = best_of_rounds(args.rounds, variants)
        app.extensions["registry"].storage.close()
    base = percentiles(best["GET /schemas/ids/1 (hot read)"])[0]
    print(f"{args.topics} associated topics, {args.requests} requests x {args.rounds} rounds (best round each)")
    for name, samples in best.items():
        p50, p90, p99 = percentiles(samples)
        print(f"{name:32s} p50 {p50:7.0f} µs  p90 {p90:7.0f} µs  p99 {p99:7.0f} µs  p50 ratio {p50 / base:4.2f}x")


if __name__ == "__main__":
    main()
