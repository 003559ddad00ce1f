"""Client-side field encryption end to end: confluent-kafka's own serializers with its
`FieldEncryptionExecutor` and local KMS driver against the registry under gunicorn, on SQLite
and PostgreSQL.

For Avro, JSON Schema and Protobuf, a record whose `PII`-tagged field an `ENCRYPT` rule covers
is serialized: the field's plaintext is not on the wire, the DEK is in the registry, and a
reader with caches of its own (a new client and a new executor) decrypts it. A shared KEK's
DEK is made and unwrapped by the server; the reader then needs no secret at all.
"""
from __future__ import annotations

import json
import time
import urllib.request
from collections.abc import Iterator
from typing import Any

import pytest
from dek_support import SECRET, live_registry
from google.protobuf import descriptor_pb2, descriptor_pool
from google.protobuf.message_factory import GetMessageClass

from confluent_kafka.schema_registry import Schema, SchemaRegistryClient
from confluent_kafka.schema_registry.avro import AvroDeserializer, AvroSerializer
from confluent_kafka.schema_registry.confluent import meta_pb2
from confluent_kafka.schema_registry.json_schema import JSONDeserializer, JSONSerializer
from confluent_kafka.schema_registry.protobuf import ProtobufDeserializer, ProtobufSerializer
from confluent_kafka.schema_registry.rule_registry import RuleRegistry
from confluent_kafka.schema_registry.rules.encryption.encrypt_executor import FieldEncryptionExecutor
from confluent_kafka.schema_registry.rules.encryption.localkms.local_driver import LocalKmsDriver
from confluent_kafka.schema_registry.schema_registry_client import Rule, RuleKind, RuleMode, RuleParams, RuleSet
from confluent_kafka.serialization import MessageField, SerializationContext

pytestmark = pytest.mark.slow

SSN = "123-45-6789"
WRITER_CONF = {"auto.register.schemas": False, "use.latest.version": True}
RULE_CONF = {"secret": SECRET}

AVRO = json.dumps({"type": "record", "name": "Person", "fields": [
    {"name": "name", "type": "string"}, {"name": "ssn", "type": "string", "confluent:tags": ["PII"]}]})
JSON_SCHEMA = json.dumps({"type": "object", "properties": {
    "name": {"type": "string"}, "ssn": {"type": "string", "confluent:tags": ["PII"]}}})
PROTO = """syntax = "proto3";
package dek.test;

import "confluent/meta.proto";

message Person {
  string name = 1;
  string ssn = 2 [(confluent.field_meta).tags = "PII"];
}
"""


def _person_class() -> Any:
    """The message class for PROTO, built from its descriptor (the tag as the field option
    protoc would have set), in a pool of its own."""
    pool = descriptor_pool.DescriptorPool()
    pool.AddSerializedFile(descriptor_pb2.DESCRIPTOR.serialized_pb)
    pool.AddSerializedFile(meta_pb2.DESCRIPTOR.serialized_pb)
    file = descriptor_pb2.FileDescriptorProto(
        name="dek_test_person.proto", package="dek.test", syntax="proto3", dependency=["confluent/meta.proto"])
    message = file.message_type.add(name="Person")
    for number, name in ((1, "name"), (2, "ssn")):
        message.field.add(name=name, number=number, type=descriptor_pb2.FieldDescriptorProto.TYPE_STRING,
                          label=descriptor_pb2.FieldDescriptorProto.LABEL_OPTIONAL)
    message.field[1].options.Extensions[meta_pb2.field_meta].tags.append("PII")
    pool.Add(file)
    return GetMessageClass(pool.FindMessageTypeByName("dek.test.Person"))


@pytest.fixture(scope="module", params=[
    pytest.param("sqlite", id="sqlite"), pytest.param("postgres", id="postgres", marks=pytest.mark.postgres)])
def server_url(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The registry under gunicorn with the local KMS secret the clients use too."""
    with live_registry(request, tmp_path_factory.mktemp(f"dek-{request.param}"),
                       {"REGISTRY_KMS_LOCAL_SECRET": SECRET}) as url:
        yield url


@pytest.fixture(scope="module", autouse=True)
def local_kms() -> Iterator[None]:
    """The local KMS for this module's clients; afterwards confluent-kafka's global rule
    registry forgets the encryption executors registered here, which hold this module's
    client and would refuse the serializers of every later test ("executor already
    configured" with another client's config)."""
    LocalKmsDriver.register()
    yield
    RuleRegistry.get_global_instance().clear()


def fresh_client(url: str) -> SchemaRegistryClient:
    """A registry client with empty caches, and a new encryption executor (with a DEK client and
    caches of its own) registered for the serializers made after it."""
    FieldEncryptionExecutor.register()
    return SchemaRegistryClient({"url": url, "max.retries": 0})


def encrypt_rule(kek: str, shared: bool = False) -> RuleSet:
    params = {"encrypt.kek.name": kek, "encrypt.kms.type": "local-kms", "encrypt.kms.key.id": f"{kek}-key"}
    rule = Rule("encrypt-pii", "", RuleKind.TRANSFORM, RuleMode.WRITEREAD, "ENCRYPT", ["PII"],
                RuleParams(params), None, None, "ERROR,NONE", False)
    return RuleSet(None, [rule])


def registry_json(url: str, path: str) -> Any:
    with urllib.request.urlopen(url + path) as reply:
        return json.loads(reply.read())


def register(url: str, subject: str, text: str, schema_type: str, kek: str) -> None:
    client = SchemaRegistryClient({"url": url})
    client.register_schema(subject, Schema(text, schema_type, [], None, encrypt_rule(kek)))


def test_an_avro_pii_field_is_ciphertext_on_the_wire_and_a_fresh_reader_decrypts_it(server_url: str) -> None:
    subject, context = "people-avro-value", SerializationContext("people-avro", MessageField.VALUE)
    register(server_url, subject, AVRO, "AVRO", "avro_kek")
    writer = AvroSerializer(fresh_client(server_url), None, conf=WRITER_CONF, rule_conf=RULE_CONF)
    data = writer({"name": "ann", "ssn": SSN}, context)
    assert SSN.encode() not in data and b"ann" in data
    reader = AvroDeserializer(fresh_client(server_url), rule_conf=RULE_CONF)
    assert reader(data, context) == {"name": "ann", "ssn": SSN}
    dek = registry_json(server_url, f"/dek-registry/v1/keks/avro_kek/deks/{subject}")
    assert (dek["version"], dek["algorithm"], "keyMaterial" in dek) == (1, "AES256_GCM", False)


def test_a_json_pii_field_is_ciphertext_on_the_wire_and_a_fresh_reader_decrypts_it(server_url: str) -> None:
    subject, context = "people-json-value", SerializationContext("people-json", MessageField.VALUE)
    register(server_url, subject, JSON_SCHEMA, "JSON", "json_kek")
    writer = JSONSerializer(None, fresh_client(server_url), conf=WRITER_CONF, rule_conf=RULE_CONF)
    data = writer({"name": "bob", "ssn": SSN}, context)
    assert SSN.encode() not in data and b"bob" in data
    reader = JSONDeserializer(None, schema_registry_client=fresh_client(server_url), rule_conf=RULE_CONF)
    assert reader(data, context) == {"name": "bob", "ssn": SSN}
    assert registry_json(server_url, "/dek-registry/v1/keks/json_kek/deks") == [subject]


def test_a_protobuf_pii_field_is_ciphertext_on_the_wire_and_a_fresh_reader_decrypts_it(server_url: str) -> None:
    subject, context = "people-proto-value", SerializationContext("people-proto", MessageField.VALUE)
    register(server_url, subject, PROTO, "PROTOBUF", "proto_kek")
    person = _person_class()
    writer = ProtobufSerializer(person, fresh_client(server_url), conf=WRITER_CONF, rule_conf=RULE_CONF)
    data = writer(person(name="cy", ssn=SSN), context)
    assert SSN.encode() not in data and b"cy" in data
    reader = ProtobufDeserializer(person, {}, schema_registry_client=fresh_client(server_url), rule_conf=RULE_CONF)
    decoded = reader(data, context)
    assert (decoded.name, decoded.ssn) == ("cy", SSN)


def test_a_subject_in_a_context_gets_its_kek_and_dek_in_that_context(server_url: str) -> None:
    """The executor asks for the KEK with `?context=.team` and stores the DEK under the
    qualified subject; the registry keeps both in `.team`."""
    subject, context = ":.team:people-ctx-value", SerializationContext("people-ctx", MessageField.VALUE)
    register(server_url, subject, AVRO, "AVRO", "team_kek")
    strategy = {"subject.name.strategy": lambda ctx, record_name: subject}
    data = AvroSerializer(fresh_client(server_url), None, conf={**WRITER_CONF, **strategy}, rule_conf=RULE_CONF)(
        {"name": "eve", "ssn": SSN}, context)
    assert SSN.encode() not in data
    reader = AvroDeserializer(fresh_client(server_url), conf=strategy, rule_conf=RULE_CONF)
    assert reader(data, context) == {"name": "eve", "ssn": SSN}
    assert registry_json(server_url, "/dek-registry/v1/keks?context=.team") == ["team_kek"]
    assert "team_kek" not in registry_json(server_url, "/dek-registry/v1/keks")
    assert registry_json(server_url, "/dek-registry/v1/keks/team_kek/deks?context=.team") == [subject]


def test_a_shared_kek_lets_a_reader_without_the_secret_decrypt(server_url: str) -> None:
    """The server makes the DEK and hands it out unwrapped: neither side's KMS is asked."""
    subject, context = "people-shared-value", SerializationContext("people-shared", MessageField.VALUE)
    admin = SchemaRegistryClient({"url": server_url})
    admin.register_schema(subject, Schema(AVRO, "AVRO", [], None, encrypt_rule("shared_kek")))
    request = urllib.request.Request(
        server_url + "/dek-registry/v1/keks", method="POST", headers={"Content-Type": "application/json"},
        data=json.dumps({"name": "shared_kek", "kmsType": "local-kms", "kmsKeyId": "shared_kek-key",
                         "shared": True}).encode())
    urllib.request.urlopen(request).close()
    writer = AvroSerializer(fresh_client(server_url), None, conf=WRITER_CONF, rule_conf={})
    data = writer({"name": "dee", "ssn": SSN}, context)
    assert SSN.encode() not in data
    reader = AvroDeserializer(fresh_client(server_url), rule_conf={})
    assert reader(data, context) == {"name": "dee", "ssn": SSN}
    assert "keyMaterial" in registry_json(server_url, f"/dek-registry/v1/keks/shared_kek/deks/{subject}")


def test_a_rotated_dek_encrypts_new_records_while_old_ones_still_decrypt(server_url: str) -> None:
    """`encrypt.dek.expiry.days`: a writer that finds the DEK expired registers version 2."""
    subject, context = "people-rotate-value", SerializationContext("people-rotate", MessageField.VALUE)
    rules = encrypt_rule("rotate_kek")
    rules.domain_rules[0].params.params["encrypt.dek.expiry.days"] = "1"
    SchemaRegistryClient({"url": server_url}).register_schema(subject, Schema(AVRO, "AVRO", [], None, rules))
    first = AvroSerializer(fresh_client(server_url), None, conf=WRITER_CONF, rule_conf=RULE_CONF)(
        {"name": "old", "ssn": SSN}, context)
    stale = 3 * 24 * 3600 * 1000
    FieldEncryptionExecutor.register_with_clock(_ShiftedClock(stale))
    client = SchemaRegistryClient({"url": server_url, "max.retries": 0})
    second = AvroSerializer(client, None, conf=WRITER_CONF, rule_conf=RULE_CONF)(
        {"name": "new", "ssn": SSN}, context)
    assert registry_json(server_url, f"/dek-registry/v1/keks/rotate_kek/deks/{subject}/versions") == [1, 2]
    reader = AvroDeserializer(fresh_client(server_url), rule_conf=RULE_CONF)
    assert [reader(data, context)["name"] for data in (first, second)] == ["old", "new"]


class _ShiftedClock:
    """The executor's clock, `ahead` milliseconds in the future (so today's DEK looks old)."""

    def __init__(self, ahead: int) -> None:
        self.ahead = ahead

    def now(self) -> int:
        return int(time.time() * 1000) + self.ahead

