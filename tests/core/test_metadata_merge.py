"""Metadata inheritance and `confluent:version` stamping, through the service."""
from __future__ import annotations

from typing import Any

from app.core.records import StoredSchema
from app.core.documents import merged_documents
from app.core.registry import RegistryService
from app.core.types import SchemaRequest

V1 = '{"type":"record","name":"R","fields":[{"name":"a","type":"int"}]}'
V2 = '{"type":"record","name":"R","fields":[{"name":"a","type":"int"},{"name":"b","type":"int","default":0}]}'


def stored(metadata: dict[str, Any] | None) -> StoredSchema:
    return StoredSchema(key=1, context=".", id=1, hash="0" * 32, schema_type="AVRO", schema=V1, metadata=metadata)


def test_request_metadata_replaces_the_previous_as_a_whole() -> None:
    latest = stored({"properties": {"owner": "a", "team": "x"}})
    md, _ = merged_documents({"properties": {"owner": "b"}}, None, latest, {}, None, 2)
    assert md == {"properties": {"owner": "b"}}


def test_without_metadata_the_latest_versions_is_inherited_and_restamped() -> None:
    latest = stored({"properties": {"confluent:version": "1", "owner": "a"}})
    md, _ = merged_documents(None, None, latest, {}, None, 2)
    assert md == {"properties": {"confluent:version": "2", "owner": "a"}}


def test_an_explicit_version_stamps_even_minus_one() -> None:
    for requested in (3, -1):
        md, _ = merged_documents(None, None, None, {}, requested, 3)
        assert md == {"properties": {"confluent:version": "3"}}
    assert merged_documents(None, None, None, {}, 0, 3) == (None, None)


def test_override_beats_request_beats_default() -> None:
    config = {
        "defaultMetadata": {"properties": {"k": "default", "d": "1"}},
        "overrideMetadata": {"properties": {"k": "override"}},
    }
    md, _ = merged_documents({"properties": {"k": "request", "r": "1"}}, None, None, config, None, 1)
    assert md == {"properties": {"d": "1", "k": "override", "r": "1"}}


def test_clients_see_inherited_metadata_with_an_empty_config(service: RegistryService) -> None:
    first = service.register("s", SchemaRequest(schema=V1, version=1))
    assert first.schema.metadata == {"properties": {"confluent:version": "1"}}
    second = service.register("s", SchemaRequest(schema=V2))
    assert second.schema.metadata == {"properties": {"confluent:version": "2"}}
    assert second.id != first.id
    # the bare texts, without the metadata the stored versions carry, still find them
    assert service.lookup("s", SchemaRequest(schema=V1)).version == 1
    assert service.register("s", SchemaRequest(schema=V1)).version == 1
    assert service.register("s", SchemaRequest(schema=V2)).version == 2
    assert [v for v in service.list_versions("s")] == [1, 2]
