"""Serializer options: subject naming strategies, writer choices, framings, bad records."""
from __future__ import annotations

import json
from concurrent.futures import ThreadPoolExecutor

import pytest
from support.client_samples import USER_V1, USER_V2, user_record

from app.client import (
    SINGLE_OBJECT,
    AvroDeserializer,
    AvroSerializer,
    InMemoryResolver,
    LookupOnly,
    RegistryClient,
    SchemaNotFound,
    SerializationError,
    record_name,
    topic_name,
    topic_record_name,
)


@pytest.mark.parametrize("strategy, field, expected", [
    (topic_name, "value", "orders-value"),
    (topic_name, "key", "orders-key"),
    (record_name, "value", "com.example.User"),
    (topic_record_name, "value", "orders-com.example.User"),
])
def test_subject_name_strategies(strategy, field, expected):
    assert strategy("orders", field, "com.example.User") == expected


@pytest.mark.parametrize("strategy", [record_name, topic_record_name])
def test_record_strategies_need_a_named_schema(strategy):
    with pytest.raises(ValueError, match="named record"):
        strategy("orders", "value", None)


def test_serializer_derives_its_subject_from_topic_and_record(counting_registry):
    client = RegistryClient(counting_registry.url)
    assert AvroSerializer(client, USER_V1, topic="orders").subject == "orders-value"
    assert AvroSerializer(client, USER_V1, topic="orders", field="key").subject == "orders-key"
    assert AvroSerializer(client, USER_V1, topic="t", subject_name_strategy=record_name).subject == "com.example.User"
    with pytest.raises(ValueError, match="subject"):
        AvroSerializer(client, USER_V1)


def test_a_record_that_does_not_fit_the_schema_is_a_serialization_error(counting_registry):
    serialize = AvroSerializer(RegistryClient(counting_registry.url), USER_V2, subject="users-value")
    with pytest.raises(SerializationError, match="schema id"):
        serialize({"name": "ada", "age": "not a number"})


def test_lookup_only_refuses_an_unregistered_schema(counting_registry):
    client = RegistryClient(counting_registry.url)
    client.register("users-value", USER_V1)
    with pytest.raises(SchemaNotFound):
        AvroSerializer(client, USER_V2, subject="users-value", writer=LookupOnly())(user_record(2, 1))


def test_single_object_framing_round_trips_without_any_id_on_the_wire(counting_registry):
    client = RegistryClient(counting_registry.url)
    serialize = AvroSerializer(client, USER_V2, subject="users-value", framing=SINGLE_OBJECT)
    data = serialize(user_record(2, 8))
    assert data[:2] == b"\xc3\x01"
    # A reader with the schemas from anywhere (here: a resolver filled from the registry).
    resolver = InMemoryResolver([client.get_schema(serialize.writer.schema_id)])
    assert AvroDeserializer(resolver, framing=SINGLE_OBJECT)(data) == user_record(2, 8)


def test_many_threads_sharing_a_serializer_register_once(counting_registry):
    serialize = AvroSerializer(RegistryClient(counting_registry.url), USER_V2, subject="shared-value")
    with ThreadPoolExecutor(max_workers=32) as pool:
        outputs = set(pool.map(lambda i: serialize(user_record(2, 1)), range(256)))
    assert len(outputs) == 1
    registrations = [target for method, target in counting_registry.requests if method == "POST"]
    assert registrations == ["/subjects/shared-value/versions?normalize=false"]


def test_schema_given_as_decoded_json_registers_the_same_id(counting_registry):
    client = RegistryClient(counting_registry.url)
    by_text = AvroSerializer(client, USER_V1, subject="users-value").writer
    by_dict = AvroSerializer(RegistryClient(counting_registry.url), json.loads(USER_V1), subject="users-value").writer
    assert by_dict.schema_id == by_text.schema_id
