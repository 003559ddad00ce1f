"""Migrations over Protobuf in our ProtobufDeserializer, as confluent-kafka 2.16's runs them: a
subject with three Protobuf versions in two compatibility groups (`application.major.version`
1, then 2 with a breaking rename `age` -> `years` and JSONata UPGRADE/DOWNGRADE rules); a reader
on the latest version reads version 1's records upgraded, a reader pinned to major version 1
reads version 3's records downgraded, and both give the message confluent-kafka's deserializer
gives, against the registry under gunicorn."""
from __future__ import annotations

import pickle
import uuid
from typing import Any

import pytest
from confluent_rules import confluent_client, context, rule_registry
from confluent_kafka.schema_registry.protobuf import ProtobufDeserializer as ConfluentProtobufDeserializer
from google.protobuf import descriptor_pb2, descriptor_pool
from google.protobuf.json_format import MessageToDict
from google.protobuf.message_factory import GetMessageClass

from app.client import PinnedVersion, ProtobufDeserializer, ProtobufSerializer, ReaderVersion, RegistryClient
from app.client.errors import RuleFailed, SerializationError
from app.client.records import PROTOBUF, Metadata, Rule, RuleSet, Schema

pytestmark = pytest.mark.slow

UPGRADE = "$merge([$sift($, function($v, $k) {$k != 'age'}), {'years': $.age}])"
# Protobuf's JSON parser refuses a field the reader lacks (in both clients), so the downgrade
# names what version 1 has rather than renaming within everything version 3 has.
DOWNGRADE = "{'name': name, 'age': years}"
FIELDS = {1: (("name", 1), ("age", 2)), 2: (("name", 1), ("years", 3)), 3: (("name", 1), ("years", 3), ("nick", 4))}


def proto_text(package: str, version: int) -> str:
    fields = "\n".join(f"  {'string' if name in ('name', 'nick') else 'int32'} {name} = {number};"
                       for name, number in FIELDS[version])
    return f'syntax = "proto3";\npackage {package};\n\nmessage Person {{\n{fields}\n}}\n'


def person_class(package: str, version: int) -> Any:
    """The generated class of version `version`'s Person, in a pool of its own."""
    file = descriptor_pb2.FileDescriptorProto(name=f"{package}.proto", package=package, syntax="proto3")
    message = file.message_type.add(name="Person")
    for name, number in FIELDS[version]:
        kind = descriptor_pb2.FieldDescriptorProto.TYPE_STRING if name in ("name", "nick") else \
            descriptor_pb2.FieldDescriptorProto.TYPE_INT32
        message.field.add(name=name, number=number, type=kind, label=descriptor_pb2.FieldDescriptorProto.LABEL_OPTIONAL)
    pool = descriptor_pool.DescriptorPool()
    pool.Add(file)
    return GetMessageClass(pool.FindMessageTypeByName(f"{package}.Person"))


def _major(value: str) -> Metadata:
    return Metadata(properties=(("application.major.version", value),))


MIGRATIONS = RuleSet(migration_rules=(Rule("up", "TRANSFORM", "UPGRADE", "JSONATA", expr=UPGRADE),
                                      Rule("down", "TRANSFORM", "DOWNGRADE", "JSONATA", expr=DOWNGRADE)))
NAMED = RuleSet(domain_rules=(Rule("named", "CONDITION", "WRITEREAD", "CEL", expr="size(message.name) > 0"),))


@pytest.fixture
def chain(live_server: str) -> tuple[str, str, str]:
    """topic, subject and package of the three versions."""
    package = f"mig{uuid.uuid4().hex[:8]}"
    topic = f"pbmigrate-{package}"
    subject = f"{topic}-value"
    client = RegistryClient(live_server)
    client.set_config(subject, compatibility="BACKWARD", compatibilityGroup="application.major.version")
    versions = (Schema(proto_text(package, 1), PROTOBUF, metadata=_major("1")),
                Schema(proto_text(package, 2), PROTOBUF, metadata=_major("2"), rule_set=MIGRATIONS),
                Schema(proto_text(package, 3), PROTOBUF, metadata=_major("2"), rule_set=NAMED))
    assert [client.register(subject, schema).version for schema in versions] == [1, 2, 3]
    return topic, subject, package


def write(live_server: str, subject: str, package: str, version: int, **fields: Any) -> bytes:
    message_class = person_class(package, version)
    return ProtobufSerializer(RegistryClient(live_server), message_class, subject=subject,
                              writer=PinnedVersion(version))(message_class(**fields))


def confluent_reads(live_server: str, topic: str, data: bytes, message_class: Any, conf: dict[str, Any]) -> Any:
    deserializer = ConfluentProtobufDeserializer(message_class, conf, schema_registry_client=confluent_client(live_server),
                                                 rule_registry=rule_registry())
    return deserializer(data, context(topic))


def test_a_latest_reader_reads_old_messages_upgraded_as_confluent_does(live_server: str, chain) -> None:
    topic, subject, package = chain
    data = write(live_server, subject, package, 1, name="ann", age=36)
    ours = ProtobufDeserializer(RegistryClient(live_server), reader=ReaderVersion(subject))(data)
    assert MessageToDict(ours) == {"name": "ann", "years": 36}
    assert ours.DESCRIPTOR.full_name == f"{package}.Person" and "nick" in ours.DESCRIPTOR.fields_by_name
    theirs = confluent_reads(live_server, topic, data, person_class(package, 3), {"use.latest.version": True})
    assert MessageToDict(ours) == MessageToDict(theirs)


def test_a_migrating_deserializer_pickles_and_reads_again(live_server: str, chain) -> None:
    """As a Spark worker receives it: the reader's file is rebuilt there, not pickled."""
    topic, subject, package = chain
    data = write(live_server, subject, package, 1, name="di", age=9)
    deserializer = ProtobufDeserializer(RegistryClient(live_server), reader=ReaderVersion(subject))
    deserializer(data)
    assert MessageToDict(pickle.loads(pickle.dumps(deserializer))(data)) == {"name": "di", "years": 9}


def test_a_reader_class_receives_the_migrated_message(live_server: str, chain) -> None:
    topic, subject, package = chain
    data = write(live_server, subject, package, 1, name="bo", age=7)
    reader_class = person_class(package, 3)
    ours = ProtobufDeserializer(RegistryClient(live_server), reader_class, reader=ReaderVersion(subject))(data)
    assert isinstance(ours, reader_class) and (ours.name, ours.years) == ("bo", 7)


def test_a_reader_on_major_version_1_reads_new_messages_downgraded_as_confluent_does(live_server: str, chain) -> None:
    topic, subject, package = chain
    data = write(live_server, subject, package, 3, name="cy", years=51, nick="c")
    major_1 = {"application.major.version": "1"}
    ours = ProtobufDeserializer(RegistryClient(live_server), reader=ReaderVersion(subject, metadata=major_1))(data)
    assert MessageToDict(ours) == {"name": "cy", "age": 51}  # nick is dropped: version 1 has no such field
    theirs = confluent_reads(live_server, topic, data, person_class(package, 1), {"use.latest.with.metadata": major_1})
    assert MessageToDict(ours) == MessageToDict(theirs)


def test_the_readers_read_rules_run_on_the_migrated_message(live_server: str, chain) -> None:
    topic, subject, package = chain
    data = write(live_server, subject, package, 1, name="", age=3)
    with pytest.raises(RuleFailed) as caught:
        ProtobufDeserializer(RegistryClient(live_server), reader=ReaderVersion(subject))(data)
    assert caught.value.rule == "named"


def test_a_downgrade_leaving_a_field_the_reader_lacks_fails_in_both_clients(live_server: str) -> None:
    package = f"mig{uuid.uuid4().hex[:8]}"
    topic = f"pbdown-{package}"
    subject = f"{topic}-value"
    client = RegistryClient(live_server)
    client.set_config(subject, compatibility="NONE")
    keeps_all = RuleSet(migration_rules=(Rule("down", "TRANSFORM", "DOWNGRADE", "JSONATA", expr=(
        "$merge([$sift($, function($v, $k) {$k != 'years'}), {'age': $.years}])")),))
    client.register(subject, Schema(proto_text(package, 1), PROTOBUF, metadata=_major("1")))
    client.register(subject, Schema(proto_text(package, 3), PROTOBUF, metadata=_major("2"), rule_set=keeps_all))
    data = write(live_server, subject, package, 2, name="cy", years=51)  # nick, unset, is still in its JSON form
    major_1 = {"application.major.version": "1"}
    with pytest.raises(SerializationError, match="no field named"):
        ProtobufDeserializer(client, reader=ReaderVersion(subject, metadata=major_1))(data)
    with pytest.raises(Exception, match="no field named"):
        confluent_reads(live_server, topic, data, person_class(package, 1), {"use.latest.with.metadata": major_1})


def test_a_migration_whose_result_the_reader_cannot_parse_is_a_serialization_error(live_server: str) -> None:
    package = f"mig{uuid.uuid4().hex[:8]}"
    subject = f"pbbad-{package}-value"
    client = RegistryClient(live_server)
    client.set_config(subject, compatibility="NONE")
    bad = RuleSet(migration_rules=(Rule("up", "TRANSFORM", "UPGRADE", "JSONATA", expr="{'unknown': 1}"),))
    client.register(subject, Schema(proto_text(package, 1), PROTOBUF))
    client.register(subject, Schema(proto_text(package, 2), PROTOBUF, rule_set=bad))
    data = write(live_server, subject, package, 1, name="ann", age=36)
    with pytest.raises(SerializationError, match="migrated record is not a"):
        ProtobufDeserializer(client, reader=ReaderVersion(subject))(data)
