"""Our JSON Schema serializers and confluent-kafka 2.16.0's, both ways, through the registry under
gunicorn (SQLite and PostgreSQL), with and without references to other subjects: what one
writes the other reads and validates, byte for byte where the record is plain JSON."""
from __future__ import annotations

import pytest
from confluent_kafka.schema_registry import Schema as ConfluentSchema
from confluent_kafka.schema_registry import SchemaReference as ConfluentReference
from confluent_kafka.schema_registry.json_schema import JSONDeserializer as ConfluentDeserializer
from confluent_kafka.schema_registry.json_schema import JSONSerializer as ConfluentSerializer
from confluent_kafka.serialization import SerializationError as ConfluentSerializationError
from support.interop import context
from support.json_samples import (
    ADDRESS,
    CUSTOMER,
    CUSTOMER_WITH_ADDRESS,
    EVENT_V3,
    ORDER,
    ORDER_RECORD,
    event_record,
)

from app.client import (
    JsonDeserializer,
    JsonSerializer,
    LookupOnly,
    RecordInvalid,
    RegistryClient,
    Schema,
    SchemaReference,
    UseLatest,
)


def json_schema(text: str, *references: SchemaReference) -> Schema:
    return Schema(text, "JSON", references)


def test_same_schema_and_record_give_identical_bytes(confluent, ours, unique_subject):
    topic = unique_subject("t")
    record = event_record(3, 7)  # a non-ASCII string included: both write UTF-8, unescaped
    theirs = ConfluentSerializer(EVENT_V3, confluent)(record, context(topic))
    mine = JsonSerializer(ours, EVENT_V3, topic=topic)(record)
    assert mine == theirs
    assert confluent.get_latest_version(f"{topic}-value").schema.schema_type == "JSON"


def test_confluent_writes_and_we_read(confluent, ours, unique_subject):
    topic = unique_subject("t")
    serialize = ConfluentSerializer(EVENT_V3, confluent)
    records = [event_record(3, i) for i in range(50)]
    data = [serialize(record, context(topic)) for record in records]
    deserialize = JsonDeserializer(ours)
    assert [deserialize(item) for item in data] == records


def test_we_write_and_confluent_reads(confluent, ours, unique_subject):
    topic = unique_subject("t")
    serialize = JsonSerializer(ours, EVENT_V3, topic=topic)
    records = [event_record(3, i) for i in range(50)]
    deserialize = ConfluentDeserializer(None, schema_registry_client=confluent)
    assert [deserialize(serialize(record), context(topic)) for record in records] == records


def test_a_record_one_side_wrote_without_validation_is_refused_by_the_other_sides_reader(confluent, ours,
                                                                                        unique_subject):
    topic = unique_subject("t")
    bad = {"name": 7}
    theirs = ConfluentSerializer(EVENT_V3, confluent, conf={"validate": False})(bad, context(topic))
    with pytest.raises(RecordInvalid, match="at #/name"):
        JsonDeserializer(ours)(theirs)
    mine = JsonSerializer(ours, EVENT_V3, topic=topic, validate=False)(bad)
    with pytest.raises(ConfluentSerializationError):
        ConfluentDeserializer(None, schema_registry_client=confluent)(mine, context(topic))


def test_schemas_with_references_interoperate_both_ways(confluent, ours, unique_subject):
    topic = unique_subject("t")
    customer_subject = unique_subject("customer")
    ours.register(customer_subject, json_schema(CUSTOMER))

    mine = JsonSerializer(ours, json_schema(ORDER, SchemaReference("customer.json", customer_subject, 1)),
                          topic=topic)(ORDER_RECORD)
    assert ConfluentDeserializer(None, schema_registry_client=confluent)(mine, context(topic)) == ORDER_RECORD

    order = ConfluentSchema(ORDER, "JSON", [ConfluentReference("customer.json", customer_subject, 1)])
    theirs = ConfluentSerializer(order, confluent, conf={"auto.register.schemas": False, "use.latest.version": True})
    data = theirs(ORDER_RECORD, context(topic))
    assert data == mine
    assert JsonDeserializer(RegistryClient(ours.urls))(data) == ORDER_RECORD


def test_confluent_registers_a_referencing_schema_and_we_write_with_its_id(confluent, ours, unique_subject):
    topic = unique_subject("t")
    address, customer = unique_subject("address"), unique_subject("customer")
    confluent.register_schema(address, ConfluentSchema(ADDRESS, "JSON"))
    confluent.register_schema(customer, ConfluentSchema(CUSTOMER_WITH_ADDRESS, "JSON",
                                                        [ConfluentReference("address.json", address, 1)]))
    order = ConfluentSchema(ORDER, "JSON", [ConfluentReference("customer.json", customer, 1)])
    record = {"buyer": {"id": 8, "address": {"city": "Porto", "zip": "40000"}}, "total": 12}
    theirs = ConfluentSerializer(order, confluent)(record, context(topic))

    assert JsonDeserializer(ours)(theirs) == record
    mine = JsonSerializer(ours, subject=f"{topic}-value", writer=UseLatest())
    assert mine(record) == theirs
    with pytest.raises(RecordInvalid, match="at #/buyer/address/zip"):  # validated through address.json
        mine({"buyer": {"id": 8, "address": {"city": "Porto", "zip": "4"}}, "total": 12})
    ordered = json_schema(ORDER, SchemaReference("customer.json", customer, 1))
    assert JsonSerializer(ours, ordered, subject=f"{topic}-value", writer=LookupOnly())(record) == theirs
