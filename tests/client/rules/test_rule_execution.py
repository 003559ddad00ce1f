"""Rules of a schema's rule set run in our serializers and deserializers: CEL conditions and
transforms, CEL_FIELD by tag or guard, JSONata, modes, `disabled`, `enableAt` and the actions
(NONE, ERROR, DLQ), for Avro and JSON Schema records, against the real registry app over HTTP
on SQLite and PostgreSQL."""
from __future__ import annotations

import json
import pickle
from typing import Any

import pytest

from app.client import (
    AvroDeserializer, AvroSerializer, JsonDeserializer, JsonSerializer, RegistryClient, SerializationError, UseLatest,
)
from app.client.errors import RuleFailed
from app.client.records import JSON, Metadata, Rule, RuleSet, Schema
from app.client.rules import RuleFailure

PERSON = {"type": "record", "name": "Person", "namespace": "people", "fields": [
    {"name": "name", "type": "string"},
    {"name": "ssn", "type": "string", "confluent:tags": ["PII"]},
    {"name": "age", "type": "int"},
    {"name": "nick", "type": ["null", "string"], "default": None}]}
PERSON_JSON = {"type": "object", "properties": {
    "name": {"type": "string"}, "ssn": {"type": "string", "confluent:tags": ["PII"]}, "age": {"type": "integer"}}}
ANN = {"name": "ann", "ssn": "123-45-6789", "age": 36, "nick": None}


def rule(name: str, rule_type: str, expr: str, *, kind: str = "TRANSFORM", mode: str = "WRITE",
         tags: tuple[str, ...] = (), **options: Any) -> Rule:
    return Rule(name, kind, mode, rule_type, tags, expr=expr, **options)


def avro(*rules: Rule, enable_at: str | None = None, metadata: Metadata | None = None) -> Schema:
    return Schema(json.dumps(PERSON), rule_set=RuleSet(domain_rules=rules, enable_at=enable_at), metadata=metadata)


@pytest.fixture
def client(counting_registry) -> RegistryClient:
    return RegistryClient(counting_registry.url)


def write_read(client: RegistryClient, subject: str, schema: Schema, record: Any, **options: Any) -> Any:
    client.register(subject, schema)
    data = AvroSerializer(client, subject=subject, writer=UseLatest(), **options)(record)
    return AvroDeserializer(client, subject=subject, **options)(data)


def test_a_cel_condition_that_fails_refuses_the_record_naming_rule_subject_and_version(client) -> None:
    schema = avro(rule("adult", "CEL", "message.age >= 18", kind="CONDITION"))
    client.register("cond-value", schema)
    serialize = AvroSerializer(client, subject="cond-value", writer=UseLatest())
    assert serialize(ANN)[5:]  # passes
    with pytest.raises(RuleFailed) as caught:
        serialize({**ANN, "age": 12})
    failure = caught.value
    assert (failure.rule, failure.subject, failure.version, failure.mode) == ("adult", "cond-value", 1, "WRITE")
    assert "adult" in str(failure) and "cond-value" in str(failure) and "version 1" in str(failure)
    assert isinstance(failure, SerializationError)


def test_a_cel_field_transform_selected_by_tag_changes_only_the_tagged_field(client) -> None:
    schema = avro(rule("mask", "CEL_FIELD", "'XXX'", tags=("PII",)))
    assert write_read(client, "mask-value", schema, ANN) == {**ANN, "ssn": "XXX"}


def test_a_cel_field_guard_selects_the_field_by_name(client) -> None:
    schema = avro(rule("upper", "CEL_FIELD", "name == 'name' ; value + '!'"))
    assert write_read(client, "guard-value", schema, ANN) == {**ANN, "name": "ann!"}


def test_metadata_tags_select_fields_by_wildcard_path(client) -> None:
    schema = avro(rule("mask", "CEL_FIELD", "'?'", tags=("SECRET",)),
                  metadata=Metadata(tags=(("**.name", ("SECRET",)),)))
    assert write_read(client, "meta-tags-value", schema, ANN) == {**ANN, "name": "?"}


def test_the_serializer_never_changes_the_callers_record(client) -> None:
    schema = avro(rule("mask", "CEL_FIELD", "'XXX'", tags=("PII",)))
    client.register("copy-value", schema)
    record = dict(ANN)
    AvroSerializer(client, subject="copy-value", writer=UseLatest())(record)
    assert record == ANN


def test_a_jsonata_transform_runs_on_write(client) -> None:
    schema = avro(rule("older", "JSONATA", "$merge([$, {'age': age + 1}])"))
    assert write_read(client, "jsonata-value", schema, ANN) == {**ANN, "age": 37}


def test_read_rules_run_in_reverse_order_and_writeread_runs_both_ways(client) -> None:
    schema = avro(rule("a", "CEL_FIELD", "name == 'name' ; value + 'a'", mode="WRITEREAD"),
                  rule("b", "CEL_FIELD", "name == 'name' ; value + 'b'", mode="WRITEREAD"))
    assert write_read(client, "order-value", schema, ANN)["name"] == "annabba"


def test_disabled_rules_and_rules_enabled_elsewhere_do_not_run(client) -> None:
    refusing = rule("never", "CEL", "false", kind="CONDITION", disabled=True)
    assert write_read(client, "disabled-value", avro(refusing), ANN) == ANN
    elsewhere = rule("never", "CEL", "false", kind="CONDITION")
    assert write_read(client, "elsewhere-value", avro(elsewhere, enable_at="SERVER"), ANN) == ANN


def test_on_failure_none_lets_the_record_through(client) -> None:
    schema = avro(rule("adult", "CEL", "message.age >= 18", kind="CONDITION", on_failure="NONE"))
    assert write_read(client, "none-value", schema, {**ANN, "age": 3})["age"] == 3


def test_dlq_hands_record_and_reason_to_the_handler_then_refuses(client) -> None:
    schema = avro(rule("adult", "CEL", "message.age >= 18", kind="CONDITION", on_failure="DLQ"))
    client.register("dlq-value", schema)
    seen: list[RuleFailure] = []
    serialize = AvroSerializer(client, subject="dlq-value", writer=UseLatest(), dlq=seen.append)
    with pytest.raises(RuleFailed):
        serialize({**ANN, "age": 3})
    assert [(f.rule.name, f.subject, f.version, f.record["age"]) for f in seen] == [("adult", "dlq-value", 1, 3)]


def test_dlq_without_a_handler_is_error(client) -> None:
    schema = avro(rule("adult", "CEL", "message.age >= 18", kind="CONDITION", on_failure="DLQ"))
    client.register("dlq-none-value", schema)
    with pytest.raises(RuleFailed):
        AvroSerializer(client, subject="dlq-none-value", writer=UseLatest())({**ANN, "age": 3})


def test_a_split_action_applies_its_first_half_on_write_and_its_second_on_read(client) -> None:
    schema = avro(rule("adult", "CEL", "message.age >= 18", kind="CONDITION", mode="WRITEREAD",
                       on_failure="NONE,ERROR"))
    client.register("split-value", schema)
    data = AvroSerializer(client, subject="split-value", writer=UseLatest())({**ANN, "age": 3})
    with pytest.raises(RuleFailed) as caught:
        AvroDeserializer(client, subject="split-value")(data)
    assert caught.value.mode == "READ"


def test_an_unknown_rule_type_fails_the_record(client) -> None:
    client.register("unknown-value", avro(rule("odd", "NO_SUCH", "x")))
    with pytest.raises(RuleFailed, match="no rule executor of type 'NO_SUCH'"):
        AvroSerializer(client, subject="unknown-value", writer=UseLatest())(ANN)


def test_a_field_condition_fails_on_the_field_it_refuses(client) -> None:
    schema = avro(rule("short", "CEL_FIELD", "size(value) < 5", kind="CONDITION", tags=("PII",)))
    client.register("field-cond-value", schema)
    with pytest.raises(RuleFailed, match="people.Person.ssn"):
        AvroSerializer(client, subject="field-cond-value", writer=UseLatest())(ANN)


def test_json_schema_records_run_the_same_rules(client) -> None:
    schema = Schema(json.dumps(PERSON_JSON), JSON, rule_set=RuleSet(domain_rules=(
        rule("mask", "CEL_FIELD", "'XXX'", tags=("PII",)),
        rule("adult", "CEL", "message.age >= 18", kind="CONDITION"))))
    client.register("json-rules-value", schema)
    serialize = JsonSerializer(client, subject="json-rules-value", writer=UseLatest())
    data = serialize({"name": "ann", "ssn": "1", "age": 30})
    assert JsonDeserializer(client, subject="json-rules-value")(data) == {"name": "ann", "ssn": "XXX", "age": 30}
    with pytest.raises(RuleFailed):
        serialize({"name": "ann", "ssn": "1", "age": 3})


def test_a_serializer_with_rules_pickles(client) -> None:
    schema = avro(rule("mask", "CEL_FIELD", "'XXX'", tags=("PII",)))
    client.register("pickle-value", schema)
    serialize = AvroSerializer(client, subject="pickle-value", writer=UseLatest())
    serialize(ANN)
    copy = pickle.loads(pickle.dumps(AvroSerializer(client, subject="pickle-value", writer=UseLatest())))
    assert copy(ANN) == serialize(ANN)


def test_a_deserializer_without_a_subject_runs_the_rules_under_the_subject_of_the_writers_id(client) -> None:
    schema = avro(rule("a", "CEL_FIELD", "name == 'name' ; value + 'r'", mode="READ"))
    client.register("no-subject-value", schema)
    data = AvroSerializer(client, subject="no-subject-value", writer=UseLatest())(ANN)
    assert AvroDeserializer(client)(data)["name"] == "annr"
