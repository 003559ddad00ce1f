"""Python client and serializers for sqlregistry (and any Confluent-compatible registry).

For teams without Kafka as much as with it: `RegistryClient` caches what the registry says so
that a data source makes one remote lookup per schema it uses (AVRO-1124's contract), the
serializers are plain callables, and the framings are Confluent's wire format and Avro's
single-object encoding.

Importing this package must never import Flask, SQLAlchemy or the server's packages
(`app.api`, `app.core`, `app.storage`): producers and consumers install the client alone.
A test pins this. The JSON Schema serializers load `jsonschema` (some 50 ms of imports) and the
Protobuf ones the `protobuf` runtime, so they are imported on first use:
`from app.client import JsonSerializer` works as usual, and an Avro-only producer never pays
for them.
"""
from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from app.client.avro import AvroDeserializer, AvroSerializer
from app.fingerprinting.canonical import parsing_canonical_form
from app.client.errors import (
    IncompatibleSchema,
    InvalidSchema,
    RecordInvalid,
    RegistryClientError,
    RegistryRequestError,
    RegistryServerError,
    RegistryUnavailable,
    RuleFailed,
    RulesUnavailable,
    SchemaNotFound,
    SerializationError,
    SubjectNotFound,
    VersionNotFound,
)
from app.fingerprinting.fingerprint import Fingerprint, schema_fingerprint
from app.client.framing import CONFLUENT, SINGLE_OBJECT, ConfluentFraming, SingleObjectFraming
from app.client.naming import import_path, record_name, topic_name, topic_record_name
from app.client.records import (
    CompatibilityResult, Config, Metadata, RegisteredSchema, Rule, RuleSet, Schema, SchemaReference,
)
from app.client.registry_client import RegistryClient
from app.client.resolver import InMemoryResolver, SchemaSource
from app.client.serde import AutoRegister, LookupOnly, PinnedVersion, ReaderVersion, UseLatest

if TYPE_CHECKING:
    from app.client.json_schema import JsonDeserializer, JsonSerializer
    from app.client.protobuf import ProtobufDeserializer, ProtobufSerializer

_ON_FIRST_USE = {
    "JsonSerializer": "app.client.json_schema", "JsonDeserializer": "app.client.json_schema",
    "ProtobufSerializer": "app.client.protobuf", "ProtobufDeserializer": "app.client.protobuf",
}


def __getattr__(name: str) -> Any:
    """Imports the JSON Schema and Protobuf serializers when first asked for (PEP 562)."""
    module = _ON_FIRST_USE.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


__all__ = [
    "AutoRegister", "AvroDeserializer", "AvroSerializer", "CONFLUENT", "CompatibilityResult", "Config",
    "ConfluentFraming", "Fingerprint", "InMemoryResolver", "IncompatibleSchema", "InvalidSchema",
    "JsonDeserializer", "JsonSerializer", "LookupOnly", "Metadata", "PinnedVersion", "ProtobufDeserializer",
    "ProtobufSerializer", "ReaderVersion", "RecordInvalid",
    "RegisteredSchema", "RegistryClient", "RegistryClientError", "Rule", "RuleFailed", "RuleSet", "RulesUnavailable",
    "RegistryRequestError", "RegistryServerError", "RegistryUnavailable", "SINGLE_OBJECT", "Schema",
    "SchemaNotFound", "SchemaReference", "SchemaSource", "SerializationError", "SingleObjectFraming",
    "SubjectNotFound", "UseLatest", "VersionNotFound", "parsing_canonical_form", "record_name",
    "import_path", "schema_fingerprint", "topic_name", "topic_record_name",
]
