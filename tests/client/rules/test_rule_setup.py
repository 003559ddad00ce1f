"""What a rule needs before it runs: its library (one line naming the `sqlregistry[rules]`
extra when missing, never a skipped rule), executors of one's own, wildcard tag paths, the
CEL functions Confluent's executors add, and serializers that pickle with their rule state
(Spark ships them to its workers)."""
from __future__ import annotations

import json
import pickle
import sys
from typing import Any

import pytest

from app.client import AvroDeserializer, AvroSerializer, JsonSerializer, RegistryClient, UseLatest
from app.client.errors import RuleFailed, RulesUnavailable
from app.client.records import JSON, Rule, RuleSet, Schema
from app.client.rules import ExecutorRegistry, RuleContext
from app.client.rules.wildcards import wildcard_match

PERSON = json.dumps({"type": "record", "name": "Person", "fields": [
    {"name": "name", "type": "string"}, {"name": "email", "type": "string"}]})


@pytest.fixture
def client(counting_registry) -> RegistryClient:
    return RegistryClient(counting_registry.url)


def register(client: RegistryClient, subject: str, *rules: Rule, text: str = PERSON, schema_type: str = "AVRO") -> None:
    client.register(subject, Schema(text, schema_type, rule_set=RuleSet(domain_rules=rules)))


def test_a_rule_whose_library_is_missing_fails_naming_the_extra(client, monkeypatch) -> None:
    register(client, "nolib-value", Rule("check", "CONDITION", "WRITE", "CEL", expr="true"))
    monkeypatch.setitem(sys.modules, "celpy", None)  # as if cel-python were not installed
    monkeypatch.delitem(sys.modules, "app.client.rules.cel_executor", raising=False)
    serialize = AvroSerializer(client, subject="nolib-value", writer=UseLatest(), rule_executors=ExecutorRegistry())
    with pytest.raises(RulesUnavailable) as caught:
        serialize({"name": "a", "email": "a@b.c"})
    assert str(caught.value) == ("CEL rules need cel-python (celpy is not installed): "
                                 "pip install 'sqlregistry[rules]'")


class Shout:
    """An executor of one's own: upper-cases the record's name."""

    type = "SHOUT"

    def transform(self, ctx: RuleContext, message: Any) -> Any:
        return {**message, "name": message["name"].upper()}


def test_an_executor_of_ones_own_runs_for_its_type(client) -> None:
    register(client, "own-value", Rule("shout", "TRANSFORM", "WRITEREAD", "SHOUT"))
    executors = ExecutorRegistry()
    executors.register(Shout())
    data = AvroSerializer(client, subject="own-value", writer=UseLatest(), rule_executors=executors)(
        {"name": "ann", "email": "a@b.c"})
    assert AvroDeserializer(client, subject="own-value", rule_executors=executors)(data)["name"] == "ANN"


@pytest.mark.parametrize(("text", "pattern", "matches"), [
    ("people.Person.ssn", "**.ssn", True), ("people.Person.ssn", "*.ssn", False),
    ("people.Person.ssn", "people.*.ssn", True), ("people.Person.ssn", "people.Person.ss?", True),
    ("people.Person.ssn", "people.Person", False), ("$.ssn", "$.ssn", True), ("a+b", "a+b", True),
])
def test_tag_paths_match_as_confluents_wildcards(text: str, pattern: str, matches: bool) -> None:
    assert wildcard_match(text, pattern) is matches


@pytest.mark.parametrize(("email", "valid"), [("ann@example.com", True), ("ann", False), ("a b@x.io", False)])
def test_cel_rules_have_confluents_string_checks(client, email: str, valid: bool) -> None:
    register(client, "email-value", Rule("email", "CONDITION", "WRITE", "CEL_FIELD",
                                         expr="name == 'email' ; value.isEmail()"))
    serialize = AvroSerializer(client, subject="email-value", writer=UseLatest())
    if valid:
        serialize({"name": "a", "email": email})
    else:
        with pytest.raises(RuleFailed, match="Person.email"):
            serialize({"name": "a", "email": email})


def test_serializers_pickle_with_their_rule_state(client) -> None:
    register(client, "pickled-avro-value", Rule("m", "TRANSFORM", "WRITE", "CEL_FIELD", expr="name == 'name' ; 'x'"))
    register(client, "pickled-json-value", Rule("m", "TRANSFORM", "WRITE", "CEL_FIELD", expr="name == 'name' ; 'x'"),
             text=json.dumps({"type": "object", "properties": {"name": {"type": "string"}}}), schema_type=JSON)
    for serializer, record in ((AvroSerializer(client, subject="pickled-avro-value", writer=UseLatest()),
                                {"name": "a", "email": "e"}),
                               (JsonSerializer(client, subject="pickled-json-value", writer=UseLatest()),
                                {"name": "a"})):
        written = serializer(record)
        assert pickle.loads(pickle.dumps(serializer))(record) == written


def test_deserializers_pickle_after_reading_records_with_rules(client) -> None:
    register(client, "pickled-read-value", Rule("m", "TRANSFORM", "WRITEREAD", "CEL_FIELD",
                                                expr="name == 'name' ; value + '.'"))
    data = AvroSerializer(client, subject="pickled-read-value", writer=UseLatest())({"name": "a", "email": "e"})
    deserialize = AvroDeserializer(client, subject="pickled-read-value")
    assert deserialize(data) == {"name": "a..", "email": "e"}
    assert pickle.loads(pickle.dumps(deserialize))(data) == {"name": "a..", "email": "e"}


def test_the_rule_configuration_never_shows_in_a_repr(client) -> None:
    serialize = AvroSerializer(client, subject="repr-value", rule_config={"secret": "s3cret-value"})
    assert "s3cret-value" not in repr(serialize.rules)


def test_a_rule_takes_its_params_as_a_dict_and_its_tags_as_a_list() -> None:
    rule = Rule("r", params={"b": "2", "a": "1"}, tags=["PII"])  # type: ignore[arg-type]
    assert (rule.params, rule.tags, rule.param("b")) == ((("a", "1"), ("b", "2")), ("PII",), "2")
    assert hash(rule) == hash(Rule("r", params=(("a", "1"), ("b", "2")), tags=("PII",)))
