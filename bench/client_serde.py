"""Serializer overhead of `app.client` against bare fastavro and confluent-kafka, in one run.

A 10-field Avro record is serialized and deserialized by: fastavro's `schemaless_writer` /
`schemaless_reader` alone (the floor: no framing, no registry), our `AvroSerializer` /
`AvroDeserializer` (Confluent framing, schema cached per id), and confluent-kafka's
`AvroSerializer` / `AvroDeserializer` against the same registry. The variants take turns
over several rounds and the best round of each counts (`bench/timing.py`, shared with
`pipeline_decode.py`), so a noisy neighbour on a small machine hurts all of them alike.
Also printed: cold start, the time from a new client to the first serialized record (one
registry round trip), for ours and confluent-kafka's, and the import time of `app.client`.
The registry runs under gunicorn on SQLite (`sqlregistry serve`). Prints figures only.

    python bench/client_serde.py [--records 20000] [--rounds 5]
"""
from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from io import BytesIO
from pathlib import Path
from typing import Any, Callable

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "tests"))

from confluent_kafka.schema_registry import SchemaRegistryClient  # noqa: E402
from confluent_kafka.schema_registry.avro import AvroDeserializer as ConfluentDeserializer  # noqa: E402
from confluent_kafka.schema_registry.avro import AvroSerializer as ConfluentSerializer  # noqa: E402
from confluent_kafka.serialization import MessageField, SerializationContext  # noqa: E402
from fastavro import parse_schema, schemaless_reader, schemaless_writer  # noqa: E402

from app.client import AvroDeserializer, AvroSerializer, RegistryClient  # noqa: E402
from bench.timing import best_of_rounds, timed  # noqa: E402

SCHEMA = json.dumps({
    "type": "record", "name": "Purchase", "namespace": "bench",
    "fields": [
        {"name": "id", "type": "long"},
        {"name": "customer", "type": "string"},
        {"name": "email", "type": ["null", "string"], "default": None},
        {"name": "quantity", "type": "int"},
        {"name": "price", "type": "double"},
        {"name": "discount", "type": "float"},
        {"name": "paid", "type": "boolean"},
        {"name": "at", "type": {"type": "long", "logicalType": "timestamp-millis"}},
        {"name": "status", "type": {"type": "enum", "name": "Status", "symbols": ["NEW", "PAID", "SHIPPED"]}},
        {"name": "tags", "type": {"type": "array", "items": "string"}},
    ],
})


def make_records(count: int) -> list[dict[str, Any]]:
    from datetime import datetime, timezone

    at = datetime(2026, 1, 1, tzinfo=timezone.utc)
    return [{
        "id": 10_000_000 + i, "customer": f"customer-{i % 997}", "email": None if i % 4 else f"c{i}@example.com",
        "quantity": i % 17, "price": 19.99 + i % 100, "discount": 0.5, "paid": bool(i % 2), "at": at,
        "status": ("NEW", "PAID", "SHIPPED")[i % 3], "tags": ["a", "b"][: i % 3],
    } for i in range(count)]


Serde = tuple[Callable[[Any], bytes], Callable[[bytes], Any]]


def bare_fastavro() -> Serde:
    parsed = parse_schema(json.loads(SCHEMA))

    def serialize(record: Any) -> bytes:
        out = BytesIO()
        schemaless_writer(out, parsed, record)
        return out.getvalue()

    def deserialize(data: bytes) -> Any:
        return schemaless_reader(BytesIO(data), parsed)

    return serialize, deserialize


def ours(url: str, subject: str) -> Serde:
    client = RegistryClient(url)
    return AvroSerializer(client, SCHEMA, subject=subject), AvroDeserializer(client)


def confluent(url: str, topic: str) -> Serde:
    client = SchemaRegistryClient({"url": url})
    context = SerializationContext(topic, MessageField.VALUE)
    serializer, deserializer = ConfluentSerializer(client, SCHEMA), ConfluentDeserializer(client)
    return (lambda record: serializer(record, context)), (lambda data: deserializer(data, context))


def time_round(serde: Serde, records: list[dict[str, Any]]) -> tuple[float, float]:
    """CPU seconds of this process (less sensitive than wall time to neighbours on a shared
    machine) to serialize every record, then to deserialize every result."""
    serialize, deserialize = serde
    write, framed = timed(lambda: [serialize(record) for record in records], time.process_time)
    read, _ = timed(lambda: [deserialize(data) for data in framed], time.process_time)
    return write, read


def cold_start(url: str, rounds: int) -> dict[str, float]:
    """Best ms from a new client to the first serialized record (the schema is registered
    already, so this is the one round trip a restarted producer pays)."""
    record = make_records(1)[0]
    best = {"ours": float("inf"), "confluent-kafka": float("inf")}
    for _ in range(rounds):
        started = time.perf_counter()
        AvroSerializer(RegistryClient(url), SCHEMA, subject="bench-value")(record)
        best["ours"] = min(best["ours"], (time.perf_counter() - started) * 1000)
        started = time.perf_counter()
        client = SchemaRegistryClient({"url": url})
        ConfluentSerializer(client, SCHEMA)(record, SerializationContext("bench", MessageField.VALUE))
        best["confluent-kafka"] = min(best["confluent-kafka"], (time.perf_counter() - started) * 1000)
    return best


def import_ms() -> float:
    """Best of three: wall time of `python -c "import app.client"` minus an empty interpreter."""
    def run(code: str) -> float:
        started = time.perf_counter()
        subprocess.run([sys.executable, "-c", code], cwd=REPO, check=True)
        return time.perf_counter() - started

    return min(run("import app.client") - run("pass") for _ in range(3)) * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--records", type=int, default=20_000)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()

    from support.live import scratch_registry

    with scratch_registry("client-serde-") as scratch:
        records = make_records(args.records)
        variants = {
            "fastavro alone": bare_fastavro(),
            "app.client": ours(scratch.server.url, "bench-value"),
            "confluent-kafka": confluent(scratch.server.url, "bench"),
        }
        for serde in variants.values():  # warm-up: registration, first fetches, parsing
            time_round(serde, records[:100])
        best = best_of_rounds(args.rounds, {name: (lambda serde=serde: time_round(serde, records))
                                            for name, serde in variants.items()})

        floor = best["fastavro alone"]
        print(f"{args.records} records of 10 fields, best of {args.rounds} rounds (µs per record)")
        print(f"{'':18}{'serialize':>11}{'deserialize':>13}{'round trip':>12}{'vs fastavro':>13}")
        for name, (write, read) in best.items():
            per = 1e6 / args.records
            ratio = (write + read) / (floor[0] + floor[1])
            print(f"{name:18}{write * per:11.2f}{read * per:13.2f}{(write + read) * per:12.2f}{ratio:12.2f}x")
        ours_total, theirs_total = sum(best["app.client"]), sum(best["confluent-kafka"])
        print(f"app.client overhead over fastavro: {(ours_total / sum(floor) - 1) * 100:+.1f}% "
              f"(serialize {(best['app.client'][0] / floor[0] - 1) * 100:+.1f}%, "
              f"deserialize {(best['app.client'][1] / floor[1] - 1) * 100:+.1f}%)")
        print(f"confluent-kafka / app.client: {theirs_total / ours_total:.2f}x")

        starts = cold_start(scratch.server.url, args.rounds)
        print("cold start to the first serialized record (best, ms): "
              + ", ".join(f"{name} {ms:.1f}" for name, ms in starts.items()))
        print(f"import app.client: {import_ms():.0f} ms")


if __name__ == "__main__":
    main()
