"""AVRO-1124's contract, counted on the server: one remote lookup per active schema version.

The registry runs in-process behind a WSGI middleware that records every request, on SQLite
and on PostgreSQL; the client talks HTTP to it like any other.
"""
from __future__ import annotations

from collections import Counter
from concurrent.futures import ThreadPoolExecutor

from support.client_samples import USER_V1, USER_V2, USER_V3, USER_V4, USER_V5, user_record

from app.client import AvroDeserializer, AvroSerializer, ReaderVersion, RegistryClient, UseLatest

VERSIONS = [USER_V1, USER_V2, USER_V3, USER_V4, USER_V5]
RECORDS = 100_000


def test_100k_records_of_5_versions_cost_at_most_one_lookup_per_schema(counting_registry):
    client = RegistryClient(counting_registry.url)
    serializers = [AvroSerializer(client, text, subject="users-value") for text in VERSIONS]
    records = [[user_record(n, i) for i in range(200)] for n in range(1, 6)]

    # Another process's consumer: its own client, so it must fetch every writer schema by id once.
    consumer_client = RegistryClient(counting_registry.url)
    deserialize = AvroDeserializer(consumer_client)
    project = None
    projected = 0
    for i in range(RECORDS):
        if i == 5:  # every version is registered by now
            project = AvroDeserializer(consumer_client, reader=ReaderVersion("users-value", 1))
        version = i % 5
        data = serializers[version](records[version][i % 200])
        assert deserialize(data) == records[version][i % 200]
        if project is not None and i % 100 == 50:
            assert project(data) == {"name": records[version][i % 200]["name"]}
            projected += 1

    seen = Counter(counting_registry.requests)
    registers = {target: n for (method, target), n in seen.items() if method == "POST"}
    by_id = {target: n for (method, target), n in seen.items() if target.startswith("/schemas/ids/")}
    assert len(registers) == 1 and sum(registers.values()) == 5  # one registration per schema
    assert len(by_id) == 5 and set(by_id.values()) == {1}  # one id fetch per writer schema
    assert sum(seen.values()) == 5 + 5 + 1  # and the one reader version
    assert projected == RECORDS // 100


def test_use_latest_asks_again_only_after_its_recheck_interval(counting_registry):
    client = RegistryClient(counting_registry.url, cache_ttl=0)
    client.register("events-value", USER_V1)
    serialize = AvroSerializer(client, subject="events-value", writer=UseLatest(recheck=3600))
    for i in range(5000):
        serialize(user_record(1, i))
    latest_calls = [t for _, t in counting_registry.requests if t.startswith("/subjects/events-value/versions/latest")]
    assert len(latest_calls) == 1


def test_threads_sharing_a_client_warm_up_with_one_request_per_schema(counting_registry):
    producer = RegistryClient(counting_registry.url)
    ids = [producer.register("threads-value", text).schema_id for text in VERSIONS]
    counting_registry.middleware.reset()

    client = RegistryClient(counting_registry.url, pool_size=32)
    deserialize = AvroDeserializer(client)
    framed = [AvroSerializer(producer, text, subject="threads-value")(user_record(n, 1))
              for n, text in enumerate(VERSIONS, start=1)]

    def work(worker: int) -> list[str]:
        names = []
        for i in range(400):
            names.append(deserialize(framed[(worker + i) % 5])["name"])
            assert client.get_schema(ids[i % 5]).schema_type == "AVRO"
        return names

    with ThreadPoolExecutor(max_workers=32) as pool:
        results = list(pool.map(work, range(64)))

    assert all(names == ["user-1"] * 400 for names in results)
    fetched = Counter(target for _, target in counting_registry.requests)
    assert fetched == Counter({f"/schemas/ids/{schema_id}": 1 for schema_id in ids})
