"""Protobuf serializer and deserializer: the message-index block, round trips through the
registry under gunicorn (SQLite and PostgreSQL) with imports registered as references and
well-known imports left alone, dynamic messages built from the registry's serialized
descriptors, and the requests the server sees (one per schema id and reference).

Reading rules that need no registry run over an `InMemoryResolver` holding the serialized
files: under test there is the deserializer's choice of message, not the transport.
"""
from __future__ import annotations

import base64
import json
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest
from support.protobuf_samples import wide_file_message

from app.client import (
    SINGLE_OBJECT,
    InMemoryResolver,
    LookupOnly,
    PinnedVersion,
    ProtobufDeserializer,
    ProtobufSerializer,
    RegistryClient,
    Schema,
    SchemaReference,
    SerializationError,
    SubjectNotFound,
    UseLatest,
    record_name,
)
from app.client.message_indexes import decode_indexes, encode_indexes, message_path

REPO_ROOT = Path(__file__).resolve().parents[2]


def serialized(module) -> str:
    return base64.b64encode(module.DESCRIPTOR.serialized_pb).decode()


def framed(schema_id: int, block: bytes, message) -> bytes:
    return b"\x00" + schema_id.to_bytes(4, "big") + block + message.SerializeToString()


# ------------------------------------------------------------------ the message-index block
INDEX_BLOCKS = [
    ("the first message is the one-byte shortcut", (0,), "00"),
    ("the second top-level message", (1,), "0202"),
    ("the first message nested in the first", (0, 0), "040000"),
    ("three levels deep", (1, 2, 3), "06020406"),
    ("index 63 is the last one-byte varint", (63,), "027e"),
    ("index 64 takes two bytes", (64,), "028001"),
    ("a nested index past 63", (0, 65), "04008201"),
]


@pytest.mark.parametrize("case, path, block", INDEX_BLOCKS, ids=[case[0] for case in INDEX_BLOCKS])
def test_index_paths_encode_as_zigzag_varints_and_decode_back_to_where_the_payload_starts(case, path, block):
    data = b"\x00\x00\x00\x00\x07" + bytes.fromhex(block) + b"payload"
    assert encode_indexes(path).hex() == block
    assert decode_indexes(data, 5) == (path, 5 + len(bytes.fromhex(block)))


def test_a_zero_count_reads_as_the_first_message_as_the_java_client_writes_nothing_else():
    assert encode_indexes(()) == b"\x00"
    assert decode_indexes(b"\x00", 0) == ((0,), 1)


CORRUPT_BLOCKS = [
    ("no block at all", "", "cut short"),
    ("a count beyond the bytes left", "0a00", "announces 5 indexes"),
    ("a negative count", "01", "announces -1 indexes"),
    ("a negative index", "0201", "negative"),
    ("a varint that never ends", "ff" * 11, "more than 10 bytes"),
    ("an index cut off mid-varint", "0280", "cut short"),
]


@pytest.mark.parametrize("case, block, message", CORRUPT_BLOCKS, ids=[case[0] for case in CORRUPT_BLOCKS])
def test_corrupt_index_blocks_are_a_serialization_error(case, block, message):
    with pytest.raises(SerializationError, match=message):
        decode_indexes(b"\x00\x00\x00\x00\x07" + bytes.fromhex(block), 5)


def test_negative_indexes_cannot_be_written():
    with pytest.raises(ValueError, match="never negative"):
        encode_indexes((0, -1))


def test_message_paths_follow_declaration_order_at_every_level(protobuf_samples):
    shop = protobuf_samples.order_pb2
    assert message_path(shop.Order.DESCRIPTOR) == (0,)
    assert message_path(shop.Refund.DESCRIPTOR) == (1,)
    assert message_path(shop.Order.Line.DESCRIPTOR) == (0, 0)
    assert message_path(shop.Order.Line.Discount.DESCRIPTOR) == (0, 0, 0)
    assert message_path(wide_file_message(70, 65).DESCRIPTOR) == (65,)


# ------------------------------------------------------------------ reading, no registry
@pytest.fixture
def resolver(protobuf_samples) -> InMemoryResolver:
    """The sample files in their serialized form, order.proto as id 3 with its references."""
    source = InMemoryResolver()
    source.add(Schema(serialized(protobuf_samples.address_pb2), "PROTOBUF"), subject="address", schema_id=1)
    customer = Schema(serialized(protobuf_samples.customer_pb2), "PROTOBUF",
                      (SchemaReference("serde_samples/address.proto", "address", 1),))
    source.add(customer, subject="customer", schema_id=2)
    source.add(Schema(serialized(protobuf_samples.order_pb2), "PROTOBUF",
                      (SchemaReference("serde_samples/customer.proto", "customer", 1),)), schema_id=3)
    return source


def test_without_a_class_records_read_as_dynamic_messages_of_the_type_their_indexes_name(protobuf_samples, resolver):
    shop = protobuf_samples.order_pb2
    deserialize = ProtobufDeserializer(resolver)
    order, refund = protobuf_samples.order(4), shop.Refund(order_id=4, reason="late")
    discount = shop.Order.Line.Discount(percent=15)
    read = [deserialize(framed(3, block, message))
            for block, message in ((b"\x00", order), (b"\x02\x02", refund), (b"\x06\x00\x00\x00", discount))]
    assert [message.DESCRIPTOR.full_name for message in read] == [
        "serde.samples.Order", "serde.samples.Refund", "serde.samples.Order.Line.Discount"]
    assert [message.SerializeToString() for message in read] == [
        message.SerializeToString() for message in (order, refund, discount)]
    assert read[0].buyer.address.city == "Porto"  # through the transitive reference
    assert read[0].placed_at.seconds == order.placed_at.seconds  # a well-known import
    assert read[0].deliver_on.year == 2026
    assert type(read[0]) is not shop.Order  # its own pool: no clash with the generated class


def test_with_a_class_records_of_that_type_read_into_it(protobuf_samples, resolver):
    shop = protobuf_samples.order_pb2
    order = protobuf_samples.order(5)
    assert ProtobufDeserializer(resolver, shop.Order)(framed(3, b"\x00", order)) == order
    line = order.lines[0]
    assert ProtobufDeserializer(resolver, shop.Order.Line())(framed(3, b"\x04\x00\x00", line)) == line


def test_a_class_other_than_the_one_the_indexes_name_is_refused_not_misread(protobuf_samples, resolver):
    shop = protobuf_samples.order_pb2
    with pytest.raises(SerializationError, match=r"is a serde.samples.Refund .*not a serde.samples.Order"):
        ProtobufDeserializer(resolver, shop.Order)(framed(3, b"\x02\x02", shop.Refund(order_id=1)))


@pytest.mark.parametrize("block, message", [
    (b"\x02\x04", r"index \[2\] is out of range: .* has 2 message\(s\) at the top level"),
    (b"\x08\x00\x00\x00\x00", r"index \[0, 0, 0, 0\] is out of range: .* has 0 message\(s\) nested in Discount"),
])
def test_indexes_past_the_writers_messages_are_refused(protobuf_samples, resolver, block, message):
    with pytest.raises(SerializationError, match=message):
        ProtobufDeserializer(resolver)(framed(3, block, protobuf_samples.order_pb2.Refund()))


def test_writer_schemas_that_are_not_serialized_protobuf_are_refused(protobuf_samples):
    source = InMemoryResolver()
    source.add(Schema('"string"'), schema_id=1)
    source.add(Schema('syntax = "proto3"; message A { int32 a = 1; }', "PROTOBUF"), schema_id=2)
    with pytest.raises(SerializationError, match="schema id 1 is AVRO, not PROTOBUF"):
        ProtobufDeserializer(source)(b"\x00\x00\x00\x00\x01\x00")
    with pytest.raises(SerializationError, match="not a base64 FileDescriptorProto"):
        ProtobufDeserializer(source)(b"\x00\x00\x00\x00\x02\x00")


def test_an_import_that_is_neither_a_reference_nor_well_known_is_refused(protobuf_samples):
    source = InMemoryResolver([Schema(serialized(protobuf_samples.customer_pb2), "PROTOBUF")])
    with pytest.raises(SerializationError, match="imports serde_samples/address.proto, which is neither"):
        ProtobufDeserializer(source)(b"\x00\x00\x00\x00\x01\x00")


WELL_KNOWN_PROBE = """
import base64, json, sys
from google.protobuf.descriptor_pb2 import FileDescriptorProto
from app.client import InMemoryResolver, ProtobufDeserializer, Schema, SerializationError

def file(imported, type_name):
    proto = FileDescriptorProto(name="probe.proto", package="probe", syntax="proto3", dependency=[imported])
    proto.message_type.add(name="Probe").field.add(name="v", number=1, type=11, label=1, type_name=type_name)
    return Schema(base64.b64encode(proto.SerializeToString()).decode(), "PROTOBUF")

source = InMemoryResolver([file("google/type/latlng.proto", ".google.type.LatLng"),
                           file("confluent/meta.proto", ".confluent.Meta")])
loaded = "google.type.latlng_pb2" in sys.modules
message = ProtobufDeserializer(source)(bytes.fromhex("0000000001000a0909000000000000f03f"))
try:
    ProtobufDeserializer(source)(bytes.fromhex("000000000200"))
    refused = ""
except SerializationError as exc:
    refused = str(exc)
print(json.dumps([loaded, message.v.latitude, refused]))
"""


def test_well_known_imports_come_from_the_runtime_importing_their_modules_on_demand():
    """In a fresh interpreter (so no earlier test has loaded google/type/latlng.proto)."""
    result = subprocess.run([sys.executable, "-c", WELL_KNOWN_PROBE], cwd=REPO_ROOT, capture_output=True, text=True,
                            check=True)
    loaded, latitude, refused = json.loads(result.stdout)
    assert (loaded, latitude) == (False, 1.0)
    assert "imports confluent/meta.proto, a well-known file this process has no descriptor for" in refused


def test_payloads_that_are_not_the_message_are_a_serialization_error(protobuf_samples, resolver):
    with pytest.raises(SerializationError, match="as serde.samples.Order"):
        ProtobufDeserializer(resolver)(b"\x00\x00\x00\x00\x03\x00\x0a\xff")


def test_the_single_object_encoding_is_refused_for_protobuf(protobuf_samples, resolver):
    with pytest.raises(ValueError, match="names Avro schemas"):
        ProtobufDeserializer(resolver, framing=SINGLE_OBJECT)
    with pytest.raises(ValueError, match="names Avro schemas"):
        ProtobufSerializer(RegistryClient("http://127.0.0.1:9"), protobuf_samples.order_pb2.Order, subject="s",
                           framing=SINGLE_OBJECT)


# ------------------------------------------------------------------ through the registry
def test_records_round_trip_with_their_imports_registered_as_references(protobuf_samples, ours, unique_subject):
    topic = unique_subject("orders")
    serialize = ProtobufSerializer(ours, protobuf_samples.order_pb2.Order, topic=topic)
    orders = [protobuf_samples.order(i) for i in range(20)]
    data = [serialize(order) for order in orders]
    schema_id = serialize.writer.schema_id
    assert data[0] == b"\x00" + schema_id.to_bytes(4, "big") + b"\x00" + orders[0].SerializeToString()

    consumer = RegistryClient(ours.urls)
    assert [ProtobufDeserializer(consumer, protobuf_samples.order_pb2.Order)(item) for item in data] == orders
    dynamic = [ProtobufDeserializer(consumer)(item) for item in data]
    assert [message.SerializeToString() for message in dynamic] == [order.SerializeToString() for order in orders]

    stored = consumer.get_version(f"{topic}-value", 1).schema
    assert stored.references == (SchemaReference("serde_samples/customer.proto", "serde_samples/customer.proto", 1),)
    customer = consumer.get_version("serde_samples/customer.proto", 1).schema
    assert [reference.name for reference in customer.references] == ["serde_samples/address.proto"]
    well_known = {"google/protobuf/timestamp.proto", "google/type/date.proto"}
    assert not well_known & set(ours.get_subjects())
    assert 'import "google/protobuf/timestamp.proto";' in stored.text  # the registry prints the file as .proto


def test_nested_and_second_messages_share_the_files_schema_id_with_their_own_indexes(protobuf_samples, ours,
                                                                                     unique_subject):
    shop = protobuf_samples.order_pb2
    subject = unique_subject()
    discount, refund = shop.Order.Line.Discount(percent=30), shop.Refund(order_id=9, reason="damaged")
    to_discount = ProtobufSerializer(ours, shop.Order.Line.Discount, subject=subject)
    to_refund = ProtobufSerializer(ours, shop.Refund, subject=subject)
    written = [to_discount(discount), to_refund(refund)]
    schema_id = to_discount.writer.schema_id
    assert to_refund.writer.schema_id == schema_id and ours.get_versions(subject) == [1]
    header = b"\x00" + schema_id.to_bytes(4, "big")
    assert written == [header + b"\x06\x00\x00\x00" + discount.SerializeToString(),
                       header + b"\x02\x02" + refund.SerializeToString()]
    deserialize = ProtobufDeserializer(RegistryClient(ours.urls))
    assert [deserialize(item).DESCRIPTOR.full_name for item in written] == [
        "serde.samples.Order.Line.Discount", "serde.samples.Refund"]
    assert ProtobufDeserializer(ours, shop.Refund)(written[1]) == refund


def test_a_message_past_index_63_round_trips_with_a_two_byte_index(ours, unique_subject):
    wide = wide_file_message(70, 65)
    serialize = ProtobufSerializer(ours, wide(n=-3), subject=unique_subject())
    data = serialize(wide(n=-3))
    assert data[5:8] == b"\x02\x82\x01"
    read = ProtobufDeserializer(RegistryClient(ours.urls))(data)
    assert (read.DESCRIPTOR.full_name, read.n) == ("serde.samples.wide.M65", -3)


def test_writer_choices_subject_strategies_and_reference_subjects(protobuf_samples, ours, unique_subject):
    shop = protobuf_samples.order_pb2
    prefix = unique_subject("refs")
    order = protobuf_samples.order(1)
    first = ProtobufSerializer(ours, shop.Order, topic=prefix, subject_name_strategy=record_name,
                               reference_subject_name_strategy=lambda path: f"{prefix}-{path}")
    data = first(order)
    assert first.subject == "serde.samples.Order"
    assert f"{prefix}-serde_samples/address.proto" in ours.get_subjects(prefix=prefix)
    lookup = ProtobufSerializer(RegistryClient(ours.urls), shop.Order, subject="serde.samples.Order",
                                writer=LookupOnly(), reference_subject_name_strategy=lambda path: f"{prefix}-{path}")
    latest = ProtobufSerializer(ours, shop.Order, subject="serde.samples.Order", writer=UseLatest())
    pinned = ProtobufSerializer(ours, shop.Order, subject="serde.samples.Order", writer=PinnedVersion(1))
    assert lookup(order) == latest(order) == pinned(order) == data


def test_looking_up_a_file_whose_imports_were_never_registered_fails(protobuf_samples, ours, unique_subject):
    prefix = unique_subject("missing")
    serialize = ProtobufSerializer(ours, protobuf_samples.order_pb2.Order, subject=prefix, writer=LookupOnly(),
                                   reference_subject_name_strategy=lambda path: f"{prefix}-{path}")
    with pytest.raises(SubjectNotFound):
        serialize(protobuf_samples.order(1))


def test_a_message_of_another_class_is_refused(protobuf_samples, ours, unique_subject):
    shop = protobuf_samples.order_pb2
    serialize = ProtobufSerializer(ours, shop.Order, subject=unique_subject())
    with pytest.raises(SerializationError, match="writes serde.samples.Order messages, not Refund"):
        serialize(shop.Refund())


def test_writing_with_an_avro_subjects_latest_version_is_refused(protobuf_samples, ours, unique_subject):
    subject = unique_subject()
    ours.register(subject, '"string"')
    serialize = ProtobufSerializer(ours, protobuf_samples.order_pb2.Order, subject=subject, writer=UseLatest())
    with pytest.raises(SerializationError, match="is AVRO, not PROTOBUF"):
        serialize(protobuf_samples.order(1))


# ------------------------------------------------------------------ what the server sees
RECORDS = 20_000


def test_records_cost_one_request_per_schema_id_and_reference(protobuf_samples, counting_registry):
    shop = protobuf_samples.order_pb2
    producer = RegistryClient(counting_registry.url)
    serializers = [ProtobufSerializer(producer, cls, subject="orders-value")
                   for cls in (shop.Order, shop.Refund, shop.Order.Line.Discount)]
    serializers.append(ProtobufSerializer(producer, protobuf_samples.address_pb2.Address, subject="addresses-value"))
    messages = [protobuf_samples.order(3), shop.Refund(order_id=3), shop.Order.Line.Discount(percent=5),
                protobuf_samples.address_pb2.Address(city="Faro")]
    consumer = RegistryClient(counting_registry.url)
    dynamic, typed = ProtobufDeserializer(consumer), ProtobufDeserializer(consumer, shop.Order)
    for i in range(RECORDS):
        which = i % 4
        data = serializers[which](messages[which])
        assert dynamic(data).SerializeToString() == messages[which].SerializeToString()
        if which == 0:
            assert typed(data) == messages[0]

    seen = Counter(counting_registry.requests)
    order_id, address_id = serializers[0].writer.schema_id, serializers[3].writer.schema_id
    assert {serializer.writer.schema_id for serializer in serializers[:3]} == {order_id}
    assert {target: n for (method, target), n in seen.items() if method == "POST"} == {
        "/subjects/serde_samples%2Faddress.proto/versions?normalize=false": 1,
        "/subjects/serde_samples%2Fcustomer.proto/versions?normalize=false": 1,
        "/subjects/orders-value/versions?normalize=false": 1,
        "/subjects/addresses-value/versions?normalize=false": 1,
    }
    # The order's schema once in its serialized form, and its references once each. The address
    # file is the same schema as the order's transitive import, so its id was learnt then.
    imported = Schema(serialized(protobuf_samples.address_pb2), "PROTOBUF")
    assert address_id == producer.register("serde_samples/address.proto", imported).schema_id  # a cache hit
    assert {target: n for (method, target), n in seen.items() if method == "GET"} == {
        f"/schemas/ids/{order_id}?format=serialized": 1,
        "/subjects/serde_samples%2Fcustomer.proto/versions/1?format=serialized": 1,
        "/subjects/serde_samples%2Faddress.proto/versions/1?format=serialized": 1,
    }

