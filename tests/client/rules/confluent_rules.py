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
from confluent_kafka.schema_registry.rules.cel.cel_executor import CelExecutor
from confluent_kafka.schema_registry.rules.cel.cel_field_executor import CelFieldExecutor
from confluent_kafka.schema_registry.rules.encryption.encrypt_executor import FieldEncryptionExecutor
from confluent_kafka.schema_registry.rules.encryption.localkms.local_driver import LocalKmsDriver
from confluent_kafka.schema_registry.rules.jsonata.jsonata_executor import JsonataExecutor
from confluent_kafka.serialization import MessageField, SerializationContext

LocalKmsDriver.register()
WRITER_CONF = {"auto.register.schemas": False, "use.latest.version": True}


def rule_registry(*extra: Any) -> RuleRegistry:
    registry = RuleRegistry()
    for executor in (CelExecutor(), CelFieldExecutor(), JsonataExecutor(), FieldEncryptionExecutor(), *extra):
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
