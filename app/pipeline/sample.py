"""A small topic dump to try the decode job on: Confluent-framed Avro records in one Parquet
file, with the columns a Kafka topic dump has (`key`, `value`, `offset`).

Written with pyarrow and the project's own serializer, without starting Spark, so that a
newcomer has input for `sqlregistry pipeline decode` seconds after installing the extra.
"""
from __future__ import annotations

import random

PAYMENT = {
    "type": "record", "name": "Payment", "namespace": "sample",
    "fields": [
        {"name": "id", "type": "string"},
        {"name": "amount", "type": "double"},
        {"name": "currency", "type": {"type": "enum", "name": "Currency", "symbols": ["EUR", "USD", "GBP"]}},
        {"name": "note", "type": ["null", "string"], "default": None},
    ],
}


def payment(n: int, rng: random.Random) -> dict[str, object]:
    return {
        "id": f"p-{n:06d}",
        "amount": round(rng.uniform(1, 500), 2),
        "currency": rng.choice(["EUR", "USD", "GBP"]),
        "note": None if n % 3 else f"order {n}",
    }


def write_sample(registry_url: str, subject: str, output: str, records: int, seed: int = 7) -> int:
    """Registers the sample schema under `subject` (a no-op when it is there already) and
    writes `records` framed records to the Parquet file `output`; returns the schema id."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    from app.client import AvroSerializer, RegistryClient

    rng = random.Random(seed)
    with RegistryClient(registry_url) as client:
        serialize = AvroSerializer(client, PAYMENT, subject=subject)
        values = [serialize(payment(n, rng)) for n in range(records)]
        schema_id = client.lookup(subject, serialize.schema).schema_id
    table = pa.table({
        "key": pa.array([f"p-{n:06d}".encode() for n in range(records)], pa.binary()),
        "value": pa.array(values, pa.binary()),
        "offset": pa.array(range(records), pa.int64()),
    })
    pq.write_table(table, output)
    return schema_id
