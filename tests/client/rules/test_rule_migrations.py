"""Migrations in the deserializer, as confluent-kafka 2.16 runs them: a subject with three
versions in two compatibility groups (`application.major.version` 1, then 2 with a breaking
rename `age` -> `years` and JSONata UPGRADE/DOWNGRADE rules); a reader on the latest version
reads version 1's records upgraded, a reader pinned to major version 1 reads version 3's
records downgraded, and both give the records confluent-kafka's deserializer gives (Avro, and
JSON Schema in two versions)."""
from __future__ import annotations

import json
import uuid
from typing import Any

import pytest
from confluent_rules import context, deserializer

from app.client import (
    AvroDeserializer, AvroSerializer, JsonDeserializer, JsonSerializer, PinnedVersion, ReaderVersion, RegistryClient,
)
from app.client.errors import RuleFailed
from app.client.records import JSON, Metadata, Rule, RuleSet, Schema

pytestmark = pytest.mark.slow

UPGRADE = "$merge([$sift($, function($v, $k) {$k != 'age'}), {'years': $.age}])"
DOWNGRADE = "$merge([$sift($, function($v, $k) {$k != 'years'}), {'age': $.years}])"


def _record(*fields: dict[str, Any]) -> str:
    return json.dumps({"type": "record", "name": "Person", "fields": [{"name": "name", "type": "string"}, *fields]})


def _major(value: str) -> Metadata:
    return Metadata(properties=(("application.major.version", value),))


V1 = Schema(_record({"name": "age", "type": "int"}), metadata=_major("1"))
V2 = Schema(_record({"name": "years", "type": "int"}), metadata=_major("2"), rule_set=RuleSet(migration_rules=(
    Rule("up", "TRANSFORM", "UPGRADE", "JSONATA", expr=UPGRADE),
    Rule("down", "TRANSFORM", "DOWNGRADE", "JSONATA", expr=DOWNGRADE))))
V3 = Schema(_record({"name": "years", "type": "int"}, {"name": "nick", "type": ["null", "string"], "default": None}),
            metadata=_major("2"), rule_set=RuleSet(domain_rules=(
                Rule("named", "CONDITION", "WRITEREAD", "CEL", expr="size(message.name) > 0"),)))


@pytest.fixture
def subject(live_server: str) -> tuple[str, str]:
    topic = f"migrate-{uuid.uuid4().hex[:8]}"
    subject = f"{topic}-value"
    client = RegistryClient(live_server)
    client.set_config(subject, compatibility="BACKWARD", compatibilityGroup="application.major.version")
    assert [client.register(subject, schema).version for schema in (V1, V2, V3)] == [1, 2, 3]
    return topic, subject


def test_a_latest_reader_reads_old_records_upgraded_as_confluent_does(live_server: str, subject) -> None:
    topic, name = subject
    client = RegistryClient(live_server)
    data = AvroSerializer(client, subject=name, writer=PinnedVersion(1))({"name": "ann", "age": 36})
    ours = AvroDeserializer(client, reader=ReaderVersion(name))(data)
    assert ours == {"name": "ann", "years": 36}
    theirs = deserializer("AVRO", live_server, conf={"use.latest.version": True})(data, context(topic))
    assert ours == theirs


def test_a_reader_of_major_version_1_reads_new_records_downgraded_as_confluent_does(live_server: str,
                                                                                    subject) -> None:
    topic, name = subject
    client = RegistryClient(live_server)
    data = AvroSerializer(client, subject=name, writer=PinnedVersion(3))({"name": "bo", "years": 7, "nick": "b"})
    metadata = {"application.major.version": "1"}
    ours = AvroDeserializer(client, reader=ReaderVersion(name, metadata=metadata))(data)
    assert ours == {"name": "bo", "age": 7, "nick": "b"}
    theirs = deserializer("AVRO", live_server, conf={"use.latest.with.metadata": metadata})(data, context(topic))
    assert ours == theirs


def test_a_reader_of_the_writers_version_runs_no_migration(live_server: str, subject) -> None:
    _, name = subject
    client = RegistryClient(live_server)
    data = AvroSerializer(client, subject=name, writer=PinnedVersion(3))({"name": "cy", "years": 1, "nick": None})
    assert AvroDeserializer(client, reader=ReaderVersion(name))(data) == {"name": "cy", "years": 1, "nick": None}


def test_a_failing_migration_names_the_version_whose_rule_failed(live_server: str) -> None:
    name = f"broken-{uuid.uuid4().hex[:8]}-value"
    client = RegistryClient(live_server)
    client.set_config(name, compatibility="NONE")
    client.register(name, Schema(_record({"name": "age", "type": "int"})))
    client.register(name, Schema(_record({"name": "years", "type": "int"}), rule_set=RuleSet(migration_rules=(
        Rule("bad", "TRANSFORM", "UPGRADE", "JSONATA", expr="$merge(["),))))
    data = AvroSerializer(client, subject=name, writer=PinnedVersion(1))({"name": "ann", "age": 1})
    with pytest.raises(RuleFailed) as caught:
        AvroDeserializer(client, reader=ReaderVersion(name))(data)
    assert (caught.value.rule, caught.value.version, caught.value.mode) == ("bad", 2, "UPGRADE")


def _object(**properties: str) -> str:
    return json.dumps({"type": "object", "properties": {name: {"type": kind} for name, kind in properties.items()}})


def test_json_records_migrate_up_and_down_as_confluent_migrates_them(live_server: str) -> None:
    topic = f"migrate-json-{uuid.uuid4().hex[:8]}"
    name = f"{topic}-value"
    client = RegistryClient(live_server)
    client.set_config(name, compatibility="BACKWARD", compatibilityGroup="application.major.version")
    client.register(name, Schema(_object(name="string", age="integer"), JSON, metadata=_major("1")))
    client.register(name, Schema(_object(name="string", years="integer"), JSON, metadata=_major("2"),
                                 rule_set=V2.rule_set))
    old = JsonSerializer(client, subject=name, writer=PinnedVersion(1))({"name": "ann", "age": 36})
    new = JsonSerializer(client, subject=name, writer=PinnedVersion(2))({"name": "bo", "years": 7})
    latest = JsonDeserializer(client, reader=ReaderVersion(name))
    assert latest(old) == {"name": "ann", "years": 36}
    assert latest(old) == deserializer("JSON", live_server, conf={"use.latest.version": True})(old, context(topic))
    metadata = {"application.major.version": "1"}
    major_one = JsonDeserializer(client, reader=ReaderVersion(name, metadata=metadata))
    assert major_one(new) == {"name": "bo", "age": 7}
    assert major_one(new) == deserializer("JSON", live_server, conf={"use.latest.with.metadata": metadata})(
        new, context(topic))
