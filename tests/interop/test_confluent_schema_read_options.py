"""confluent-kafka 2.16's `get_schema(..., reference_format="qualified")` against the
registry under gunicorn (issue 40): a schema of a named context read with its references
named in that context, on SQLite and PostgreSQL. The client sends the parameter as
`reference_format`, the server's other spelling of Confluent's `referenceFormat`; and a
`findTags` read through raw HTTP, since the client has no such call."""
from __future__ import annotations

import json
import urllib.parse
import urllib.request
import uuid
from collections.abc import Iterator

import pytest
from confluent_kafka.schema_registry import Schema, SchemaReference, SchemaRegistryClient

COMMON = json.dumps({"type": "record", "name": "Common", "namespace": "shop", "fields": [
    {"name": "at", "type": "long", "confluent:tags": ["PII"]}]})
EVENT = json.dumps({"type": "record", "name": "Event", "namespace": "shop", "fields": [
    {"name": "common", "type": "shop.Common"}, {"name": "note", "type": "string", "confluent:tags": ["PII"]}]})


@pytest.fixture
def registry(live_server: str) -> Iterator[SchemaRegistryClient]:
    client = SchemaRegistryClient({"url": live_server, "max.retries": 0})
    yield client
    client.close()


def test_the_clients_qualified_reference_format_names_references_in_the_schemas_context(
        registry: SchemaRegistryClient, live_server: str) -> None:
    context = f".ctx{uuid.uuid4().hex[:8]}"
    registry.register_schema(f":{context}:common", Schema(COMMON, "AVRO"))
    event_id = registry.register_schema(f":{context}:events-value", Schema(
        EVENT, "AVRO", [SchemaReference("shop.Common", "common", 1)]))
    subject = f":{context}:events-value"
    reader = SchemaRegistryClient({"url": live_server, "max.retries": 0})  # the writer's cache would answer
    try:
        qualified = reader.get_schema(event_id, subject, reference_format="qualified")
    finally:
        reader.close()
    assert [(r.name, r.subject, r.version) for r in qualified.references] == [
        ("shop.Common", f":{context}:common", 1)]

    query = urllib.parse.urlencode({"findTags": "PII"})
    with urllib.request.urlopen(f"{live_server}/subjects/{urllib.parse.quote(subject)}/versions/1?{query}") as reply:
        body = json.load(reply)
    # the referenced type's tags are its own schema's, not this text's
    assert body["schemaTags"] == [{"schemaEntity": {"entityPath": "shop.Event.note", "entityType": "sr_field"},
                                   "tags": ["PII"]}]
