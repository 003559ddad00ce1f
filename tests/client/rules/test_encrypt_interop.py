"""ENCRYPT rules, byte-compatible with confluent-kafka 2.16 both ways, for Avro, JSON Schema
and Protobuf, against the registry under gunicorn (its DEK API) on SQLite and PostgreSQL, with the
local KMS: what our serializer encrypts confluent-kafka's deserializer decrypts and the other
way round; AES256_SIV gives the same ciphertext in both; DEK versions rotate with
`encrypt.dek.expiry.days` on a clock of the test's."""
from __future__ import annotations

import base64
import io
import json
import os
import uuid
from typing import Any, Callable, NamedTuple

import pytest
from confluent_rules import (
    context, deserializer, person_class, person_proto, protobuf_deserializer, protobuf_serializer, serializer,
)

from app.client import (
    AvroDeserializer, AvroSerializer, JsonDeserializer, JsonSerializer, ProtobufDeserializer, ProtobufSerializer,
    RegistryClient, UseLatest,
)
from app.client.errors import RuleFailed, RulesUnavailable
from app.client.records import AVRO, JSON, PROTOBUF, Rule, RuleSet, Schema
from app.client.rules import ExecutorRegistry
from app.client.rules.encryption import FieldEncryptionExecutor

pytestmark = pytest.mark.slow

SECRET = "rules-interop-secret"
SSN = "123-45-6789"
RECORD = {"name": "ann", "ssn": SSN}
TEXTS = {
    AVRO: json.dumps({"type": "record", "name": "Person", "fields": [
        {"name": "name", "type": "string"}, {"name": "ssn", "type": "string", "confluent:tags": ["PII"]}]}),
    JSON: json.dumps({"type": "object", "properties": {
        "name": {"type": "string"}, "ssn": {"type": "string", "confluent:tags": ["PII"]}}}),
}
OURS: dict[str, tuple[Any, Any]] = {AVRO: (AvroSerializer, AvroDeserializer), JSON: (JsonSerializer, JsonDeserializer)}


def encrypt_rule(kek: str, **params: str) -> Rule:
    return Rule("encrypt-pii", "TRANSFORM", "WRITEREAD", "ENCRYPT", ("PII",), tuple(sorted({
        "encrypt.kek.name": kek, "encrypt.kms.type": "local-kms", "encrypt.kms.key.id": f"{kek}-key", **params,
    }.items())), on_failure="ERROR,NONE")


def setup(url: str, fmt: str, **params: str) -> tuple[str, str]:
    """A topic whose value subject has a PII field under an ENCRYPT rule; (topic, subject)."""
    topic = f"people-{fmt.lower()}-{uuid.uuid4().hex[:8]}"
    RegistryClient(url).register(f"{topic}-value", Schema(
        TEXTS[fmt], fmt, rule_set=RuleSet(domain_rules=(encrypt_rule(f"kek_{uuid.uuid4().hex[:8]}", **params),))))
    return topic, f"{topic}-value"


def ours(fmt: str, url: str, subject: str, **options: Any) -> tuple[Callable[[Any], bytes], Callable[[bytes], Any]]:
    make_serializer, make_deserializer = OURS[fmt]
    config = options.pop("rule_config", {"secret": SECRET})
    return (make_serializer(RegistryClient(url), subject=subject, writer=UseLatest(), rule_config=config, **options),
            make_deserializer(RegistryClient(url), subject=subject, rule_config=config, **options))


@pytest.mark.parametrize("fmt", [AVRO, JSON])
def test_what_we_encrypt_confluent_decrypts(live_server: str, fmt: str) -> None:
    topic, subject = setup(live_server, fmt)
    write, _ = ours(fmt, live_server, subject)
    data = write(RECORD)
    assert SSN.encode() not in data and b"ann" in data
    assert deserializer(fmt, live_server, {"secret": SECRET})(data, context(topic)) == RECORD


@pytest.mark.parametrize("fmt", [AVRO, JSON])
def test_what_confluent_encrypts_we_decrypt(live_server: str, fmt: str) -> None:
    topic, subject = setup(live_server, fmt)
    data = serializer(fmt, live_server, {"secret": SECRET})(dict(RECORD), context(topic))
    assert SSN.encode() not in data
    _, read = ours(fmt, live_server, subject)
    assert read(data) == RECORD


@pytest.mark.parametrize("fmt", [AVRO, JSON])
def test_deterministic_encryption_gives_confluents_bytes(live_server: str, fmt: str) -> None:
    topic, subject = setup(live_server, fmt, **{"encrypt.dek.algorithm": "AES256_SIV"})
    write, read = ours(fmt, live_server, subject)
    data = write(RECORD)
    assert serializer(fmt, live_server, {"secret": SECRET})(dict(RECORD), context(topic)) == data
    assert read(data) == RECORD


def test_dek_versions_rotate_after_the_expiry_days_and_both_clients_read_every_version(live_server: str) -> None:
    written = _written_under_two_dek_versions(live_server)
    topic, subject = written.topic, written.subject
    versions = RegistryClient(live_server).transport.request(
        "GET", f"/dek-registry/v1/keks/{_kek_of(live_server, subject)}/deks/{subject}/versions")
    assert versions == [1, 2]
    confluent = deserializer(AVRO, live_server, {"secret": SECRET})
    for data in (written.first, written.second):
        assert written.read(data) == RECORD
        assert confluent(data, context(topic)) == RECORD


class TwoDekVersions(NamedTuple):
    """A topic, its subject (one-day DEK expiry), a record written under DEK version 1 and one
    written two days later under version 2, and our deserializer for them."""

    topic: str
    subject: str
    first: bytes
    second: bytes
    read: Callable[[bytes], Any]


def _written_under_two_dek_versions(url: str) -> TwoDekVersions:
    topic, subject = setup(url, AVRO, **{"encrypt.dek.expiry.days": "1"})
    now = [0]
    executors = ExecutorRegistry()
    executors.register(FieldEncryptionExecutor(clock=lambda: now[0]))
    write, read = ours(AVRO, url, subject, rule_executors=executors)
    first = write(RECORD)
    made = RegistryClient(url).transport.request(
        "GET", f"/dek-registry/v1/keks/{_kek_of(url, subject)}/deks/{subject}")
    now[0] = made["ts"] + 2 * 24 * 3600 * 1000  # two days after the first DEK was made
    return TwoDekVersions(topic, subject, first, write(RECORD), read)


def _kek_of(url: str, subject: str) -> str:
    rule = RegistryClient(url).get_latest_version(subject).schema.rule_set.domain_rules[0]  # type: ignore[union-attr]
    return str(rule.param("encrypt.kek.name"))


def test_gcm_keys_are_the_raw_aes_keys_of_every_dek_version_a_reader_uses(live_server: str) -> None:
    """What the pipeline's JVM decrypts with: each listed DEK version's raw AES key, which opens
    Tink's RAW layout (12-byte IV, ciphertext, tag) behind the version prefix; never in a repr."""
    from cryptography.hazmat.primitives.ciphers.aead import AESGCM

    from app.client.rules.context import READ, RuleContext

    written = _written_under_two_dek_versions(live_server)
    subject, first, second = written.subject, written.first, written.second
    schema = RegistryClient(live_server).get_latest_version(subject).schema
    rule = schema.rule_set.domain_rules[0]  # type: ignore[union-attr]
    ctx = RuleContext(subject, 1, READ, rule, 0, (rule,), None, schema, {"secret": SECRET}, None,
                      RegistryClient(live_server), "digest")
    keys = FieldEncryptionExecutor().gcm_keys(ctx)
    assert (keys.algorithm, keys.versioned, sorted(keys.keys)) == ("AES256_GCM", True, [1, 2])
    assert all(key.hex() not in repr(keys) for key in keys.keys.values())
    for data, version in ((first, 1), (second, 2)):
        stored = base64.b64decode(_avro_ssn(data))
        assert int.from_bytes(stored[1:5], "big") == version
        assert AESGCM(keys.keys[version]).decrypt(stored[5:17], stored[17:], None) == SSN.encode()


def _avro_ssn(data: bytes) -> str:
    from fastavro import parse_schema, schemaless_reader

    parsed = parse_schema(json.loads(TEXTS[AVRO]))
    return schemaless_reader(io.BytesIO(data[5:]), parsed, parsed)["ssn"]


def test_a_tampered_value_fails_with_the_clients_fixed_text_not_tinks(live_server: str) -> None:
    """Tink's own message carries a thread's address and a source path, so two readers would
    word one fault differently; the client's text is one for all."""
    from app.client.rules.encryption import UNDECRYPTABLE

    subject = f"people-{uuid.uuid4().hex[:8]}-value"
    strict = Rule("encrypt-pii", "TRANSFORM", "WRITEREAD", "ENCRYPT", ("PII",), tuple(sorted({
        "encrypt.kek.name": f"kek_{uuid.uuid4().hex[:8]}", "encrypt.kms.type": "local-kms",
        "encrypt.kms.key.id": "strict-key"}.items())))  # onFailure ERROR
    RegistryClient(live_server).register(subject, Schema(TEXTS[AVRO], AVRO, rule_set=RuleSet(domain_rules=(strict,))))
    write, read = ours(AVRO, live_server, subject)
    data = write(RECORD)
    stored = _avro_ssn(data)
    tampered = data.replace(stored.encode(), base64.b64encode(base64.b64decode(stored)[:-1] + b"\0").decode().encode())
    assert tampered != data
    with pytest.raises(RuleFailed) as caught:
        read(tampered)
    assert str(caught.value.__cause__) == UNDECRYPTABLE


def test_two_serializers_in_one_process_use_their_own_secrets(live_server: str) -> None:
    _, first_subject = setup(live_server, AVRO)
    _, second_subject = setup(live_server, AVRO)
    write_one, read_one = ours(AVRO, live_server, first_subject, rule_config={"secret": "first"})
    write_two, read_two = ours(AVRO, live_server, second_subject, rule_config={"secret": "second"})
    assert read_one(write_one(RECORD)) == RECORD and read_two(write_two(RECORD)) == RECORD
    _, wrong = ours(AVRO, live_server, second_subject, rule_config={"secret": "first"})
    data = write_two(RECORD)
    # onFailure "ERROR,NONE": a reader whose secret cannot unwrap the DEK gets the ciphertext.
    assert wrong(data)["ssn"] != SSN
    assert SSN.encode() not in data


def test_a_failed_decryption_names_rule_subject_and_version(live_server: str) -> None:
    topic = f"people-{uuid.uuid4().hex[:8]}"
    subject = f"{topic}-value"
    strict = Rule("encrypt-pii", "TRANSFORM", "WRITEREAD", "ENCRYPT", ("PII",), tuple(sorted({
        "encrypt.kek.name": f"kek_{uuid.uuid4().hex[:8]}", "encrypt.kms.type": "local-kms",
        "encrypt.kms.key.id": "strict-key"}.items())))
    RegistryClient(live_server).register(subject, Schema(TEXTS[AVRO], AVRO, rule_set=RuleSet(domain_rules=(strict,))))
    write, _ = ours(AVRO, live_server, subject)
    _, wrong = ours(AVRO, live_server, subject, rule_config={"secret": "not-the-secret"})
    with pytest.raises(RuleFailed) as caught:
        wrong(write(RECORD))
    assert (caught.value.rule, caught.value.subject, caught.value.version, caught.value.mode) == (
        "encrypt-pii", subject, 1, "READ")


def test_a_reader_without_the_kms_secret_gets_a_clear_error(live_server: str, monkeypatch) -> None:
    _, subject = setup(live_server, AVRO)
    write, _ = ours(AVRO, live_server, subject)
    data = write(RECORD)
    monkeypatch.delenv("LOCAL_SECRET", raising=False)
    _, read = ours(AVRO, live_server, subject, rule_config={})
    with pytest.raises(RulesUnavailable, match="local KMS has no secret"):
        read(data)
    assert "LOCAL_SECRET" not in os.environ


def test_a_kms_type_without_a_driver_is_named(live_server: str) -> None:
    _, subject = setup(live_server, AVRO, **{"encrypt.kms.type": "no-such-kms"})
    write, _ = ours(AVRO, live_server, subject)
    with pytest.raises(RulesUnavailable, match="no KMS driver for kms type 'no-such-kms'"):
        write(RECORD)


def _protobuf_setup(url: str) -> tuple[str, str, Any]:
    package = f"rules.p{uuid.uuid4().hex[:8]}"
    topic = f"people-proto-{uuid.uuid4().hex[:8]}"
    RegistryClient(url).register(f"{topic}-value", Schema(person_proto(package), PROTOBUF, rule_set=RuleSet(
        domain_rules=(encrypt_rule(f"kek_{uuid.uuid4().hex[:8]}"),))))
    return topic, f"{topic}-value", person_class(package)


def test_protobuf_fields_we_encrypt_confluent_decrypts_and_the_callers_message_stays_clear(live_server: str) -> None:
    topic, subject, person = _protobuf_setup(live_server)
    message = person(name="cy", ssn=SSN)
    data = ProtobufSerializer(RegistryClient(live_server), person, subject=subject, writer=UseLatest(),
                              rule_config={"secret": SECRET})(message)
    assert SSN.encode() not in data and message.ssn == SSN
    decoded = protobuf_deserializer(person, live_server, {"secret": SECRET})(data, context(topic))
    assert (decoded.name, decoded.ssn) == ("cy", SSN)


def test_protobuf_fields_confluent_encrypts_we_decrypt_into_a_class_or_a_dynamic_message(live_server: str) -> None:
    topic, subject, person = _protobuf_setup(live_server)
    data = protobuf_serializer(person, live_server, {"secret": SECRET})(person(name="cy", ssn=SSN), context(topic))
    assert SSN.encode() not in data
    for message_type in (person, None):
        decoded = ProtobufDeserializer(RegistryClient(live_server), message_type, subject=subject,
                                       rule_config={"secret": SECRET})(data)
        assert (decoded.name, decoded.ssn) == ("cy", SSN)


def test_encrypt_payload_encoding_rules_run_both_ways(live_server: str) -> None:
    topic = f"payload-{uuid.uuid4().hex[:8]}"
    subject = f"{topic}-value"
    rule = Rule("encrypt-payload", "TRANSFORM", "WRITEREAD", "ENCRYPT_PAYLOAD", (), tuple(sorted({
        "encrypt.kek.name": f"kek_{uuid.uuid4().hex[:8]}", "encrypt.kms.type": "local-kms",
        "encrypt.kms.key.id": "payload-key"}.items())))
    RegistryClient(live_server).register(subject, Schema(TEXTS[AVRO], AVRO, rule_set=RuleSet(encoding_rules=(rule,))))
    write, read = ours(AVRO, live_server, subject)
    data = write(RECORD)
    assert b"ann" not in data and SSN.encode() not in data
    assert deserializer(AVRO, live_server, {"secret": SECRET})(data, context(topic)) == RECORD
    theirs = serializer(AVRO, live_server, {"secret": SECRET})(dict(RECORD), context(topic))
    assert b"ann" not in theirs and read(theirs) == RECORD


@pytest.mark.parametrize("ssn", [SSN, None])
def test_a_nullable_avro_field_is_encrypted_when_set_and_left_null_otherwise(live_server: str, ssn: str | None) -> None:
    topic = f"nullable-{uuid.uuid4().hex[:8]}"
    subject = f"{topic}-value"
    text = json.dumps({"type": "record", "name": "Person", "fields": [
        {"name": "name", "type": "string"},
        {"name": "ssn", "type": ["null", "string"], "default": None, "confluent:tags": ["PII"]}]})
    RegistryClient(live_server).register(subject, Schema(text, AVRO, rule_set=RuleSet(
        domain_rules=(encrypt_rule(f"kek_{uuid.uuid4().hex[:8]}"),))))
    write, read = ours(AVRO, live_server, subject)
    data = write({"name": "ann", "ssn": ssn})
    assert SSN.encode() not in data
    assert read(data) == {"name": "ann", "ssn": ssn}
    assert deserializer(AVRO, live_server, {"secret": SECRET})(data, context(topic)) == {"name": "ann", "ssn": ssn}
    theirs = serializer(AVRO, live_server, {"secret": SECRET})({"name": "ann", "ssn": ssn}, context(topic))
    assert read(theirs) == {"name": "ann", "ssn": ssn}
