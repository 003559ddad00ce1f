"""confluent-kafka 2.16's Associations calls and its `AssociatedNameStrategy` (the default
subject naming of its serializers) against the registry under gunicorn: the client's
`create_association`, `get_associations_by_resource_name` and `delete_associations`, a
serializer registering under the subject its topic is associated with, and, with auth on, a
producer whose lookup meets a topic it may not see falling back to topic naming instead of
failing on a 401 or 403."""
from __future__ import annotations

import json
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from security.auth_support import hashed, serve_with_auth_file
from confluent_kafka.schema_registry import (
    AssociationCreateOrUpdateInfo,
    AssociationCreateOrUpdateRequest,
    Schema,
    SchemaRegistryClient,
)
from confluent_kafka.schema_registry.avro import AvroSerializer
from confluent_kafka.serialization import MessageField, SerializationContext

RECORD = json.dumps({"type": "record", "name": "Order", "fields": [{"name": "id", "type": "string"}]})
CLUSTER = "lkc-interop"
# The serializers' AssociatedNameStrategy looks associations up in this namespace ("-" otherwise).
ASSOCIATED_IN_CLUSTER = {"subject.name.strategy.conf": {"subject.name.strategy.kafka.cluster.id": CLUSTER}}


@pytest.fixture
def registry(live_server: str) -> Iterator[SchemaRegistryClient]:
    client = SchemaRegistryClient({"url": live_server, "max.retries": 0})
    yield client
    client.close()


def topic_name() -> str:
    return f"topic-{uuid.uuid4().hex[:10]}"


def test_the_clients_association_calls_create_find_and_delete(registry: SchemaRegistryClient) -> None:
    topic, subject = topic_name(), f"shared-{uuid.uuid4().hex[:8]}"
    registry.register_schema(subject, Schema(RECORD, "AVRO"))
    made = registry.create_association(AssociationCreateOrUpdateRequest(
        resource_name=topic, resource_namespace=CLUSTER, resource_id=f"id-{topic}", resource_type="topic",
        associations=[AssociationCreateOrUpdateInfo(subject=subject, association_type="value", lifecycle="WEAK")]))
    assert made.resource_id == f"id-{topic}"
    assert [(a.subject, a.association_type, a.lifecycle) for a in made.associations] == [(subject, "value", "WEAK")]

    for namespace in (CLUSTER, "-"):
        (found,) = registry.get_associations_by_resource_name(topic, namespace, "topic", ["value"])
        assert (found.subject, found.resource_id, found.resource_namespace) == (subject, f"id-{topic}", CLUSTER)
    assert registry.get_associations_by_resource_name(topic, "-", "topic", ["key"]) == []

    registry.delete_associations(f"id-{topic}", "topic", ["value"])
    assert registry.get_associations_by_resource_name(topic, "-") == []


def test_a_strong_association_made_through_the_client_registers_its_schema(registry: SchemaRegistryClient) -> None:
    topic = topic_name()
    made = registry.create_association(AssociationCreateOrUpdateRequest(
        resource_name=topic, resource_namespace=CLUSTER, resource_id=f"id-{topic}",
        associations=[AssociationCreateOrUpdateInfo(association_type="value", schema=Schema(RECORD, "AVRO"))]))
    (info,) = made.associations
    subject = f":.{CLUSTER}:{topic}-value"
    assert (info.subject, info.lifecycle) == (subject, "STRONG")
    assert json.loads(info.schema.schema_str) == json.loads(RECORD)
    assert registry.get_versions(subject) == [1]
    registry.delete_associations(f"id-{topic}", cascade_lifecycle=True)
    assert not [s for s in registry.get_subjects() if topic in s]


def test_the_default_serializer_registers_under_the_associated_subject_or_else_the_topics(
        registry: SchemaRegistryClient) -> None:
    associated, plain = topic_name(), topic_name()
    subject = f"custom-{uuid.uuid4().hex[:8]}"
    registry.register_schema(subject, Schema(RECORD, "AVRO"))
    registry.create_association(AssociationCreateOrUpdateRequest(
        resource_name=associated, resource_namespace=CLUSTER, resource_id=f"id-{associated}",
        associations=[AssociationCreateOrUpdateInfo(subject=subject, association_type="value", lifecycle="WEAK")]))
    serializer = AvroSerializer(registry, RECORD, conf=ASSOCIATED_IN_CLUSTER)
    serializer({"id": "1"}, SerializationContext(associated, MessageField.VALUE))
    serializer({"id": "2"}, SerializationContext(plain, MessageField.VALUE))
    assert registry.get_versions(subject) == [1]
    assert registry.get_versions(f"{plain}-value") == [1]
    assert f"{associated}-value" not in registry.get_subjects()


AUTH = f"""
[authentication]
max_failures_per_minute = 1000000

[[users]]
name = "producer"
password = "{{producer}}"

[[users]]
name = "ops"
password = "{{ops}}"

[[grants]]
principal = "user:ops"
role = "admin"
scope = "global"

[[grants]]
principal = "user:producer"
role = "write"
subjects = ["prefix:orders"]
"""


@pytest.fixture(scope="module")
def guarded_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    workdir: Path = tmp_path_factory.mktemp("associations-auth")
    live = serve_with_auth_file(workdir, AUTH.format(producer=hashed("producer-secret"), ops=hashed("ops-secret")))
    try:
        yield live.url
    finally:
        live.stop()


def test_with_auth_on_a_producers_lookup_of_a_topic_it_cannot_see_falls_back_to_topic_naming(
        guarded_server: str) -> None:
    ops = SchemaRegistryClient({"url": guarded_server, "basic.auth.user.info": "ops:ops-secret"})
    producer = SchemaRegistryClient({"url": guarded_server, "basic.auth.user.info": "producer:producer-secret",
                                     "max.retries": 0})
    try:
        ops.register_schema("secret-value", Schema(RECORD, "AVRO"))
        ops.create_association(AssociationCreateOrUpdateRequest(
            resource_name="orders-hidden", resource_namespace=CLUSTER, resource_id="id-hidden",
            associations=[AssociationCreateOrUpdateInfo(subject="secret-value", association_type="value",
                                                         lifecycle="WEAK")]))
        # Unknown topic and a topic whose subject the producer may not read: both `[]`, no 401/403.
        assert producer.get_associations_by_resource_name("orders-new", "-", "topic", ["value"]) == []
        assert producer.get_associations_by_resource_name("orders-hidden", CLUSTER, "topic", ["value"]) == []
        serializer = AvroSerializer(producer, RECORD)
        assert serializer({"id": "1"}, SerializationContext("orders-new", MessageField.VALUE))
        hidden = AvroSerializer(producer, RECORD, conf=ASSOCIATED_IN_CLUSTER)
        assert hidden({"id": "2"}, SerializationContext("orders-hidden", MessageField.VALUE))
        assert ops.get_versions("orders-new-value") == [1]
        assert ops.get_versions("orders-hidden-value") == [1]
    finally:
        producer.close()
        ops.close()
