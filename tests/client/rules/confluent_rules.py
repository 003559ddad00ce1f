"""confluent-kafka's serializers with its rule executors, as the interop tests drive them.

confluent-kafka keeps executors in a process-wide registry and refuses an executor configured
for one registry URL by a serializer of another, so each serde here gets a rule registry of
its own."""
from __future__ import annotations

from typing import Any

from confluent_kafka.schema_registry import SchemaRegistryClient
from confluent_kafka.schema_registry.avro import AvroDeserializer, AvroSerializer
from confluent_kafka.schema_registry.json_schema import JSONDeserializer, JSONSerializer
from confluent_kafka.schema_registry.rule_registry import RuleRegistry
from confluent_kafka.schema_registry.rules.cel.cel_executor import CelExecutor, _value_to_cel
from confluent_kafka.schema_registry.rules.cel.cel_field_executor import CelFieldExecutor
from confluent_kafka.schema_registry.rules.encryption.encrypt_executor import (
    EncryptionExecutor, FieldEncryptionExecutor,
)
from confluent_kafka.schema_registry.rules.encryption.localkms.local_driver import LocalKmsDriver
from confluent_kafka.schema_registry.rules.jsonata.jsonata_executor import JsonataExecutor
from confluent_kafka.serialization import MessageField, SerializationContext

from app.client.rules.cel_executor import from_cel

LocalKmsDriver.register()
_CEL = CelExecutor()
WRITER_CONF = {"auto.register.schemas": False, "use.latest.version": True}


def rule_registry(*extra: Any) -> RuleRegistry:
    registry = RuleRegistry()
    for executor in (CelExecutor(), CelFieldExecutor(), JsonataExecutor(), FieldEncryptionExecutor(),
                     EncryptionExecutor(), *extra):
        registry.register_executor(executor)
    return registry


def context(topic: str) -> SerializationContext:
    return SerializationContext(topic, MessageField.VALUE)


def confluent_client(url: str) -> SchemaRegistryClient:
    return SchemaRegistryClient({"url": url})


def serializer(fmt: str, url: str, rule_conf: dict[str, str] | None = None, **conf: Any) -> Any:
    options = dict(conf=WRITER_CONF, rule_conf=rule_conf or {}, rule_registry=rule_registry())
    if fmt == "AVRO":
        return AvroSerializer(confluent_client(url), None, **options)
    return JSONSerializer(None, confluent_client(url), **options)


def deserializer(fmt: str, url: str, rule_conf: dict[str, str] | None = None, conf: dict[str, Any] | None = None
                 ) -> Any:
    options = dict(rule_conf=rule_conf or {}, rule_registry=rule_registry(), conf=conf or {})
    if fmt == "AVRO":
        return AvroDeserializer(confluent_client(url), **options)
    return JSONDeserializer(None, schema_registry_client=confluent_client(url), **options)


def protobuf_serializer(message_class: Any, url: str, rule_conf: dict[str, str]) -> Any:
    from confluent_kafka.schema_registry.protobuf import ProtobufSerializer

    return ProtobufSerializer(message_class, confluent_client(url), conf=WRITER_CONF, rule_conf=rule_conf,
                              rule_registry=rule_registry())


def protobuf_deserializer(message_class: Any, url: str, rule_conf: dict[str, str]) -> Any:
    from confluent_kafka.schema_registry.protobuf import ProtobufDeserializer

    return ProtobufDeserializer(message_class, {}, schema_registry_client=confluent_client(url), rule_conf=rule_conf,
                                rule_registry=rule_registry())


def person_class(package: str) -> Any:
    """A `Person` message class whose `ssn` carries the PII tag as protoc would set it
    (`(confluent.field_meta).tags`), in a pool of its own."""
    from google.protobuf import descriptor_pb2, descriptor_pool
    from google.protobuf.message_factory import GetMessageClass

    from confluent_kafka.schema_registry.confluent import meta_pb2

    pool = descriptor_pool.DescriptorPool()
    pool.AddSerializedFile(descriptor_pb2.DESCRIPTOR.serialized_pb)
    pool.AddSerializedFile(meta_pb2.DESCRIPTOR.serialized_pb)
    file = descriptor_pb2.FileDescriptorProto(name=f"{package}.proto", package=package, syntax="proto3",
                                              dependency=["confluent/meta.proto"])
    message = file.message_type.add(name="Person")
    for number, name in ((1, "name"), (2, "ssn")):
        message.field.add(name=name, number=number, type=descriptor_pb2.FieldDescriptorProto.TYPE_STRING,
                          label=descriptor_pb2.FieldDescriptorProto.LABEL_OPTIONAL)
    message.field[1].options.Extensions[meta_pb2.field_meta].tags.append("PII")
    pool.Add(file)
    return GetMessageClass(pool.FindMessageTypeByName(f"{package}.Person"))


def person_proto(package: str) -> str:
    return f"""syntax = "proto3";
package {package};

import "confluent/meta.proto";

message Person {{
  string name = 1;
  string ssn = 2 [(confluent.field_meta).tags = "PII"];
}}
"""


class ConfluentCelFailed(Exception):
    """confluent-kafka's CEL executor refused or failed the expression: what a rule reports as failed."""


def confluent_cel(expr: str, variables: dict[str, Any]) -> Any:
    """confluent-kafka's CEL executor over `expr` with `variables` bound as it binds a record's
    values; the result as our executor's `from_cel` gives it back."""
    try:
        program = _CEL._env.program(_CEL._env.compile(expr), functions=_CEL._funcs)
        result = program.evaluate({name: _value_to_cel(value) for name, value in variables.items()})
    except Exception as exc:  # any failure: what a rule reports as failed
        raise ConfluentCelFailed(str(exc)) from exc
    if isinstance(result, Exception):
        raise ConfluentCelFailed(str(result))
    return from_cel(result)
