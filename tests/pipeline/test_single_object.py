"""Avro single-object encoding in (`C3 01`, the writer's CRC-64-AVRO fingerprint little-endian,
the payload): writers found through the registry's fingerprint endpoint, projected like
Confluent-framed data, and a fingerprint the registry does not know routed with its reason,
asked about once per Python worker however many records carry it."""
from __future__ import annotations

import io
import json
from collections import Counter

import pytest
from fastavro import parse_schema, schemaless_reader
from fastavro.schema import fingerprint, to_parsing_canonical_form
from samples import EVENT_V1, EVENT_V2, EVENT_V3, event
from test_worker_schema_fetches import python_workers

from app.client import SINGLE_OBJECT, AvroSerializer, LookupOnly, RegistryClient
from app.pipeline import decode, decode_by_writer, writer_ids

pytestmark = pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)

PATTERN = [1, 1, 2, 1, 2, 2] * 4
UNREGISTERED = json.dumps({"type": "record", "name": "Stranger", "fields": [{"name": "id", "type": "long"}]})
STRANGERS = 12
COLUMNS = "key binary, value binary, topic string, partition int, offset long"


@pytest.fixture
def framed(spark, counting_registry):
    client = RegistryClient(counting_registry.url)
    subject = "single-object-value"
    serializers = {}
    for version, text in ((1, EVENT_V1), (2, EVENT_V2)):
        client.register(subject, text)
        serializers[version] = AvroSerializer(client, text, subject=subject, writer=LookupOnly(),
                                              framing=SINGLE_OBJECT)
    good = [serializers[version](event(version, n)) for n, version in enumerate(PATTERN)]
    stranger = bytes.fromhex("c301" + fingerprint(to_parsing_canonical_form(parse_schema(json.loads(UNREGISTERED))),
                                                  "CRC-64-AVRO")) + b"\x02"
    confluent = AvroSerializer(client, EVENT_V1, subject=subject)(event(1, 99))
    bad = [stranger] * STRANGERS + [confluent, b"\xc3\x01\x00"]
    values = good + bad
    rows = [(b"k", value, "events", 0, offset) for offset, value in enumerate(values)]
    df = spark.createDataFrame(rows, COLUMNS).repartition(3)
    return client, subject, values, len(good), df


def fastavro_loop(values: list[bytes], reader_text: str) -> list[dict]:
    """The independent decoder: fastavro alone, each writer found by fastavro's own fingerprint."""
    writers = {}
    for text in (EVENT_V1, EVENT_V2):
        parsed = parse_schema(json.loads(text))
        writers[bytes.fromhex(fingerprint(to_parsing_canonical_form(parsed), "CRC-64-AVRO"))] = parsed
    reader = parse_schema(json.loads(reader_text))
    return [schemaless_reader(io.BytesIO(data[10:]), writers[data[2:10]], reader) for data in values]


def test_projected_onto_latest_with_unknown_fingerprints_routed_and_asked_once_per_worker(
        engine, spark, framed, counting_registry):
    client, subject, values, good, df = framed
    client.register(subject, EVENT_V3)
    before = len(counting_registry.requests)
    out = decode(df, "value", client, subject=subject, reader="latest", on_error="route",
                 framing=SINGLE_OBJECT, engine=engine).orderBy("offset").collect()
    assert [row["offset"] for row in out] == list(range(len(values)))

    assert [row["value"].asDict() for row in out[:good]] == fastavro_loop(values[:good], EVENT_V3)
    assert all(row["value_error"] is None for row in out[:good])
    reasons = [row["value_error"] for row in out[good:]]
    assert all("SchemaNotFound" in reason for reason in reasons[:STRANGERS])
    assert "unknown marker 0000" in reasons[STRANGERS] and "too short" in reasons[STRANGERS + 1]
    assert all(row["value"] is None for row in out[good:])

    asked = Counter(target.split("?")[0] for method, target in counting_registry.requests[before:]
                    if target.startswith("/schemas/fingerprints/"))
    # The JVM path asks on the driver, once per header, while planning; the Python path in each worker.
    workers = 1 if engine == "jvm" else python_workers()
    assert len(asked) == 3 and all(n <= workers for n in asked.values()), (asked, workers)


def test_latest_seen_and_writer_mode_find_writers_by_fingerprint(engine, spark, framed):
    client, subject, values, good, df = framed
    client.register(subject, EVENT_V3)  # registered, but no record was written with it
    ids = writer_ids(df, "value", SINGLE_OBJECT, client)
    assert ids == sorted(client.lookup(subject, text).schema_id for text in (EVENT_V1, EVENT_V2))

    seen = decode(df, "value", client, subject=subject, reader="latest-seen", framing=SINGLE_OBJECT,
                  on_error="route", engine=engine)
    assert seen.schema["value"].dataType.fieldNames() == ["id", "name", "email", "score"]
    assert seen.count() == len(values)

    frames = decode_by_writer(df, "value", client, framing=SINGLE_OBJECT, engine=engine)
    assert sorted(frames) == ids
    shapes = sorted(len(frame.schema["value"].dataType.fieldNames()) for frame in frames.values())
    assert shapes == [2, 4]
    assert sum(frame.count() for frame in frames.values()) == good
