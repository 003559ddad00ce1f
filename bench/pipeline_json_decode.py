"""JSON Schema decode of `app.pipeline` on Spark against a one-process loop of confluent-kafka's
`JSONDeserializer` over the same bytes, in one run.

N Confluent-framed JSON records (`tests/pipeline/format_samples.py`'s Reading: 9 properties,
nested object, array, map, date-time) are written once to a Parquet topic dump. Then, taking
turns over `--rounds` rounds (`bench/timing.py`; the best round of each counts):

- the loop: one process, confluent-kafka 2.16's `JSONDeserializer` (validating against the
  writer, its validator cached) per record, to dicts, no Spark; its per-batch times (batches of
  `--batch` records) give p50/p90/p99 (Spark's tasks are not timed one by one: its figure is
  the run's wall time);
- the pipeline on `local[2]` (Python path: `mapInArrow`, one validator per writer per worker):
  `decode(...)` to Spark's no-op sink, records validated and shaped into the reader's struct.

The registry runs under gunicorn on SQLite (`support.live`). Prints figures only.
`bench/pipeline_protobuf_decode.py` runs the same comparison for Protobuf (`compare`).

    python bench/pipeline_json_decode.py [--records 200000] [--rounds 2] [--batch 10000]
"""
from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "tests"))
sys.path.insert(0, str(REPO / "tests" / "pipeline"))

from format_samples import READING_V1, reading  # noqa: E402

from app.client import JsonSerializer, RegistryClient  # noqa: E402
from bench.pipeline_decode import bench_session, write_dump  # noqa: E402
from bench.timing import best_of_rounds, timed  # noqa: E402

SUBJECT = "bench-readings-value"


def arguments(doc: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=doc.split("\n\n")[0])
    parser.add_argument("--records", type=int, default=200_000)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--batch", type=int, default=10_000)
    return parser.parse_args()


def percentiles(seconds: list[float]) -> str:
    cuts = statistics.quantiles(seconds, n=100, method="inclusive")
    return f"p50 {cuts[49] * 1000:8.1f} ms  p90 {cuts[89] * 1000:8.1f} ms  p99 {cuts[98] * 1000:8.1f} ms"


def compare(args: argparse.Namespace, workdir: Path, client: RegistryClient, values: list[bytes], loop_name: str,
            deserialize: Callable[[bytes], Any], decode_options: dict[str, Any]) -> None:
    """The loop of `deserialize` over `values` against the pipeline's decode of the same bytes."""
    dump = workdir / "dump"
    write_dump(values, dump)
    print(f"records                        {args.records:>12,}  ({len(values[1])} bytes each)")
    batches: list[float] = []

    def loop() -> list[float]:
        def run() -> None:
            for start in range(0, len(values), args.batch):
                began = time.perf_counter()
                for value in values[start:start + args.batch]:
                    deserialize(value)
                batches.append(time.perf_counter() - began)
        return [timed(run)[0]]

    spark = bench_session({"spark.sql.shuffle.partitions": "2"})
    from app.pipeline import decode

    source = spark.read.parquet(str(dump))

    def pipeline() -> list[float]:
        return [timed(lambda: decode(source, "value", client, **decode_options).write.format("noop")
                      .mode("overwrite").save())[0]]

    pipeline()  # warm-up: the Python workers start and compile their writers, untimed

    def progress(round_number: int, name: str, seconds) -> None:
        print(f"  round {round_number + 1} {name:<34} {args.records / seconds[0]:12,.0f} records/s", flush=True)

    pipeline_name = "pipeline decode, local[2] -> noop"
    best = best_of_rounds(args.rounds, {loop_name: loop, pipeline_name: pipeline}, progress)
    rates = {name: args.records / seconds[0] for name, seconds in best.items()}
    print(f"best of {args.rounds} rounds (wall clock):")
    for name, rate in rates.items():
        print(f"  {name:<34} {rate:12,.0f} records/s")
    print(f"pipeline / loop                {rates[pipeline_name] / rates[loop_name]:12.2f}x")
    print(f"loop, per batch of {args.batch:,}:   {percentiles(batches)}")
    spark.stop()


def main() -> None:
    args = arguments(__doc__)
    from confluent_kafka.schema_registry import SchemaRegistryClient
    from confluent_kafka.schema_registry.json_schema import JSONDeserializer
    from confluent_kafka.serialization import MessageField, SerializationContext
    from support.live import scratch_registry

    with scratch_registry("bench-pipeline-json-") as scratch:
        client = RegistryClient(scratch.server.url)
        serialize = JsonSerializer(client, READING_V1, subject=SUBJECT)  # confluent's bytes (tests/client pin it)
        values = [serialize(reading(n)) for n in range(args.records)]
        confluent = SchemaRegistryClient({"url": scratch.server.url})
        deserializer = JSONDeserializer(None, schema_registry_client=confluent)
        context = SerializationContext("bench-readings", MessageField.VALUE)
        compare(args, scratch.workdir, client, values, "confluent JSONDeserializer loop",
                lambda value: deserializer(value, context), {"subject": SUBJECT})
        confluent.close()


if __name__ == "__main__":
    main()
