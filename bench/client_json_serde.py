"""JSON Schema serializers of `app.client` against confluent-kafka's, in one run.

A 10-field record is serialized and deserialized by: the standard library's `json` alone (the
floor: no framing, no registry, no validation), `json` plus a compiled `jsonschema` validator
(the floor with validation), our `JsonSerializer` / `JsonDeserializer`, and confluent-kafka's
`JSONSerializer` / `JSONDeserializer` (which encode with orjson when it is installed), each
with validation of every record on and off, against the same registry. The timing loop is
`client_serde.py`'s: the variants take turns over several rounds and the best round of each
counts. The registry runs under gunicorn on SQLite (`sqlregistry serve`). Prints figures only.

    python bench/client_json_serde.py [--records 20000] [--rounds 5]
"""
from __future__ import annotations

import argparse
import json
from typing import Any

from client_serde import Serde, time_round  # also puts the repository and tests/ on sys.path
from bench.timing import best_of_rounds
from confluent_kafka.schema_registry import SchemaRegistryClient
from confluent_kafka.schema_registry.json_schema import JSONDeserializer as ConfluentDeserializer
from confluent_kafka.schema_registry.json_schema import JSONSerializer as ConfluentSerializer
from confluent_kafka.serialization import MessageField, SerializationContext
from jsonschema import Draft7Validator

from app.client import JsonDeserializer, JsonSerializer, RegistryClient

SCHEMA = json.dumps({
    "$schema": "http://json-schema.org/draft-07/schema#",
    "title": "Purchase", "type": "object",
    "properties": {
        "id": {"type": "integer", "minimum": 0},
        "customer": {"type": "string", "minLength": 1},
        "email": {"type": ["null", "string"]},
        "quantity": {"type": "integer", "minimum": 0, "maximum": 1000},
        "price": {"type": "number"},
        "discount": {"type": "number", "minimum": 0, "maximum": 1},
        "paid": {"type": "boolean"},
        "at": {"type": "string"},
        "status": {"enum": ["NEW", "PAID", "SHIPPED"]},
        "tags": {"type": "array", "items": {"type": "string"}},
    },
    "required": ["id", "customer", "quantity", "price", "paid", "at", "status"],
    "additionalProperties": False,
})


def make_records(count: int) -> list[dict[str, Any]]:
    return [{
        "id": 10_000_000 + i, "customer": f"customer-{i % 997}", "email": None if i % 4 else f"c{i}@example.com",
        "quantity": i % 17, "price": 19.99 + i % 100, "discount": 0.5, "paid": bool(i % 2),
        "at": "2026-01-01T00:00:00Z", "status": ("NEW", "PAID", "SHIPPED")[i % 3], "tags": ["a", "b"][: i % 3],
    } for i in range(count)]


def bare_json(validate: bool) -> Serde:
    encode = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False).encode
    validator = Draft7Validator(json.loads(SCHEMA))

    def serialize(record: Any) -> bytes:
        if validate:
            validator.validate(record)
        return encode(record).encode()

    def deserialize(data: bytes) -> Any:
        record = json.loads(data)
        if validate:
            validator.validate(record)
        return record

    return serialize, deserialize


def ours(url: str, subject: str, validate: bool) -> Serde:
    client = RegistryClient(url)
    return (JsonSerializer(client, SCHEMA, subject=subject, validate=validate),
            JsonDeserializer(client, validate=validate))


def confluent(url: str, topic: str, validate: bool) -> Serde:
    client = SchemaRegistryClient({"url": url})
    context = SerializationContext(topic, MessageField.VALUE)
    serializer = ConfluentSerializer(SCHEMA, client, conf={"validate": validate})
    deserializer = ConfluentDeserializer(None, schema_registry_client=client, conf={"validate": validate})
    return (lambda record: serializer(record, context)), (lambda data: deserializer(data, context))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--records", type=int, default=20_000)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()

    from support.live import scratch_registry

    with scratch_registry("client-json-serde-") as scratch:
        records = make_records(args.records)
        variants: dict[str, Serde] = {}
        for validate in (True, False):
            mark = "validating" if validate else "no validation"
            variants[f"json alone, {mark}"] = bare_json(validate)
            variants[f"app.client, {mark}"] = ours(scratch.server.url, "bench-json-value", validate)
            variants[f"confluent, {mark}"] = confluent(scratch.server.url, "bench-json", validate)
        for serde in variants.values():  # warm-up: registration, first fetches, validator compilation
            time_round(serde, records[:100])
        best = best_of_rounds(args.rounds, {name: (lambda serde=serde: time_round(serde, records))
                                            for name, serde in variants.items()})

        per = 1e6 / args.records
        print(f"{args.records} JSON records of 10 fields, best of {args.rounds} rounds")
        print(f"{'':27}{'ser µs':>8}{'de µs':>8}{'ser rec/s':>11}{'de rec/s':>10}")
        for name, (write, read) in best.items():
            rates = f"{args.records / write:11,.0f}{args.records / read:10,.0f}"
            print(f"{name:27}{write * per:8.2f}{read * per:8.2f}{rates}")
        for mark in ("validating", "no validation"):
            theirs, mine = sum(best[f"confluent, {mark}"]), sum(best[f"app.client, {mark}"])
            print(f"confluent-kafka / app.client round trip, {mark}: {theirs / mine:.2f}x")


if __name__ == "__main__":
    main()
