"""The two framings: header bytes, header checks, and decoding through a `SchemaSource`.

The single-object encoding is resolved through the fingerprint interface; here the source is
an `InMemoryResolver` holding real schemas (the registry's endpoint is tested through the
same interface once the server serves it).
"""
from __future__ import annotations

import json
from io import BytesIO

import pytest
from support.client_samples import USER_V1, USER_V2, user_record
from fastavro import parse_schema, schemaless_writer

from app.client import (
    CONFLUENT,
    SINGLE_OBJECT,
    AvroDeserializer,
    InMemoryResolver,
    SchemaNotFound,
    SerializationError,
    schema_fingerprint,
)
from app.fingerprinting.fingerprint import CRC64, Fingerprint
from app.client.records import Schema, SchemaReference


class Writer:
    """A `WriterIdentity` for a schema text and id."""

    def __init__(self, schema_id: int, text: str) -> None:
        self.schema_id = schema_id
        self.text = text

    def fingerprint(self, algorithm: str) -> Fingerprint:
        return schema_fingerprint(self.text, algorithm=algorithm)


def avro_payload(text: str, record: dict) -> bytes:
    out = BytesIO()
    schemaless_writer(out, parse_schema(json.loads(text)), record)
    return out.getvalue()


def test_confluent_header_is_magic_zero_and_the_id_big_endian():
    assert CONFLUENT.header(Writer(0x01020304, USER_V1)) == b"\x00\x01\x02\x03\x04"
    assert CONFLUENT.writer_key(b"\x00\x00\x00\x01\x00rest") == 256


def test_single_object_header_is_c301_and_the_crc64_fingerprint_little_endian():
    header = SINGLE_OBJECT.header(Writer(1, '"int"'))
    assert header == bytes.fromhex("c301") + (8247732601305521295).to_bytes(8, "little")
    assert SINGLE_OBJECT.writer_key(header) == Fingerprint(CRC64, header[2:])


@pytest.mark.parametrize("framing, data, complaint", [
    (CONFLUENT, b"\x01\x00\x00\x00\x01\x02", "magic byte 0x01"),
    (CONFLUENT, b"\x00\x00", "too short"),
    (SINGLE_OBJECT, b"\xc3\x02" + bytes(8), "marker c302"),
    (SINGLE_OBJECT, b"\xc3\x01\x00", "too short"),
])
def test_bytes_of_another_framing_are_refused_before_any_lookup(framing, data, complaint):
    deserialize = AvroDeserializer(InMemoryResolver(), framing=framing)
    with pytest.raises(SerializationError, match=complaint):
        deserialize(data)


def test_single_object_records_decode_through_the_fingerprint_resolver():
    resolver = InMemoryResolver([USER_V1, USER_V2])
    record = user_record(2, 7)
    data = SINGLE_OBJECT.header(Writer(2, USER_V2)) + avro_payload(USER_V2, record)
    assert AvroDeserializer(resolver, framing=SINGLE_OBJECT)(data) == record


def test_single_object_with_an_unknown_fingerprint_is_schema_not_found():
    data = SINGLE_OBJECT.header(Writer(9, '"string"')) + avro_payload('"string"', "x")
    with pytest.raises(SchemaNotFound) as caught:
        AvroDeserializer(InMemoryResolver([USER_V1]), framing=SINGLE_OBJECT)(data)
    assert (caught.value.error_code, caught.value.http_status) == (40403, 404)


def test_resolver_finds_a_schema_by_each_algorithm_and_shared_canonical_forms_answer_the_first():
    documented = json.dumps(dict(json.loads(USER_V1), doc="same canonical form as v1"))
    resolver = InMemoryResolver()
    first = resolver.add(USER_V1)
    resolver.add(documented)
    for algorithm in ("crc64", "md5", "sha256"):
        assert resolver.get_schema_by_fingerprint(schema_fingerprint(documented, algorithm=algorithm)) == first


def test_fingerprints_of_a_schema_with_references_cover_the_referenced_types():
    customer = json.dumps({"type": "record", "name": "Customer", "namespace": "com.example",
                           "fields": [{"name": "id", "type": "long"}]})
    order = json.dumps({"type": "record", "name": "Order", "namespace": "com.example",
                        "fields": [{"name": "customer", "type": "com.example.Customer"}]})
    resolver = InMemoryResolver()
    resolver.add(customer, subject="customer")
    registered = resolver.add(Schema(order, references=(SchemaReference("com.example.Customer", "customer", 1),)))
    inlined = json.dumps({"type": "record", "name": "Order", "namespace": "com.example",
                          "fields": [{"name": "customer", "type": json.loads(customer)}]})
    assert resolver.get_schema_by_fingerprint(schema_fingerprint(inlined)) == registered
    data = SINGLE_OBJECT.header(Writer(0, inlined)) + avro_payload(inlined, {"customer": {"id": 5}})
    assert AvroDeserializer(resolver, framing=SINGLE_OBJECT)(data) == {"customer": {"id": 5}}


def test_truncated_payload_is_a_serialization_error_not_a_crash():
    resolver = InMemoryResolver([USER_V2])
    data = CONFLUENT.header(Writer(1, USER_V2)) + avro_payload(USER_V2, user_record(2, 3))
    with pytest.raises(SerializationError, match="cannot decode"):
        AvroDeserializer(resolver)(data[:-1])
