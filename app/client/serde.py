"""The format-agnostic half of serializers and deserializers.

A serializer picks its subject (explicit, or from a topic through a naming strategy), picks
the writer schema (auto-register, lookup only, latest, or a pinned version), and frames each
payload with the header of that schema. A deserializer reads the header, finds the writer
schema through a `SchemaSource`, and decodes, optionally projecting onto a reader schema.
Only the encode/decode step and "parse this schema" depend on the format; those are the
abstract methods here, implemented once per format (`app.client.avro`; JSON Schema and
Protobuf add one module each).

Hot paths: after the first record, a serializer holds a `WriterState` (header bytes plus
the format's compiled writer) and a deserializer a dict from header bytes to compiled
decoders, so a record costs one attribute read or one dict read beyond the encoding itself.

No locks here, which keeps serializers usable in a forked child whatever other threads were
doing: two threads that miss at once may both compile a schema (the registry is asked once,
the client's caches see to that), and `dict.setdefault` keeps one of the results.
"""
from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Generic, TypeVar, Union

from app.client.framing import CONFLUENT, Framing, WriterKey
from app.client.naming import Field, SubjectNameStrategy, topic_name
from app.client.records import RegisteredSchema, Schema
from app.client.registry_client import LATEST, RegistryClient
from app.client.resolver import SchemaSource

Compiled = TypeVar("Compiled")


# ------------------------------------------------------------------ how the writer schema is chosen
@dataclass(frozen=True)
class AutoRegister:
    """Register the serializer's own schema (or find it already registered) and write with it."""

    normalize: bool = False


@dataclass(frozen=True)
class LookupOnly:
    """Write with the serializer's own schema, which must already be registered (40403 if not)."""

    normalize: bool = False


@dataclass(frozen=True)
class UseLatest:
    """Write with the subject's latest version, asking again every `recheck` seconds, so a
    newly registered version is picked up without a restart (within `recheck` plus the
    client's `cache_ttl`)."""

    recheck: float = 30.0


@dataclass(frozen=True)
class PinnedVersion:
    """Write with one numbered version of the subject."""

    version: int


WriterChoice = Union[AutoRegister, LookupOnly, UseLatest, PinnedVersion]


@dataclass(frozen=True)
class ReaderVersion:
    """A reader schema taken from the registry: a numbered version, or `latest` as it is when
    the deserializer is built (a consumer's record shape should not change under its feet;
    build a new deserializer to move to a newer reader)."""

    subject: str
    version: int | str = LATEST


def choose_writer(client: RegistryClient, subject: str, local: Schema | None, choice: WriterChoice) -> RegisteredSchema:
    if isinstance(choice, AutoRegister):
        return client.register(subject, _need_local(local, choice), normalize=choice.normalize)
    if isinstance(choice, LookupOnly):
        return client.lookup(subject, _need_local(local, choice), normalize=choice.normalize)
    if isinstance(choice, UseLatest):
        return client.get_latest_version(subject)
    if isinstance(choice, PinnedVersion):
        return client.get_version(subject, choice.version)
    raise TypeError(f"unknown writer choice {choice!r}")


def _need_local(local: Schema | None, choice: WriterChoice) -> Schema:
    if local is None:
        raise ValueError(f"{type(choice).__name__} needs the serializer's own schema")
    return local


@dataclass(frozen=True)
class WriterState(Generic[Compiled]):
    """What a serializer writes each record with until `expires_at` (None: for good)."""

    registered: RegisteredSchema
    header: bytes
    compiled: Compiled
    expires_at: float | None


class RegistrySerializer(Generic[Compiled]):
    """Chooses subject and writer schema; subclasses compile schemas and encode records."""

    def __init__(
        self,
        client: RegistryClient,
        schema: Schema | None,
        *,
        subject: str | None = None,
        topic: str | None = None,
        field: Field = "value",
        subject_name_strategy: SubjectNameStrategy = topic_name,
        writer: WriterChoice = AutoRegister(),
        framing: Framing = CONFLUENT,
    ) -> None:
        self.client = client
        self.schema = schema
        self.writer_choice = writer
        self.framing = framing
        if subject is None:
            if topic is None:
                raise ValueError("give a subject, or a topic for the subject name strategy")
            subject = subject_name_strategy(topic, field, self.record_name(schema) if schema else None)
        self.subject = subject
        self._state: WriterState[Compiled] | None = None
        self._compiled: dict[int, Compiled] = {}

    def record_name(self, schema: Schema) -> str | None:
        """The full name the record-based naming strategies use."""
        raise NotImplementedError

    def compile(self, registered: RegisteredSchema) -> Compiled:
        """The format's ready-to-use writer for a schema (parsed once per schema id)."""
        raise NotImplementedError

    def header_for(self, registered: RegisteredSchema, compiled: Compiled) -> bytes:
        """The framing's header for records written with `registered`."""
        raise NotImplementedError

    @property
    def writer(self) -> RegisteredSchema:
        """The schema records are currently written with (resolving it if not done yet)."""
        return self._current().registered

    def _current(self) -> WriterState[Compiled]:
        state = self._state
        if state is None or (state.expires_at is not None and time.monotonic() >= state.expires_at):
            state = self._refresh()
        return state

    def _refresh(self) -> WriterState[Compiled]:
        """One registry round trip (or a client cache hit) to (re)choose the writer schema."""
        registered = choose_writer(self.client, self.subject, self.schema, self.writer_choice)
        compiled = self._compiled.get(registered.schema_id)
        if compiled is None:
            compiled = self._compiled.setdefault(registered.schema_id, self.compile(registered))
        recheck = self.writer_choice.recheck if isinstance(self.writer_choice, UseLatest) else None
        state = WriterState(registered, self.header_for(registered, compiled), compiled,
                            None if recheck is None else time.monotonic() + recheck)
        self._state = state
        return state


class RegistryDeserializer(Generic[Compiled]):
    """Finds writer schemas by header and compiles one decoder per writer schema."""

    # The rendering writer schemas are fetched in (None: as stored; Protobuf: `serialized`).
    schema_format: str | None = None

    def __init__(
        self,
        source: SchemaSource,
        *,
        reader: Schema | ReaderVersion | None = None,
        framing: Framing = CONFLUENT,
        subject: str | None = None,
    ) -> None:
        """`reader` None returns each record in its writer's shape. `subject` is only a context
        hint for id lookups (as confluent-kafka's deserializer passes its subject)."""
        self.source = source
        self.framing = framing
        self.subject = subject
        if isinstance(reader, ReaderVersion):
            reader = source.get_version(reader.subject, reader.version).schema
        self.reader = reader
        self._decoders: dict[bytes, Compiled] = {}

    def compile(self, writer: Schema, key: WriterKey) -> Compiled:
        """The format's decoder for data written with `writer`, shaped as `self.reader` (None:
        as written). `key` is what the header named it by (an id or a fingerprint), for the
        formats whose decoders report it in their errors."""
        raise NotImplementedError

    def _decoder_for(self, data: bytes) -> Compiled:
        """The slow path, once per distinct header: read it, find and compile the writer."""
        header = bytes(data[: self.framing.header_size])
        key: WriterKey = self.framing.writer_key(header)
        writer = self.framing.find_writer(key, self.source, self.subject, self.schema_format)
        return self._decoders.setdefault(header, self.compile(writer, key))

    def writer_key(self, data: bytes) -> WriterKey:
        """The id (or fingerprint) in a record's header, for callers that group by writer."""
        return self.framing.writer_key(bytes(data[: self.framing.header_size]))
