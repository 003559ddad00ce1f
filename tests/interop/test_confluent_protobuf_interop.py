"""Our Protobuf serializers and confluent-kafka 2.16.0's, through the registry under gunicorn
(SQLite and PostgreSQL): theirs to theirs, theirs to ours and ours to theirs, with a message
whose file imports another registered file (which imports a third) and the well-known
`google/protobuf/timestamp.proto` and `google/type/date.proto`, and with nested messages
(non-zero message indexes). Both clients register the same serialized file, so they share
schema ids and write identical bytes."""
from __future__ import annotations

from confluent_kafka.schema_registry import SchemaRegistryClient
from confluent_kafka.schema_registry.protobuf import ProtobufDeserializer as ConfluentDeserializer
from confluent_kafka.schema_registry.protobuf import ProtobufSerializer as ConfluentSerializer
from support.interop import context

from app.client import LookupOnly, ProtobufDeserializer, ProtobufSerializer, RegistryClient, UseLatest


def their_serializer(message_type, confluent: SchemaRegistryClient, **conf) -> ConfluentSerializer:
    return ConfluentSerializer(message_type, confluent, conf=conf)


def their_deserializer(message_type) -> ConfluentDeserializer:
    return ConfluentDeserializer(message_type, {})


def test_confluent_writes_and_reads_through_our_registry(protobuf_samples, confluent, unique_subject):
    shop = protobuf_samples.order_pb2
    topic = unique_subject("t")
    orders = [protobuf_samples.order(i) for i in range(30)]
    data = [their_serializer(shop.Order, confluent)(order, context(topic)) for order in orders]
    assert [their_deserializer(shop.Order)(item, context(topic)) for item in data] == orders

    discount = shop.Order.Line.Discount(percent=12)
    nested = their_serializer(shop.Order.Line.Discount, confluent)(discount, context(topic))
    assert nested[5:9] == b"\x06\x00\x00\x00"
    assert their_deserializer(shop.Order.Line.Discount)(nested, context(topic)) == discount
    assert confluent.get_latest_version("serde_samples/customer.proto").schema.references[0].name == \
        "serde_samples/address.proto"


def test_confluent_writes_and_we_read_typed_and_dynamic(protobuf_samples, confluent, ours, unique_subject):
    shop = protobuf_samples.order_pb2
    topic = unique_subject("t")
    orders = [protobuf_samples.order(i) for i in range(30)]
    serialize = their_serializer(shop.Order, confluent)
    data = [serialize(order, context(topic)) for order in orders]
    assert [ProtobufDeserializer(ours, shop.Order)(item) for item in data] == orders
    dynamic = ProtobufDeserializer(RegistryClient(ours.urls))
    read = [dynamic(item) for item in data]
    assert [message.SerializeToString() for message in read] == [order.SerializeToString() for order in orders]
    assert read[7].buyer.address.zip == "4007" and read[7].placed_at.seconds == 1_700_000_007

    refund = shop.Refund(order_id=3, reason="lost")
    second = their_serializer(shop.Refund, confluent)(refund, context(topic))
    assert second[5:7] == b"\x02\x02"
    assert ProtobufDeserializer(ours, shop.Refund)(second) == refund
    assert dynamic(second).DESCRIPTOR.full_name == "serde.samples.Refund"


def test_we_write_and_confluent_reads(protobuf_samples, confluent, ours, unique_subject):
    shop = protobuf_samples.order_pb2
    topic = unique_subject("t")
    orders = [protobuf_samples.order(i) for i in range(30)]
    serialize = ProtobufSerializer(ours, shop.Order, topic=topic)
    assert [their_deserializer(shop.Order)(serialize(order), context(topic)) for order in orders] == orders

    line = orders[2].lines[0]
    nested = ProtobufSerializer(ours, shop.Order.Line, topic=topic)(line)
    assert nested[5:8] == b"\x04\x00\x00"
    assert their_deserializer(shop.Order.Line)(nested, context(topic)) == line


def test_both_serializers_write_identical_bytes_under_one_schema_id(protobuf_samples, confluent, ours,
                                                                    unique_subject):
    shop = protobuf_samples.order_pb2
    topic = unique_subject("t")
    order, discount = protobuf_samples.order(5), shop.Order.Line.Discount(percent=40)
    theirs = [their_serializer(cls, confluent)(message, context(topic))
              for cls, message in ((shop.Order, order), (shop.Order.Line.Discount, discount))]
    mine = [ProtobufSerializer(ours, cls, topic=topic)(message)
            for cls, message in ((shop.Order, order), (shop.Order.Line.Discount, discount))]
    assert mine == theirs
    assert ours.get_versions(f"{topic}-value") == [1]


def test_confluent_registers_and_we_write_with_its_id(protobuf_samples, confluent, ours, unique_subject):
    shop = protobuf_samples.order_pb2
    topic = unique_subject("t")
    order = protobuf_samples.order(9)
    theirs = their_serializer(shop.Order, confluent)(order, context(topic))
    latest = ProtobufSerializer(RegistryClient(ours.urls), shop.Order, topic=topic, writer=UseLatest())
    lookup = ProtobufSerializer(RegistryClient(ours.urls), shop.Order, topic=topic, writer=LookupOnly())
    assert latest(order) == lookup(order) == theirs
    # ...and confluent-kafka looks up what we registered, without registering anything itself.
    mine_topic = unique_subject("mine")
    mine = ProtobufSerializer(ours, shop.Order.Line.Discount, topic=mine_topic)(shop.Order.Line.Discount(percent=1))
    looked_up = their_serializer(shop.Order.Line.Discount, confluent, **{"auto.register.schemas": False})
    assert looked_up(shop.Order.Line.Discount(percent=1), context(mine_topic)) == mine
