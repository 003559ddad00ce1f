"""Our serializers and confluent-kafka 2.16.0's, both ways, through the registry under gunicorn
(SQLite and PostgreSQL): what one writes the other reads, byte for byte where the framing is
the same."""
from __future__ import annotations

import json

from support.client_samples import USER_V1, USER_V2, user_record
from confluent_kafka.schema_registry import (
    Schema as ConfluentSchema,
    SchemaReference as ConfluentReference,
    topic_record_subject_name_strategy,
)
from confluent_kafka.schema_registry.avro import AvroDeserializer as ConfluentDeserializer
from confluent_kafka.schema_registry.avro import AvroSerializer as ConfluentSerializer
from support.interop import context

from app.client import (
    AvroDeserializer,
    AvroSerializer,
    LookupOnly,
    PinnedVersion,
    ReaderVersion,
    RegistryClient,
    Schema,
    SchemaReference,
    UseLatest,
    topic_record_name,
)

CUSTOMER = json.dumps({"type": "record", "name": "Customer", "namespace": "com.example",
                       "fields": [{"name": "id", "type": "long"}, {"name": "vip", "type": "boolean"}]})
ORDER = json.dumps({"type": "record", "name": "Order", "namespace": "com.example",
                    "fields": [{"name": "buyer", "type": "com.example.Customer"}, {"name": "total", "type": "double"}]})


def test_same_schema_and_record_give_identical_bytes(confluent, ours, unique_subject):
    topic = unique_subject("t")
    record = user_record(2, 11)
    theirs = ConfluentSerializer(confluent, USER_V2)(record, context(topic))
    mine = AvroSerializer(ours, USER_V2, topic=topic)(record)
    assert mine == theirs
    assert mine[0] == 0 and len(mine) > 5


def test_confluent_writes_and_we_read(confluent, ours, unique_subject):
    topic = unique_subject("t")
    serialize = ConfluentSerializer(confluent, USER_V2)
    records = [user_record(2, i) for i in range(50)]
    data = [serialize(record, context(topic)) for record in records]
    deserialize = AvroDeserializer(ours)
    assert [deserialize(item) for item in data] == records


def test_we_write_and_confluent_reads(confluent, ours, unique_subject):
    topic = unique_subject("t")
    serialize = AvroSerializer(ours, USER_V2, topic=topic)
    records = [user_record(2, i) for i in range(50)]
    deserialize = ConfluentDeserializer(confluent)
    assert [deserialize(serialize(record), context(topic)) for record in records] == records


def test_projection_both_ways_across_versions(confluent, ours, unique_subject):
    topic = unique_subject("t")
    subject = f"{topic}-value"
    old = ConfluentSerializer(confluent, USER_V1)(user_record(1, 1), context(topic))
    new = AvroSerializer(ours, USER_V2, subject=subject)(user_record(2, 2))

    latest = AvroDeserializer(ours, reader=ReaderVersion(subject))
    assert latest(old) == {"name": "user-1", "age": 0}
    assert latest(new) == {"name": "user-2", "age": 2}
    assert AvroDeserializer(ours, reader=ReaderVersion(subject, 1))(new) == {"name": "user-2"}

    confluent_v1_reader = ConfluentDeserializer(confluent, USER_V1)
    assert confluent_v1_reader(new, context(topic)) == {"name": "user-2"}


def test_writer_choices_reach_the_ids_confluent_registered(confluent, ours, unique_subject):
    topic = unique_subject("t")
    subject = f"{topic}-value"
    v1 = ConfluentSerializer(confluent, USER_V1)(user_record(1, 0), context(topic))
    v2 = ConfluentSerializer(confluent, USER_V2)(user_record(2, 0), context(topic))
    assert AvroSerializer(ours, USER_V1, subject=subject, writer=LookupOnly())(user_record(1, 0)) == v1
    assert AvroSerializer(ours, subject=subject, writer=PinnedVersion(1))(user_record(1, 0)) == v1
    assert AvroSerializer(ours, subject=subject, writer=UseLatest())(user_record(2, 0)) == v2


def test_topic_record_name_strategy_names_the_same_subject_as_confluents(confluent, ours, unique_subject):
    topic = unique_subject("t")
    theirs = ConfluentSerializer(confluent, USER_V1, conf={"subject.name.strategy": topic_record_subject_name_strategy})
    data = theirs(user_record(1, 3), context(topic))
    mine = AvroSerializer(ours, USER_V1, topic=topic, subject_name_strategy=topic_record_name)
    assert mine.subject == f"{topic}-com.example.User"
    assert mine(user_record(1, 3)) == data
    assert confluent.get_latest_version(mine.subject).schema_id == mine.writer.schema_id


def test_schemas_with_references_interoperate(confluent, ours, unique_subject):
    topic = unique_subject("t")
    customer_subject = unique_subject("customer")
    ours.register(customer_subject, CUSTOMER)
    order = Schema(ORDER, references=(SchemaReference("com.example.Customer", customer_subject, 1),))
    record = {"buyer": {"id": 42, "vip": True}, "total": 9.5}

    mine = AvroSerializer(ours, order, topic=topic)(record)
    assert ConfluentDeserializer(confluent)(mine, context(topic)) == record

    confluent_order = ConfluentSchema(ORDER, "AVRO", [ConfluentReference("com.example.Customer", customer_subject, 1)])
    theirs = ConfluentSerializer(confluent, confluent_order, conf={"auto.register.schemas": False,
                                                                   "use.latest.version": True})
    data = theirs(record, context(topic))
    assert data == mine
    assert AvroDeserializer(RegistryClient(ours.urls))(data) == record
