"""`GET /schemas/fingerprints/{hex}?algorithm=crc64|md5|sha256` through the client, end to end.

The endpoint is served by the core (its migration indexes fingerprints computed at
registration); these tests pin its contract as the client relies on it. A server without the
route answers the framework's plain 404, which fails them.
"""
from __future__ import annotations

import json

import pytest
from support.client_samples import user_record

from app.client import (
    SINGLE_OBJECT,
    AvroDeserializer,
    AvroSerializer,
    InMemoryResolver,
    RegistryClient,
    Schema,
    SchemaNotFound,
    SchemaReference,
    schema_fingerprint,
)
from app.client.errors import RegistryRequestError
from app.fingerprinting.fingerprint import CRC64, MD5, SHA256, Fingerprint


@pytest.fixture
def registry(live_server: str) -> RegistryClient:
    client = RegistryClient(live_server, retries=0)
    with pytest.raises(SchemaNotFound):  # 40403, Confluent's "schema not found", not a routing 404
        client.get_schema_by_fingerprint(Fingerprint(CRC64, bytes(8)))
    return client


def unique_user(subject: str, fields: int = 2) -> str:
    """A schema of its own per test: the record name carries the subject's uniqueness."""
    suffix = subject.rsplit("-", 2)[-2]
    return json.dumps({"type": "record", "name": f"User{suffix}", "namespace": "com.example", "fields": [
        {"name": "name", "type": "string"}, {"name": "age", "type": "int", "default": 0}][:fields]})


@pytest.mark.parametrize("algorithm", [CRC64, MD5, SHA256])
def test_a_registered_schema_is_found_by_each_fingerprint(registry, unique_subject, algorithm):
    subject = unique_subject()
    text = unique_user(subject)
    registered = registry.register(subject, text)
    found = RegistryClient(registry.urls).get_schema_by_fingerprint(schema_fingerprint(text, algorithm=algorithm))
    assert found.schema_id == registered.schema_id
    assert json.loads(found.schema.text) == json.loads(text)


def test_single_object_records_round_trip_through_the_registry(registry, unique_subject):
    subject = unique_subject()
    text = unique_user(subject)
    data = AvroSerializer(registry, text, subject=subject, framing=SINGLE_OBJECT)({"name": "ada", "age": 36})
    consumer = AvroDeserializer(RegistryClient(registry.urls), framing=SINGLE_OBJECT)
    assert consumer(data) == {"name": "ada", "age": 36}


def test_the_smallest_id_answers_for_schemas_sharing_a_canonical_form(registry, unique_subject):
    subject = unique_subject()
    text = unique_user(subject)
    first = registry.register(subject, text)
    documented = json.dumps(dict(json.loads(text), doc="docs are not in the canonical form"))
    second = registry.register(unique_subject("other"), documented)
    assert second.schema_id != first.schema_id
    found = RegistryClient(registry.urls).get_schema_by_fingerprint(schema_fingerprint(documented))
    assert found.schema_id == first.schema_id


def test_a_schema_with_references_is_found_by_the_fingerprint_of_its_resolved_form(registry, unique_subject):
    base_subject = unique_subject("base")
    base = unique_user(base_subject)
    base_name = json.loads(base)["name"]
    registry.register(base_subject, base)
    outer_text = json.dumps({"type": "record", "name": "Envelope", "namespace": "com.example",
                             "fields": [{"name": "user", "type": f"com.example.{base_name}"}]})
    outer = registry.register(unique_subject("outer"), Schema(
        outer_text, references=(SchemaReference(f"com.example.{base_name}", base_subject, 1),)))
    resolved = json.dumps({"type": "record", "name": "Envelope", "namespace": "com.example",
                           "fields": [{"name": "user", "type": json.loads(base)}]})
    assert RegistryClient(registry.urls).get_schema_by_fingerprint(schema_fingerprint(resolved)).schema_id == (
        outer.schema_id)


def test_an_unknown_fingerprint_is_40403(registry):
    with pytest.raises(SchemaNotFound) as caught:
        registry.get_schema_by_fingerprint(Fingerprint(SHA256, bytes(range(32))))
    assert (caught.value.error_code, caught.value.http_status) == (40403, 404)


@pytest.mark.parametrize("path, algorithm", [
    ("/schemas/fingerprints/xyz", "crc64"),
    ("/schemas/fingerprints/" + "0" * 15, "crc64"),
    ("/schemas/fingerprints/" + "0" * 16, "md5"),
    ("/schemas/fingerprints/" + "0" * 16, "sha1"),
])
def test_bad_hex_or_algorithm_is_a_422_never_a_500(registry, path, algorithm):
    with pytest.raises(RegistryRequestError) as caught:
        registry.transport.request("GET", path, query={"algorithm": algorithm})
    assert (caught.value.http_status, caught.value.error_code) == (422, 42202)


def test_single_object_data_of_an_unregistered_schema_is_schema_not_found(registry, unique_subject):
    text = unique_user(unique_subject(), fields=1)
    writer = AvroSerializer(registry, text, subject=unique_subject("private"), framing=SINGLE_OBJECT)
    data = writer(user_record(1, 1))
    registry.delete_subject(writer.subject)
    registry.delete_subject(writer.subject, permanent=True)
    with pytest.raises(SchemaNotFound):
        AvroDeserializer(RegistryClient(registry.urls), framing=SINGLE_OBJECT)(data)
    # The writer's schema from elsewhere (here: held in memory) still decodes it.
    assert AvroDeserializer(InMemoryResolver([text]), framing=SINGLE_OBJECT)(data) == user_record(1, 1)
