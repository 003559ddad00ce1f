"""Avro serializer and deserializer on fastavro.

    serialize = AvroSerializer(client, USER_SCHEMA, subject="users-value")
    data = serialize({"name": "ada", "age": 36})          # b"\\x00" + id + Avro binary
    deserialize = AvroDeserializer(client, reader=ReaderVersion("users-value"))
    record = deserialize(data)                             # in the latest version's shape

Encoding is fastavro's `schemaless_writer`, so the bytes equal confluent-kafka's for the
same schema id and record. Decoding reads with the writer's schema and, given a reader
schema, resolves onto it by Avro's rules (fastavro's resolution: defaults filled in, fields
the reader lacks dropped, aliases and promotions honoured). Schemas are parsed once per
schema id (per header, for the deserializer) and kept.
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from io import BytesIO
from time import monotonic
from typing import Any

from fastavro import parse_schema, schemaless_reader, schemaless_writer

from app.client.errors import SerializationError
from app.fingerprinting.fingerprint import Fingerprint, fingerprint_of_form
from app.client.framing import WriterKey
from app.client.records import AVRO, RegisteredSchema, Schema
from app.client.registry_client import RegistryClient
from app.client.resolver import SchemaSource, canonical_form_of, referenced_schemas
from app.client.rules.avro_walker import AvroWalker
from app.client.serde import ReaderVersion, RegistryDeserializer, RegistrySerializer

ParsedAvro = Any  # fastavro's parsed schema: a dict (or str/list for non-record schemas)


def as_avro_schema(schema: Schema | str | dict[str, Any] | list[Any]) -> Schema:
    """Schema text as given (str), JSON of a decoded schema (dict or list), or a `Schema`."""
    if isinstance(schema, Schema):
        if schema.schema_type != AVRO:
            raise ValueError(f"an Avro serializer cannot use a {schema.schema_type} schema")
        return schema
    if isinstance(schema, str):
        return Schema(schema)
    return Schema(json.dumps(schema))


def parse_avro(source: SchemaSource, schema: Schema) -> ParsedAvro:
    """fastavro's parsed form of `schema`, its references parsed first into the same names."""
    named: dict[str, Any] = {}
    try:
        for dependency in referenced_schemas(source, schema):
            parse_schema(json.loads(dependency.text), named_schemas=named)
        return parse_schema(json.loads(schema.text), named_schemas=named)
    except (ValueError, TypeError, KeyError) as exc:
        raise SerializationError(f"cannot parse the Avro schema: {exc}") from exc


def avro_walker(source: SchemaSource, schema: Schema) -> AvroWalker:
    """The field-rule walker over records of `schema`, its references' named types known."""
    return AvroWalker(json.loads(schema.text), [json.loads(found.text) for found in referenced_schemas(source, schema)])


def avro_full_name(schema: Schema) -> str | None:
    """The full name of the top-level named type, for record-based subject naming."""
    decoded = json.loads(schema.text)
    if not isinstance(decoded, dict) or not isinstance(decoded.get("name"), str):
        return None
    name = decoded["name"]
    namespace = decoded.get("namespace")
    return name if "." in name or not namespace else f"{namespace}.{name}"


@dataclass
class _WriterIdentity:
    """The writer as a framing sees it; the fingerprint is only computed if a framing asks."""

    schema_id: int
    schema: Schema
    source: SchemaSource

    def fingerprint(self, algorithm: str) -> Fingerprint:
        return fingerprint_of_form(canonical_form_of(self.source, self.schema), algorithm)


class AvroSerializer(RegistrySerializer[ParsedAvro]):
    """`serializer(record) -> bytes`. See `RegistrySerializer` for subject, writer and framing
    options; `schema` may be None with `UseLatest` or `PinnedVersion`."""

    def __init__(
        self, client: RegistryClient, schema: Schema | str | dict[str, Any] | None = None, **options: Any
    ) -> None:
        super().__init__(client, as_avro_schema(schema) if schema is not None else None, **options)

    def record_name(self, schema: Schema) -> str | None:
        return avro_full_name(schema)

    def compile(self, registered: RegisteredSchema) -> ParsedAvro:
        return parse_avro(self.client, registered.schema)

    def header_for(self, registered: RegisteredSchema, compiled: ParsedAvro) -> bytes:
        return self.framing.header(_WriterIdentity(registered.schema_id, registered.schema, self.client))

    def rule_walker(self, schema: Schema) -> AvroWalker:
        return avro_walker(self.client, schema)

    def __call__(self, record: Any) -> bytes:
        state = self._state
        if state is None or (state.expires_at is not None and monotonic() >= state.expires_at):
            state = self._refresh()
        rules = state.rules
        if rules is not None:
            record = rules.record(record)
        out = BytesIO()
        out.write(state.header)
        try:
            schemaless_writer(out, state.compiled, record)
        except (ValueError, TypeError, KeyError, AttributeError, OverflowError) as exc:
            raise SerializationError(
                f"record does not match schema id {state.registered.schema_id} of {self.subject}: {exc}"
            ) from exc
        if rules is not None:
            return state.header + rules.payload(out.getvalue()[len(state.header):])
        return out.getvalue()


@dataclass(frozen=True)
class AvroDecoder:
    """fastavro's pair for one writer: `reader` None when no projection is needed, so fastavro
    skips schema resolution altogether."""

    writer: ParsedAvro
    reader: ParsedAvro | None


class AvroDeserializer(RegistryDeserializer[AvroDecoder]):
    """`deserializer(data) -> record`, in the writer's shape or projected onto `reader`.

    `reader` may be a schema (text, decoded JSON or `Schema`) or a `ReaderVersion` of a subject.
    """

    def __init__(
        self,
        source: SchemaSource,
        *,
        reader: Schema | ReaderVersion | str | dict[str, Any] | None = None,
        **options: Any,
    ) -> None:
        if isinstance(reader, (str, dict, list)):
            reader = as_avro_schema(reader)
        super().__init__(source, reader=reader, **options)
        self._header_size = self.framing.header_size
        self._parsed_reader = parse_avro(source, self.reader) if self.reader is not None else None

    def compile(self, writer: Schema, key: WriterKey, project: bool = True) -> AvroDecoder:
        parsed_writer = parse_avro(self.source, writer)
        if not project or self._parsed_reader is None or self._parsed_reader == parsed_writer:
            return AvroDecoder(parsed_writer, None)
        return AvroDecoder(parsed_writer, self._parsed_reader)

    def rule_walker(self, schema: Schema) -> AvroWalker:
        return avro_walker(self.source, schema)

    def __call__(self, data: bytes) -> Any:
        decoder = self._decoders.get(data[: self._header_size])
        if decoder is None:
            decoder = self._decoder_for(data)
        plan = self._plans.get(data[: self._header_size]) if self._plans else None
        if plan is not None:
            return plan.record(self._read(decoder, data[: self._header_size] + plan.payload(data[self._header_size:])))
        return self._read(decoder, data)

    def _read(self, decoder: AvroDecoder, data: bytes) -> Any:
        stream = BytesIO(data)
        stream.seek(self._header_size)
        try:
            return schemaless_reader(stream, decoder.writer, decoder.reader)
        except Exception as exc:  # fastavro raises EOFError, ValueError, IndexError... on corrupt data
            raise SerializationError(f"cannot decode {len(data)} bytes: {type(exc).__name__}: {exc}") from exc
