"""Encode throughput of `app.pipeline.encode` on Spark, JVM path against Python path, in one run.

N rows of an 8-field record (long, string, int, double, boolean, timestamp, a nullable string, a
map of 3 entries) are written once to Parquet. Then, taking turns over `--rounds` rounds
(`bench/timing.py`; the best round of each counts): a plain loop (one process, the client's
`AvroSerializer` per row, no Spark), and `encode(...)` on `local[2]` to Spark's no-op sink on
each path (`engine="jvm"`: the Java UDF; `"python"`: fastavro in Spark's Python workers). Prints
records/s by wall clock and per CPU-second (the JVM's and Python workers', from /proc), and
checks nothing but that both paths wrote the same bytes for the first rows.

    python bench/pipeline_encode.py [--records 500000] [--rounds 2]
"""
from __future__ import annotations

import argparse
import sys
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "tests"))

from app.client import AvroSerializer, PinnedVersion, RegistryClient  # noqa: E402
from bench.pipeline_decode import bench_session, spark_cpu  # noqa: E402
from bench.timing import best_of_rounds, timed  # noqa: E402

SUBJECT = "bench-encode-value"
COLUMNS = ("id long, customer string, quantity int, price double, paid boolean, at timestamp, note string, "
           "attrs map<string,string>")
EPOCH = datetime(2026, 1, 1, tzinfo=timezone.utc)


def row(n: int) -> tuple:
    return (n, f"customer-{n % 977}", n % 50, n * 0.25, n % 2 == 0, EPOCH + timedelta(milliseconds=n),
            None if n % 3 else f"note {n}", {"region": "eu", "tier": str(n % 4), "src": "bench"})


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--records", type=int, default=500_000)
    parser.add_argument("--rounds", type=int, default=2)
    args = parser.parse_args()
    from support.live import scratch_registry

    with scratch_registry("bench-encode-") as scratch:
        from app.pipeline import encode

        spark = bench_session()
        client = RegistryClient(scratch.server.url)
        rows = [row(n) for n in range(args.records)]
        spark.createDataFrame(rows, COLUMNS).repartition(8).write.parquet(str(scratch.workdir / "rows"))
        source = spark.read.parquet(str(scratch.workdir / "rows"))
        print(f"records                        {args.records:>12,}  (8 fields, one a map of 3 entries)")

        first = {engine: encode(source.orderBy("id").limit(200), client, subject=SUBJECT, keep=["id"],
                                engine=engine).collect() for engine in ("python", "jvm")}
        same = [r["value"] for r in first["python"]] == [r["value"] for r in first["jvm"]]
        print(f"first 200 rows, same bytes     {str(same):>12}")
        version = client.get_latest_version(SUBJECT).version
        serialize = AvroSerializer(client, subject=SUBJECT, writer=PinnedVersion(version))
        names = source.columns[1:]
        records = [dict(zip(names, r[1:])) for r in rows]

        def pipeline(engine: str) -> list[float]:
            def save() -> None:
                encode(source, client, subject=SUBJECT, keep=["id"], engine=engine).write.format("noop") \
                    .mode("overwrite").save()
            wall, cpu = timed(lambda: spark_cpu(save))
            return [wall, cpu]

        def loop() -> list[float]:
            def run() -> None:
                for record in records:
                    serialize(record)
            wall, cpu = timed(lambda: timed(run, time.process_time)[0])
            return [wall, cpu]

        best = best_of_rounds(args.rounds, {"plain serializer loop": loop, "python path -> noop":
                                            lambda: pipeline("python"), "jvm path -> noop": lambda: pipeline("jvm")})
        rates = {name: args.records / seconds[0] for name, seconds in best.items()}
        print(f"best of {args.rounds} rounds (wall clock; CPU-seconds of every process doing the work):")
        for name, seconds in best.items():
            print(f"  {name:<24} {rates[name]:12,.0f} records/s  {args.records / seconds[1]:10,.0f} per CPU-second")
        print(f"  jvm path is {rates['jvm path -> noop'] / rates['python path -> noop']:.2f}x the python path")
        spark.stop()


if __name__ == "__main__":
    main()
