"""`encode` writes what confluent-kafka's own Avro serializer writes for the same schema id, byte
for byte (the expected bytes come from outside `app/`, so the Python path, which writes with
`app.client`'s serializer, is not checked against itself), and `decode` reads it back; an
incompatible DataFrame fails on the driver before any task."""
from __future__ import annotations

import json
import uuid
from datetime import date, datetime, timezone
from decimal import Decimal

import pytest
from confluent_kafka.schema_registry import SchemaRegistryClient
from confluent_kafka.schema_registry.avro import AvroSerializer as ConfluentAvroSerializer
from confluent_kafka.serialization import MessageField, SerializationContext
from samples import EVENT_V1, EVENT_V2

from app.client import IncompatibleSchema, RegistryClient, SubjectNotFound
from app.pipeline import decode, encode

pytestmark = pytest.mark.parametrize("live_server", ["sqlite"], indirect=True)


def confluent_bytes(url: str, subject: str, version: int, records: list[dict]) -> list[bytes]:
    """Each record as confluent-kafka's serializer frames it with `subject`'s `version`."""
    registry = SchemaRegistryClient({"url": url})
    schema_id = registry.get_version(subject, version).schema_id
    serializer = ConfluentAvroSerializer(registry, conf={
        "auto.register.schemas": False, "use.schema.id": schema_id,
        "subject.name.strategy": lambda _context, _record: subject})
    context = SerializationContext("encoded", MessageField.VALUE)
    return [serializer(record, context) for record in records]


def test_derived_schema_round_trips_through_decode(engine, spark, live_server, unique_subject):
    client = RegistryClient(live_server)
    subject = unique_subject()
    rows = [(n, f"n{n}", None if n % 2 else [n, n + 1], {"k": float(n)}, date(2026, 1, n + 1),
             datetime(2026, 1, 1, 0, 0, n, tzinfo=timezone.utc), Decimal(f"{n}.50"), (n, "x"), b"\x00\x01")
            for n in range(5)]
    df = spark.createDataFrame(rows, "id long, name string, nums array<int>, m map<string,double>, d date, "
                                     "ts timestamp, amt decimal(8,2), s struct<a:int,b:string>, raw binary")
    framed = encode(df, client, subject=subject, keep=["id"], record_name="Row", namespace="test", engine=engine)
    assert framed.columns == ["id", "value"]
    back = decode(framed, "value", client, subject=subject, output="row").orderBy("id").collect()
    assert [row["row"].asDict(recursive=True) for row in back] == [
        {k: v for k, v in row.asDict(recursive=True).items() if k != "id"} for row in df.orderBy("id").collect()
    ]


def test_bytes_equal_confluent_kafkas_serializer_for_the_same_schema_id(engine, spark, live_server, unique_subject):
    client = RegistryClient(live_server)
    subject = unique_subject()
    client.register(subject, EVENT_V1)
    client.register(subject, EVENT_V2)
    records = [{"id": n, "name": f"u{n}", "email": None if n % 2 else "e@x", "score": n / 8} for n in range(20)]
    df = spark.createDataFrame(records, "id long, name string, email string, score double")
    framed = encode(df, client, subject=subject, version=2, keep=["id"], columns=df.columns,
                    engine=engine).orderBy("id").collect()
    assert [row["value"] for row in framed] == confluent_bytes(live_server, subject, 2, records)


def test_incompatible_dataframe_fails_with_the_registry_reasons_before_writing(engine, spark, live_server,
                                                                                unique_subject, tmp_path):
    client = RegistryClient(live_server)
    subject = unique_subject()
    client.register(subject, EVENT_V1)
    df = spark.createDataFrame([(1, 2)], "id string, name int")
    with pytest.raises(IncompatibleSchema):
        encode(df, client, subject=subject, record_name="Event", namespace="shop", engine=engine).write.parquet(str(tmp_path / "o"))
    assert not (tmp_path / "o").exists()


ORDER = json.dumps({"type": "record", "name": "Order", "namespace": "shop", "doc": "a team's own .avsc", "fields": [
    {"name": "id", "type": "long"},
    {"name": "status", "type": {"type": "enum", "name": "Status", "symbols": ["NEW", "PAID"]}},
    {"name": "code", "type": {"type": "fixed", "name": "Code", "size": 3}},
    {"name": "ref", "type": {"type": "string", "logicalType": "uuid"}},
    {"name": "day", "type": {"type": "int", "logicalType": "date"}},
    {"name": "at", "type": {"type": "long", "logicalType": "timestamp-millis"}},
    {"name": "total", "type": {"type": "bytes", "logicalType": "decimal", "precision": 9, "scale": 2}},
    {"name": "lines", "type": {"type": "array", "items": {"type": "record", "name": "Line", "fields": [
        {"name": "sku", "type": "string"}, {"name": "qty", "type": "int"}]}}},
    {"name": "attrs", "type": {"type": "map", "values": "string"}},
    {"name": "note", "type": ["null", "string"], "default": None},
    {"name": "channel", "type": "string", "default": "web"},
]})


def order(n: int) -> dict:
    return {"id": n, "status": ["NEW", "PAID"][n % 2], "code": bytes([65, 66, 67 + n]), "ref": str(uuid.UUID(int=n)),
            "day": date(2026, 2, 1 + n), "at": datetime(2026, 2, 1, 9, 30, n, 250000, tzinfo=timezone.utc),
            "total": Decimal(f"{n}9.95"), "lines": [{"sku": f"s{n}", "qty": n}], "attrs": {"k": str(n)},
            "note": None if n % 2 else f"note {n}"}


ORDER_COLUMNS = ("id long, status string, code binary, ref string, day date, at timestamp, total decimal(9,2), "
                 "lines array<struct<sku:string,qty:int>>, attrs map<string,string>, note string")


def test_given_schema_text_is_registered_and_bytes_equal_confluent_kafkas_serializer(engine, spark, live_server, unique_subject):
    client = RegistryClient(live_server)
    subject = unique_subject()
    records = [order(n) for n in range(6)]
    df = spark.createDataFrame([tuple(r.values()) for r in records], ORDER_COLUMNS)
    framed = encode(df, client, subject=subject, schema=ORDER, keep=["id"], columns=df.columns, engine=engine)
    rows = framed.orderBy("id").collect()
    assert client.get_latest_version(subject).schema.text == client.lookup(subject, ORDER).schema.text
    # `channel` has no column: its default is written, as confluent-kafka's serializer writes it.
    version = client.lookup(subject, ORDER).version
    assert [row["value"] for row in rows] == confluent_bytes(live_server, subject, version, records)
    back = decode(framed, "value", client, subject=subject, output="order").orderBy("id").collect()
    assert [row["order"]["channel"] for row in back] == ["web"] * 6
    assert [row["order"]["status"] for row in back] == ["NEW", "PAID"] * 3


def test_given_incompatible_schema_fails_with_the_registry_reasons_before_writing(engine, spark, live_server,
                                                                                  unique_subject, tmp_path):
    client = RegistryClient(live_server)
    subject = unique_subject()
    client.register(subject, ORDER)
    narrowed = json.loads(ORDER)
    narrowed["fields"].append({"name": "region", "type": "string"})  # no default: old records lack it
    df = spark.createDataFrame([tuple(order(1).values()) + ("eu",)], ORDER_COLUMNS + ", region string")
    with pytest.raises(IncompatibleSchema, match="READER_FIELD_MISSING_DEFAULT_VALUE.*region"):
        encode(df, client, subject=subject, schema=json.dumps(narrowed), engine=engine).write.parquet(str(tmp_path / "o"))
    assert not (tmp_path / "o").exists()
    assert client.get_versions(subject) == [1]


def test_given_schema_that_the_columns_cannot_fill_is_refused_before_registering(engine, spark, live_server,
                                                                                 unique_subject):
    client = RegistryClient(live_server)
    subject = unique_subject()
    df = spark.createDataFrame([(1, "x")], "id long, surprise string")
    with pytest.raises(ValueError, match=r"without a column or a default \['status'.*without a field \['surprise'\]"):
        encode(df, client, subject=subject, schema=ORDER, engine=engine)
    with pytest.raises(SubjectNotFound):
        client.get_versions(subject)


def test_a_stream_encodes_to_confluent_kafkas_serializers_bytes(engine, spark, live_server, unique_subject, tmp_path):
    client = RegistryClient(live_server)
    subject = unique_subject()
    client.register(subject, EVENT_V2)
    records = [{"id": n, "name": f"u{n}", "email": None if n % 2 else "e@x", "score": n / 8} for n in range(6)]
    spark.createDataFrame(records, "id long, name string, email string, score double").write.parquet(
        str(tmp_path / "rows"))
    stream = spark.readStream.schema("id long, name string, email string, score double").parquet(str(tmp_path / "rows"))
    framed = encode(stream, client, subject=subject, version=1, keep=["id"], columns=["id", "name", "email", "score"],
                    engine=engine)
    name = f"encoded_stream_{engine}"
    query = (framed.writeStream.format("memory").queryName(name).option("checkpointLocation", str(tmp_path / "cp"))
             .trigger(availableNow=True).start())
    query.awaitTermination(120)
    rows = spark.sql(f"select * from {name} order by id").collect()
    assert [bytes(row["value"]) for row in rows] == confluent_bytes(live_server, subject, 1, records)
