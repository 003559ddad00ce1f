"""The formats the registry speaks, keyed by Confluent's `schemaType` value.

Each format is imported on first use: a format brings its libraries (fastavro, jsonschema,
protoc), and a worker must answer its first request without loading every one of them.
A new format is one line in `_PROVIDERS`.
"""
from __future__ import annotations

import importlib
import threading
from collections.abc import Iterator, Mapping, MutableMapping

from app.formats.base import Incompatibility, ParsedSchema, SchemaFormat, SchemaParseError

# schemaType -> (module, class) of its SchemaFormat.
_PROVIDERS: dict[str, tuple[str, str]] = {
    "AVRO": ("app.formats.avro", "AvroFormat"),
    "JSON": ("app.formats.json_schema", "JsonSchemaFormat"),
    "PROTOBUF": ("app.formats.protobuf", "ProtobufFormat"),
}


class LazyFormats(MutableMapping[str, SchemaFormat]):
    """A map of formats whose values are built when first looked up. Setting a key puts a
    ready instance in place (a test's instrumented format, a service's own choice)."""

    def __init__(self, providers: Mapping[str, tuple[str, str]]) -> None:
        self._providers = dict(providers)
        self._built: dict[str, SchemaFormat] = {}
        self._lock = threading.Lock()

    def copy(self) -> LazyFormats:
        """A map of its own over the same providers and the instances built so far."""
        twin = LazyFormats(self._providers)
        twin._built.update(self._built)
        return twin

    def __getitem__(self, schema_type: str) -> SchemaFormat:
        built = self._built.get(schema_type)
        if built is not None:
            return built
        module, name = self._providers[schema_type]  # KeyError: a type this server lacks
        with self._lock:  # one instance per format, however many threads ask at once
            built = self._built.get(schema_type)
            if built is None:
                built = getattr(importlib.import_module(module), name)()
                self._built[schema_type] = built
        return built

    def __setitem__(self, schema_type: str, fmt: SchemaFormat) -> None:
        with self._lock:
            self._providers.setdefault(schema_type, ("", ""))
            self._built[schema_type] = fmt

    def __delitem__(self, schema_type: str) -> None:
        with self._lock:
            del self._providers[schema_type]
            self._built.pop(schema_type, None)

    def __iter__(self) -> Iterator[str]:
        return iter(self._providers)

    def __len__(self) -> int:
        return len(self._providers)


FORMATS: Mapping[str, SchemaFormat] = LazyFormats(_PROVIDERS)


__all__ = ["FORMATS", "Incompatibility", "ParsedSchema", "SchemaFormat", "SchemaParseError"]
