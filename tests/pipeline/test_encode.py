"""`encode` writes what `app.client`'s serializer writes for the same schema id, byte for byte,
and `decode` reads it back; an incompatible DataFrame fails on the driver before any task."""
from __future__ import annotations

from datetime import date, datetime, timezone
from decimal import Decimal

import pytest
from samples import EVENT_V1, EVENT_V2

from app.client import AvroSerializer, IncompatibleSchema, PinnedVersion, RegistryClient
from app.pipeline import decode, encode

pytestmark = pytest.mark.parametrize("live_server", ["sqlite"], indirect=True)


def test_derived_schema_round_trips_through_decode(spark, live_server, unique_subject):
    client = RegistryClient(live_server)
    subject = unique_subject()
    rows = [(n, f"n{n}", None if n % 2 else [n, n + 1], {"k": float(n)}, date(2026, 1, n + 1),
             datetime(2026, 1, 1, 0, 0, n, tzinfo=timezone.utc), Decimal(f"{n}.50"), (n, "x"), b"\x00\x01")
            for n in range(5)]
    df = spark.createDataFrame(rows, "id long, name string, nums array<int>, m map<string,double>, d date, "
                                     "ts timestamp, amt decimal(8,2), s struct<a:int,b:string>, raw binary")
    framed = encode(df, client, subject=subject, keep=["id"], record_name="Row", namespace="test")
    assert framed.columns == ["id", "value"]
    back = decode(framed, "value", client, subject=subject, output="row").orderBy("id").collect()
    assert [row["row"].asDict(recursive=True) for row in back] == [
        {k: v for k, v in row.asDict(recursive=True).items() if k != "id"} for row in df.orderBy("id").collect()
    ]


def test_bytes_equal_the_client_serializer_for_the_same_schema_id(spark, live_server, unique_subject):
    client = RegistryClient(live_server)
    subject = unique_subject()
    client.register(subject, EVENT_V1)
    client.register(subject, EVENT_V2)
    records = [{"id": n, "name": f"u{n}", "email": None if n % 2 else "e@x", "score": n / 8} for n in range(20)]
    df = spark.createDataFrame(records, "id long, name string, email string, score double")
    framed = encode(df, client, subject=subject, version=2, keep=["id"], columns=df.columns).orderBy("id").collect()
    serialize = AvroSerializer(RegistryClient(live_server), subject=subject, writer=PinnedVersion(2))
    assert [row["value"] for row in framed] == [serialize(record) for record in records]


def test_incompatible_dataframe_fails_with_the_registry_reasons_before_writing(spark, live_server,
                                                                                unique_subject, tmp_path):
    client = RegistryClient(live_server)
    subject = unique_subject()
    client.register(subject, EVENT_V1)
    df = spark.createDataFrame([(1, 2)], "id string, name int")
    with pytest.raises(IncompatibleSchema):
        encode(df, client, subject=subject, record_name="Event", namespace="shop").write.parquet(str(tmp_path / "o"))
    assert not (tmp_path / "o").exists()
