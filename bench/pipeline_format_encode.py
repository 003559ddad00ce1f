"""JSON Schema and Protobuf encode of `app.pipeline` on Spark against a one-process loop of
confluent-kafka's own serializer over the same rows, in one run.

N rows of an 8-field record (long, string, int, double, boolean, timestamp, a nullable string,
a map of 3 entries) are written once to Parquet, and the schema derived from their columns
(`encode(..., schema_type=...)`) is registered. Then, per format, taking turns over `--rounds`
rounds (`bench/timing.py`; the best round of each counts):

- the loop: one process, confluent-kafka 2.16's `JSONSerializer` (validating every record, as
  the pipeline's does) or `ProtobufSerializer` per row, from the row as a dict (Protobuf: the
  message built from it first, as a producer holding rows must), no Spark;
- the pipeline on `local[2]` (Python path: `mapInArrow`, the client's serializer pinned to the
  version): `encode(...)` to Spark's no-op sink.

Checks only that the first rows' bytes read back in confluent-kafka's deserializer. Prints
records/s by wall clock and the ratio pipeline / loop. The registry runs under gunicorn on
SQLite (`support.live`). The JVM encoder writes Avro only (`bench/pipeline_encode.py`).

    python bench/pipeline_format_encode.py [--records 200000] [--rounds 2] [--formats JSON,PROTOBUF]
"""
from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "tests"))

from app.client import RegistryClient  # noqa: E402
from bench.pipeline_decode import bench_session  # noqa: E402
from bench.pipeline_encode import COLUMNS, row  # noqa: E402
from bench.timing import best_of_rounds, timed  # noqa: E402


def confluent_loop(schema_type: str, url: str, client: RegistryClient, subject: str,
                   rows: list[dict[str, Any]]) -> tuple[Callable[[], None], Callable[[bytes], Any]]:
    """The loop over `rows` with confluent-kafka's serializer of the subject's latest version,
    and its deserializer (for the check)."""
    from confluent_kafka.schema_registry import SchemaRegistryClient
    from confluent_kafka.serialization import MessageField, SerializationContext

    confluent = SchemaRegistryClient({"url": url})
    context = SerializationContext("bench-encode", MessageField.VALUE)
    conf = {"auto.register.schemas": False, "use.latest.version": True,
            "subject.name.strategy": lambda _context, _record: subject}
    if schema_type == "JSON":
        from confluent_kafka.schema_registry.json_schema import JSONDeserializer, JSONSerializer

        from app.pipeline.formats.json_schema_encoder import _timestamp

        serializer = JSONSerializer(client.get_version(subject, "latest").schema.text, confluent, conf=conf)
        as_json = [{**r, "at": _timestamp(r["at"])} for r in rows]

        def run() -> None:
            for record in as_json:
                serializer(record, context)
        deserializer = JSONDeserializer(None, schema_registry_client=confluent)
        return run, lambda data: deserializer(data, context)
    from confluent_kafka.schema_registry.protobuf import ProtobufDeserializer, ProtobufSerializer

    from app.pipeline.formats.protobuf_encoder import message_builder, writer_message

    version = client.get_version(subject, "latest").version
    message_class = writer_message(client, subject, version, None)
    build = message_builder(message_class.DESCRIPTOR, "Row")
    serializer = ProtobufSerializer(message_class, confluent, {**conf, "use.deprecated.format": False})
    as_pairs = [{**r, "attrs": list(r["attrs"].items())} for r in rows]  # as Arrow hands a map over

    def run() -> None:
        for record in as_pairs:
            serializer(message_class(**build(record)), context)
    deserializer = ProtobufDeserializer(message_class, {"use.deprecated.format": False})
    return run, lambda data: deserializer(data, context)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--records", type=int, default=200_000)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--formats", default="JSON,PROTOBUF")
    args = parser.parse_args()
    from support.live import scratch_registry

    with scratch_registry("bench-format-encode-") as scratch:
        from app.pipeline import encode

        spark = bench_session()
        client = RegistryClient(scratch.server.url)
        tuples = [row(n) for n in range(args.records)]
        spark.createDataFrame(tuples, COLUMNS).repartition(8).write.parquet(str(scratch.workdir / "rows"))
        source = spark.read.parquet(str(scratch.workdir / "rows"))
        names = source.columns
        rows = [dict(zip(names, values)) for values in tuples]
        print(f"records                        {args.records:>12,}  (8 fields, one a map of 3 entries)")
        for schema_type in args.formats.split(","):
            subject = f"bench-encode-{schema_type.lower()}-value"
            first = encode(source.limit(100), client, subject=subject, schema_type=schema_type).collect()
            loop, read = confluent_loop(schema_type, scratch.server.url, client, subject, rows)
            readable = all(read(r["value"]) is not None for r in first)
            print(f"{schema_type}: first 100 rows read by confluent-kafka's deserializer: {readable}")

            def pipeline() -> list[float]:
                return [timed(lambda: encode(source, client, subject=subject, schema_type=schema_type, engine="python")
                              .write.format("noop").mode("overwrite").save())[0]]

            def timed_loop() -> list[float]:
                return [timed(loop)[0]]

            pipeline()  # warm-up: the Python workers start and fetch the writer, untimed
            names_of = {"loop": f"confluent {schema_type} serializer loop", "pipeline": "pipeline encode -> noop"}
            best = best_of_rounds(args.rounds, {names_of["loop"]: timed_loop, names_of["pipeline"]: pipeline})
            rates = {name: args.records / seconds[0] for name, seconds in best.items()}
            print(f"best of {args.rounds} rounds (wall clock):")
            for name, rate in rates.items():
                print(f"  {name:<34} {rate:12,.0f} records/s")
            print(f"  pipeline / loop                  {rates[names_of['pipeline']] / rates[names_of['loop']]:8.2f}x",
                  flush=True)
        spark.stop()


if __name__ == "__main__":
    main()
