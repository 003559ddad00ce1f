"""The official confluent-kafka Python client against the registry running under gunicorn.

These tests pin what a Kafka application sees: the ids, versions and error codes Confluent's
registry would give, reached through the real client (its URL encoding, query flags, caching
and retries) over real HTTP. The server is shared per database kind, so every test works in
subjects of its own and never touches the global config or mode.
"""
from __future__ import annotations

import json
from typing import Any, Callable, Iterator

import pytest
from confluent_kafka.schema_registry import (
    Schema,
    SchemaReference,
    SchemaRegistryClient,
    SchemaRegistryError,
)
from confluent_kafka.schema_registry.avro import AvroDeserializer, AvroSerializer
from confluent_kafka.schema_registry.schema_registry_client import ConfigCompatibilityLevel, ServerConfig
from confluent_kafka.serialization import MessageField, SerializationContext

USER_V1 = json.dumps({
    "type": "record", "name": "User", "namespace": "com.example",
    "fields": [{"name": "name", "type": "string"}],
})
# BACKWARD-compatible with v1: the new field has a default, so v2 readers can read v1 data.
USER_V2 = json.dumps({
    "type": "record", "name": "User", "namespace": "com.example",
    "fields": [{"name": "name", "type": "string"}, {"name": "age", "type": "int", "default": 0}],
})
# Not BACKWARD-compatible with v1: a v2 reader finds no value (and no default) for `email`.
USER_NO_DEFAULT = json.dumps({
    "type": "record", "name": "User", "namespace": "com.example",
    "fields": [{"name": "name", "type": "string"}, {"name": "email", "type": "string"}],
})
CUSTOMER = json.dumps({
    "type": "record", "name": "Customer", "namespace": "com.example",
    "fields": [{"name": "id", "type": "long"}],
})
ORDER = json.dumps({
    "type": "record", "name": "Order", "namespace": "com.example",
    "fields": [{"name": "customer", "type": "com.example.Customer"}],
})


@pytest.fixture
def registry(live_server: str) -> Iterator[SchemaRegistryClient]:
    """A client of its own per test (the client caches), failing fast instead of retrying."""
    client = SchemaRegistryClient({"url": live_server, "max.retries": 0})
    yield client
    client.close()


def avro(text: str, references: list[SchemaReference] | None = None) -> Schema:
    return Schema(text, "AVRO", references or [])


def expect_error(call: Callable[[], Any], error_code: int, http_status: int) -> SchemaRegistryError:
    with pytest.raises(SchemaRegistryError) as caught:
        call()
    assert (caught.value.error_code, caught.value.http_status_code) == (error_code, http_status), str(caught.value)
    return caught.value


# ------------------------------------------------------------------ register, read, look up
def test_register_returns_a_new_id_and_version_one_then_the_same_answer_again(registry, unique_subject):
    subject = unique_subject()
    first = registry.register_schema_full_response(subject, avro(USER_V1))
    assert first.version == 1
    assert first.subject == subject
    assert isinstance(first.schema_id, int) and first.schema_id > 0

    fresh = SchemaRegistryClient({"url": registry.config()["url"]})  # bypass the client cache
    again = fresh.register_schema_full_response(subject, avro(USER_V1))
    assert (again.schema_id, again.version) == (first.schema_id, 1)
    assert registry.register_schema(subject, avro(USER_V1)) == first.schema_id


def test_the_same_schema_under_another_subject_keeps_its_id(registry, unique_subject):
    first = registry.register_schema(unique_subject("a"), avro(USER_V1))
    other = registry.register_schema_full_response(unique_subject("b"), avro(USER_V1))
    assert (other.schema_id, other.version) == (first, 1)


def test_a_new_schema_gets_a_larger_id_and_the_next_version(registry, unique_subject):
    subject = unique_subject()
    # Texts no other test registers on the shared server: a text seen before keeps its older id.
    own = "ns" + subject.replace("-", "_").replace(".", "_")
    v1 = registry.register_schema_full_response(subject, avro(USER_V1.replace("com.example", own)))
    v2 = registry.register_schema_full_response(subject, avro(USER_V2.replace("com.example", own)))
    assert v2.version == 2
    assert v2.schema_id > v1.schema_id


def test_get_schema_by_id_returns_the_registered_schema(registry, unique_subject):
    subject = unique_subject()
    schema_id = registry.register_schema(subject, avro(USER_V2))
    fetched = SchemaRegistryClient({"url": registry.config()["url"]}).get_schema(schema_id, subject_name=subject)
    assert fetched.schema_type == "AVRO"
    assert json.loads(fetched.schema_str) == json.loads(USER_V2)


def test_get_schema_of_an_unknown_id_is_40403(registry):
    expect_error(lambda: registry.get_schema(2_000_000_000), 40403, 404)


def test_lookup_schema_finds_subject_version_and_id(registry, unique_subject):
    subject = unique_subject()
    registered = registry.register_schema_full_response(subject, avro(USER_V1))
    registry.register_schema(subject, avro(USER_V2))
    fresh = SchemaRegistryClient({"url": registry.config()["url"]})
    found = fresh.lookup_schema(subject, avro(USER_V1))
    assert (found.subject, found.version, found.schema_id) == (subject, 1, registered.schema_id)


def test_lookup_of_an_unregistered_schema_is_40403_and_of_an_unknown_subject_40401(registry, unique_subject):
    subject = unique_subject()
    registry.register_schema(subject, avro(USER_V1))
    expect_error(lambda: registry.lookup_schema(subject, avro(CUSTOMER)), 40403, 404)
    expect_error(lambda: registry.lookup_schema(unique_subject("missing"), avro(USER_V1)), 40401, 404)


def test_subjects_and_versions_are_listed(registry, unique_subject):
    subject = unique_subject()
    registry.register_schema(subject, avro(USER_V1))
    registry.register_schema(subject, avro(USER_V2))
    assert subject in registry.get_subjects()
    assert registry.get_versions(subject) == [1, 2]


def test_get_version_and_get_latest_version(registry, unique_subject):
    subject = unique_subject()
    id1 = registry.register_schema(subject, avro(USER_V1))
    id2 = registry.register_schema(subject, avro(USER_V2))

    one = registry.get_version(subject, 1)
    assert (one.subject, one.version, one.schema_id) == (subject, 1, id1)
    assert json.loads(one.schema.schema_str) == json.loads(USER_V1)

    latest = registry.get_latest_version(subject)
    assert (latest.version, latest.schema_id) == (2, id2)
    assert registry.get_version(subject, "latest").version == 2


def test_missing_versions_and_subjects_are_40402_and_40401(registry, unique_subject):
    subject = unique_subject()
    registry.register_schema(subject, avro(USER_V1))
    expect_error(lambda: registry.get_version(subject, 7), 40402, 404)
    expect_error(lambda: registry.get_latest_version(unique_subject("missing")), 40401, 404)
    expect_error(lambda: registry.get_versions(unique_subject("missing")), 40401, 404)


def test_an_invalid_schema_is_42201(registry, unique_subject):
    expect_error(lambda: registry.register_schema(unique_subject(), avro('{"type": "recrod"}')), 42201, 422)


def test_an_incompatible_schema_is_40901(registry, unique_subject):
    subject = unique_subject()
    registry.register_schema(subject, avro(USER_V1))
    expect_error(lambda: registry.register_schema(subject, avro(USER_NO_DEFAULT)), 40901, 409)
    assert registry.get_versions(subject) == [1]


# ------------------------------------------------------------------ deletes
def test_soft_then_permanent_delete_of_a_version(registry, unique_subject):
    subject = unique_subject()
    registry.register_schema(subject, avro(USER_V1))
    registry.register_schema(subject, avro(USER_V2))

    expect_error(lambda: registry.delete_version(subject, 2, permanent=True), 40407, 404)
    assert registry.delete_version(subject, 2) == 2
    assert registry.get_versions(subject) == [1]
    assert registry.get_versions(subject, deleted=True) == [1, 2]
    expect_error(lambda: registry.get_version(subject, 2), 40402, 404)
    assert registry.get_version(subject, 2, deleted=True).version == 2
    expect_error(lambda: registry.delete_version(subject, 2), 40406, 404)

    assert registry.delete_version(subject, 2, permanent=True) == 2
    assert registry.get_versions(subject, deleted=True) == [1]


def test_soft_deleted_version_numbers_are_not_reused_but_hard_deleted_ones_are(registry, unique_subject):
    subject = unique_subject()
    evolved = json.loads(USER_V2)
    evolved["fields"].append({"name": "city", "type": "string", "default": ""})
    user_v3 = avro(json.dumps(evolved))
    registry.register_schema(subject, avro(USER_V1))
    registry.register_schema(subject, avro(USER_V2))

    registry.delete_version(subject, 2)
    assert registry.register_schema_full_response(subject, user_v3).version == 3

    registry.delete_version(subject, 3)
    registry.delete_version(subject, 3, permanent=True)
    registry.delete_version(subject, 2, permanent=True)
    fresh = SchemaRegistryClient({"url": registry.config()["url"]})  # the first client cached v3
    assert fresh.register_schema_full_response(subject, user_v3).version == 2


def test_soft_then_permanent_delete_of_a_subject(registry, unique_subject):
    subject = unique_subject()
    schema_id = registry.register_schema(subject, avro(USER_V1))
    registry.register_schema(subject, avro(USER_V2))

    expect_error(lambda: registry.delete_subject(subject, permanent=True), 40405, 404)
    assert registry.delete_subject(subject) == [1, 2]
    assert subject not in registry.get_subjects()
    assert subject in registry.get_subjects(deleted=True)
    expect_error(lambda: registry.get_versions(subject), 40401, 404)
    expect_error(lambda: registry.delete_subject(subject), 40404, 404)
    # A soft-deleted schema is still readable by id: consumers may hold data written with it.
    assert json.loads(registry.get_schema(schema_id).schema_str) == json.loads(USER_V1)

    assert registry.delete_subject(subject, permanent=True) == [1, 2]
    assert subject not in registry.get_subjects(deleted=True)
    expect_error(lambda: registry.delete_subject(subject), 40401, 404)


# ------------------------------------------------------------------ compatibility and config
def test_subject_compatibility_level_can_be_set_and_read(registry, unique_subject):
    subject = unique_subject()
    registry.register_schema(subject, avro(USER_V1))
    expect_error(lambda: registry.get_compatibility(subject), 40408, 404)

    assert registry.set_compatibility(subject, "FULL") == {"compatibility": "FULL"}
    assert registry.get_compatibility(subject) == "FULL"
    expect_error(lambda: registry.set_compatibility(subject, "SIDEWAYS"), 42203, 422)
    assert registry.get_compatibility() in {level.value for level in ConfigCompatibilityLevel}


def test_subject_config_round_trip(registry, unique_subject):
    subject = unique_subject()
    reply = registry.set_config(subject, ServerConfig(compatibility=ConfigCompatibilityLevel.FORWARD_TRANSITIVE))
    assert reply["compatibility"] == "FORWARD_TRANSITIVE"
    assert registry.get_config(subject).compatibility_level == ConfigCompatibilityLevel.FORWARD_TRANSITIVE


def test_none_level_allows_what_backward_refuses(registry, unique_subject):
    subject = unique_subject()
    registry.register_schema(subject, avro(USER_V1))
    registry.set_compatibility(subject, "NONE")
    assert registry.register_schema_full_response(subject, avro(USER_NO_DEFAULT)).version == 2


def test_test_compatibility_says_yes_and_no(registry, unique_subject):
    subject = unique_subject()
    registry.register_schema(subject, avro(USER_V1))
    assert registry.test_compatibility(subject, avro(USER_V2)) is True
    assert registry.test_compatibility(subject, avro(USER_NO_DEFAULT)) is False
    assert registry.test_compatibility(subject, avro(USER_V2), version=1, verbose=True) is True
    assert registry.test_compatibility_all_versions(subject, avro(USER_NO_DEFAULT)) is False
    expect_error(lambda: registry.test_compatibility(subject, avro(USER_V2), version=9), 40402, 404)


# ------------------------------------------------------------------ references
def test_referenced_by_lists_the_referencing_schema_and_guards_deletes(registry, unique_subject):
    customer_subject, order_subject = unique_subject("customer"), unique_subject("order")
    registry.register_schema(customer_subject, avro(CUSTOMER))
    reference = SchemaReference("com.example.Customer", customer_subject, 1)
    order_id = registry.register_schema(order_subject, avro(ORDER, [reference]))

    assert registry.get_referenced_by(customer_subject, 1) == [order_id]
    fetched = SchemaRegistryClient({"url": registry.config()["url"]}).get_schema(order_id)
    assert [(r.name, r.subject, r.version) for r in fetched.references] == [
        ("com.example.Customer", customer_subject, 1)
    ]
    expect_error(lambda: registry.delete_version(customer_subject, 1), 42206, 422)


# ------------------------------------------------------------------ modes
def test_subject_mode_can_be_set_read_and_blocks_writes_when_readonly(registry, unique_subject):
    subject = unique_subject()
    registry.register_schema(subject, avro(USER_V1))
    expect_error(lambda: registry.get_mode(subject), 40409, 404)
    assert registry.get_global_mode() == "READWRITE"

    assert registry.update_mode(subject, "READONLY") == "READONLY"
    assert registry.get_mode(subject) == "READONLY"
    expect_error(lambda: registry.register_schema(subject, avro(USER_V2)), 42205, 422)
    expect_error(lambda: registry.update_mode(subject, "SOMETIMES"), 42204, 422)

    assert registry.update_mode(subject, "READWRITE") == "READWRITE"
    assert registry.register_schema_full_response(subject, avro(USER_V2)).version == 2


# ------------------------------------------------------------------ serializers
def test_avro_serializer_and_deserializer_round_trip_with_schema_evolution(registry, unique_subject):
    topic = unique_subject("topic")
    ctx = SerializationContext(topic, MessageField.VALUE)
    writer_v1 = AvroSerializer(registry, USER_V1)
    old_bytes = writer_v1({"name": "ada"}, ctx)

    registered = registry.get_latest_version(f"{topic}-value")
    assert registered.version == 1
    assert old_bytes[0] == 0 and int.from_bytes(old_bytes[1:5], "big") == registered.schema_id
    assert AvroDeserializer(registry)(old_bytes, ctx) == {"name": "ada"}

    # Evolve the topic: v2 registers as version 2 (BACKWARD allows it) under a new id.
    new_bytes = AvroSerializer(registry, USER_V2)({"name": "grace", "age": 36}, ctx)
    registry.clear_latest_caches()  # the client remembers "latest" until told otherwise
    latest = registry.get_latest_version(f"{topic}-value")
    assert latest.version == 2
    assert int.from_bytes(new_bytes[1:5], "big") == latest.schema_id != registered.schema_id

    # A consumer on v2 reads old data (the default fills in) and new data alike.
    reader_v2 = AvroDeserializer(SchemaRegistryClient({"url": registry.config()["url"]}), USER_V2)
    assert reader_v2(old_bytes, ctx) == {"name": "ada", "age": 0}
    assert reader_v2(new_bytes, ctx) == {"name": "grace", "age": 36}
    # A consumer still on v1 reads new data by ignoring the field it does not know.
    assert AvroDeserializer(registry, USER_V1)(new_bytes, ctx) == {"name": "grace"}


def test_serializer_without_auto_register_looks_the_schema_up(registry, unique_subject):
    topic = unique_subject("topic")
    ctx = SerializationContext(topic, MessageField.KEY)
    schema_id = registry.register_schema(f"{topic}-key", avro(USER_V1))
    serializer = AvroSerializer(registry, USER_V1, conf={"auto.register.schemas": False})
    assert int.from_bytes(serializer({"name": "ada"}, ctx)[1:5], "big") == schema_id

    # Without auto-registration an unknown schema is an error, not a silent registration.
    unknown = AvroSerializer(registry, CUSTOMER, conf={"auto.register.schemas": False})
    expect_error(lambda: unknown({"id": 1}, ctx), 40403, 404)
    assert registry.get_versions(f"{topic}-key") == [1]
