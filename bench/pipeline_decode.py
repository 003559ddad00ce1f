"""Decode throughput of `app.pipeline` on Spark against a plain fastavro loop, in one run.

N Confluent-framed records (8 mixed fields, 3 writer versions interleaved 1,2,3,1,2,3...) are
written once to a Parquet topic dump. Then, projected onto the latest version:

- a plain loop: one process, fastavro's `schemaless_reader` per record (writer/reader parsed
  once per version), no Spark;
- the pipeline on `local[2]`: `decode(...)` to Spark's no-op sink, and to Parquet.

Also printed: Spark session start-up time. The registry runs under gunicorn on SQLite
(`support.live`). Prints figures only; nothing is asserted.

    python bench/pipeline_decode.py [--records 1000000]
"""
from __future__ import annotations

import argparse
import json
import os
import resource
import sys
import tempfile
import time
from io import BytesIO
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "tests"))

from fastavro import parse_schema, schemaless_reader

from app.client import AvroSerializer, RegistryClient

BASE = [
    {"name": "id", "type": "long"},
    {"name": "customer", "type": "string"},
    {"name": "quantity", "type": "int"},
    {"name": "price", "type": "double"},
    {"name": "paid", "type": "boolean"},
    {"name": "at", "type": {"type": "long", "logicalType": "timestamp-millis"}},
]
EXTRA = [
    {"name": "email", "type": ["null", "string"], "default": None},
    {"name": "tags", "type": {"type": "array", "items": "string"}, "default": []},
]
VERSIONS = [json.dumps({"type": "record", "name": "Purchase", "namespace": "bench", "fields": BASE + EXTRA[:n]})
            for n in range(3)]


def record(version: int, n: int) -> dict:
    from datetime import datetime, timezone

    out = {"id": n, "customer": f"customer-{n % 997}", "quantity": n % 13, "price": n * 0.25, "paid": n % 2 == 0,
           "at": datetime(2026, 1, 1, tzinfo=timezone.utc)}
    if version >= 1:
        out["email"] = None if n % 3 else f"c{n}@example.com"
    if version >= 2:
        out["tags"] = ["a", "b"][: n % 3]
    return out


def plain_loop(values: list[bytes], client: RegistryClient) -> float:
    """Records/s of fastavro alone, schemas parsed once per writer id."""
    reader = parse_schema(json.loads(VERSIONS[-1]))
    writers: dict[bytes, object] = {}
    start = time.perf_counter()
    for data in values:
        header = data[:5]
        writer = writers.get(header)
        if writer is None:
            writer = writers[header] = parse_schema(json.loads(client.get_schema(int.from_bytes(header[1:], "big")).text))
        stream = BytesIO(data)
        stream.seek(5)
        schemaless_reader(stream, writer, reader)
    return len(values) / (time.perf_counter() - start)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--records", type=int, default=1_000_000)
    args = parser.parse_args()
    from support.live import start_server

    workdir = Path(tempfile.mkdtemp(prefix="bench-pipeline-"))
    server = start_server(f"sqlite:///{workdir / 'registry.db'}", workdir / "server.log")
    try:
        client = RegistryClient(server.url)
        serializers = [AvroSerializer(client, text, subject="purchases-value") for text in VERSIONS]
        values = [serializers[n % 3](record(n % 3, n)) for n in range(args.records)]
        print(f"records                        {args.records:>12,}")
        print(f"plain fastavro loop (1 proc)   {plain_loop(values, client):12,.0f} records/s")

        os.environ["PYSPARK_PYTHON"] = sys.executable
        os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
        start = time.perf_counter()
        from pyspark.sql import SparkSession

        spark = (SparkSession.builder.master("local[2]").config("spark.ui.enabled", "false")
                 .config("spark.driver.host", "127.0.0.1").config("spark.sql.shuffle.partitions", "2")
                 .config("spark.sql.session.timeZone", "UTC").getOrCreate())
        spark.sparkContext.setLogLevel("ERROR")
        print(f"spark start-up                 {time.perf_counter() - start:12.1f} s")
        from app.pipeline import decode

        dump = str(workdir / "dump")
        chunk = 200_000
        for i in range(0, len(values), chunk):
            rows = [(n, v) for n, v in enumerate(values[i:i + chunk], start=i)]
            spark.createDataFrame(rows, "offset long, value binary").write.mode("append").parquet(dump)
        del values
        source = spark.read.parquet(dump)
        # Warm-up: start the Python workers and fill their schema caches once, untimed.
        decode(source, "value", client, subject="purchases-value").write.format("noop").mode("overwrite").save()

        for sink in ("noop", "parquet"):
            decoded = decode(source, "value", client, subject="purchases-value", reader="latest")
            start = time.perf_counter()
            if sink == "noop":
                decoded.write.format("noop").mode("overwrite").save()
            else:
                decoded.write.mode("overwrite").parquet(str(workdir / "out"))
            rate = args.records / (time.perf_counter() - start)
            print(f"pipeline local[2] -> {sink:<9} {rate:12,.0f} records/s")
        driver_peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        print(f"driver (python) peak RSS       {driver_peak:12.0f} MiB")
        spark.stop()
    finally:
        server.stop()


if __name__ == "__main__":
    main()
