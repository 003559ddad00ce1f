"""Serializer speed with and without an ENCRYPT rule, ours beside confluent-kafka's, in one run.

A 6-field Avro record whose `ssn` field carries the PII tag is serialized by our
`AvroSerializer` and confluent-kafka's, each on a subject without rules and on a subject whose
ENCRYPT rule (local KMS, AES256_GCM) covers `ssn`; the deserializers then read every record
back. Per-record wall times (ns) are taken in interleaved batches, so a noisy neighbour hurts
every variant alike; printed are p50/p90/p99 per variant and the ratios that matter: the cost
of the rule in each client, and ours against confluent-kafka's. The registry runs under
gunicorn on SQLite (`sqlregistry serve`); DEKs are made on the warm-up records, so what is
timed is the steady state (one DEK, cached). Prints figures only.

    python bench/client_rules.py [--records 4000] [--batches 8]
"""
from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
import uuid
from pathlib import Path
from typing import Any, Callable

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "tests"))

from confluent_kafka.schema_registry import SchemaRegistryClient  # noqa: E402
from confluent_kafka.schema_registry.avro import AvroDeserializer as ConfluentDeserializer  # noqa: E402
from confluent_kafka.schema_registry.avro import AvroSerializer as ConfluentSerializer  # noqa: E402
from confluent_kafka.schema_registry.rule_registry import RuleRegistry  # noqa: E402
from confluent_kafka.schema_registry.rules.encryption.encrypt_executor import FieldEncryptionExecutor  # noqa: E402
from confluent_kafka.schema_registry.rules.encryption.localkms.local_driver import LocalKmsDriver  # noqa: E402
from confluent_kafka.serialization import MessageField, SerializationContext  # noqa: E402

from app.client import AvroDeserializer, AvroSerializer, RegistryClient, UseLatest  # noqa: E402
from app.client.records import Rule, RuleSet, Schema  # noqa: E402

SECRET = "bench-secret"
SCHEMA = json.dumps({"type": "record", "name": "Person", "namespace": "bench", "fields": [
    {"name": "id", "type": "long"}, {"name": "name", "type": "string"},
    {"name": "ssn", "type": "string", "confluent:tags": ["PII"]}, {"name": "age", "type": "int"},
    {"name": "score", "type": "double"}, {"name": "active", "type": "boolean"}]})
Serde = tuple[Callable[[Any], bytes], Callable[[bytes], Any]]


def make_records(count: int) -> list[dict[str, Any]]:
    return [{"id": i, "name": f"person-{i % 997}", "ssn": f"{i % 1000:03d}-{i % 100:02d}-{i % 10000:04d}",
             "age": i % 90, "score": i / 7, "active": bool(i % 2)} for i in range(count)]


def topic_with(url: str, encrypted: bool) -> str:
    topic = f"bench-{'enc' if encrypted else 'plain'}-{uuid.uuid4().hex[:6]}"
    rule_set = RuleSet(domain_rules=(Rule("encrypt-pii", "TRANSFORM", "WRITEREAD", "ENCRYPT", ("PII",), tuple(sorted({
        "encrypt.kek.name": f"bench_{uuid.uuid4().hex[:6]}", "encrypt.kms.type": "local-kms",
        "encrypt.kms.key.id": "bench-key"}.items()))),)) if encrypted else None
    RegistryClient(url).register(f"{topic}-value", Schema(SCHEMA, rule_set=rule_set))
    return topic


def ours(url: str, topic: str) -> Serde:
    client = RegistryClient(url)
    subject = f"{topic}-value"
    config = {"secret": SECRET}
    return (AvroSerializer(client, subject=subject, writer=UseLatest(recheck=3600), rule_config=config),
            AvroDeserializer(client, subject=subject, rule_config=config))


def confluent(url: str, topic: str) -> Serde:
    client = SchemaRegistryClient({"url": url})
    registry = RuleRegistry()
    registry.register_executor(FieldEncryptionExecutor())
    options: dict[str, Any] = dict(rule_conf={"secret": SECRET}, rule_registry=registry)
    serializer = ConfluentSerializer(client, None, conf={"auto.register.schemas": False, "use.latest.version": True},
                                     **options)
    deserializer = ConfluentDeserializer(client, **options)
    context = SerializationContext(topic, MessageField.VALUE)
    return (lambda record: serializer(dict(record), context)), (lambda data: deserializer(data, context))


def per_record_ns(work: Callable[[Any], Any], items: list[Any]) -> tuple[list[int], list[Any]]:
    clock = time.perf_counter_ns
    times, out = [], []
    for item in items:
        started = clock()
        result = work(item)
        times.append(clock() - started)
        out.append(result)
    return times, out


def percentiles(samples: list[int]) -> tuple[float, float, float]:
    cuts = statistics.quantiles(samples, n=100)
    return cuts[49] / 1000, cuts[89] / 1000, cuts[98] / 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--records", type=int, default=4000)
    parser.add_argument("--batches", type=int, default=8)
    args = parser.parse_args()
    LocalKmsDriver.register()

    from support.live import scratch_registry

    with scratch_registry("client-rules-") as scratch:
        url = scratch.server.url
        variants = {
            "ours": ours(url, topic_with(url, False)),
            "ours + ENCRYPT": ours(url, topic_with(url, True)),
            "confluent-kafka": confluent(url, topic_with(url, False)),
            "confluent-kafka + ENCRYPT": confluent(url, topic_with(url, True)),
        }
        records = make_records(args.records)
        for serialize, deserialize in variants.values():  # warm-up: schemas, KEK, DEK, programs
            for record in records[:50]:
                deserialize(serialize(record))
        writes: dict[str, list[int]] = {name: [] for name in variants}
        reads: dict[str, list[int]] = {name: [] for name in variants}
        size = max(1, args.records // args.batches)
        for start in range(0, args.records, size):
            batch = records[start:start + size]
            for name, (serialize, deserialize) in variants.items():
                times, framed = per_record_ns(serialize, batch)
                writes[name].extend(times)
                times, _ = per_record_ns(deserialize, framed)
                reads[name].extend(times)

        print(f"{args.records} records of 6 fields, per record (µs), {args.batches} interleaved batches")
        print(f"{'':28}{'serialize p50':>14}{'p90':>8}{'p99':>8}{'deserialize p50':>17}{'p90':>8}{'p99':>8}")
        p50: dict[str, tuple[float, float]] = {}
        for name in variants:
            w, r = percentiles(writes[name]), percentiles(reads[name])
            p50[name] = (w[0], r[0])
            print(f"{name:28}{w[0]:14.1f}{w[1]:8.1f}{w[2]:8.1f}{r[0]:17.1f}{r[1]:8.1f}{r[2]:8.1f}")
        for label, a, b in (("ENCRYPT cost, ours", "ours + ENCRYPT", "ours"),
                            ("ENCRYPT cost, confluent-kafka", "confluent-kafka + ENCRYPT", "confluent-kafka"),
                            ("confluent-kafka / ours, plain", "confluent-kafka", "ours"),
                            ("confluent-kafka / ours, ENCRYPT", "confluent-kafka + ENCRYPT", "ours + ENCRYPT")):
            print(f"{label:34} serialize {p50[a][0] / p50[b][0]:5.2f}x   deserialize {p50[a][1] / p50[b][1]:5.2f}x"
                  f"   (p50 ratio)")


if __name__ == "__main__":
    main()
