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
from dataclasses import dataclass, field
from typing import Generic, Mapping, TypeVar, Union

from app.client.errors import RegistryClientError, SerializationError
from app.client.framing import CONFLUENT, Framing, WriterKey
from app.client.naming import Field, SubjectNameStrategy, topic_name
from app.client.records import RegisteredSchema, Schema
from app.client.registry_client import LATEST, RegistryClient
from app.client.resolver import SchemaSource
from app.client.rules.context import DOWNGRADE, UPGRADE
from app.client.rules.execution import MIGRATION, DlqHandler, RuleRunner, has_rules
from app.client.rules.executors import DEFAULT_EXECUTORS, ExecutorRegistry
from app.client.rules.plans import MigrationStep, ReadPlan, WritePlan
from app.client.rules.walkers import FieldWalker

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
    build a new deserializer to move to a newer reader), or with `metadata` the latest version
    whose metadata properties hold those values (Confluent's `use.latest.with.metadata`, e.g.
    `{"application.major.version": "2"}`). Records of other versions of the subject are
    migrated to it by the migration rules of the versions in between."""

    subject: str
    version: int | str = LATEST
    metadata: Mapping[str, str] | None = field(default=None, hash=False)


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
    rules: WritePlan | None = None


def rule_runner(registry: object, rule_config: Mapping[str, str] | None, dlq: DlqHandler | None,
                rule_executors: ExecutorRegistry | None) -> RuleRunner:
    """The rule machinery of one serde: `rule_config` goes to every executor (a local KMS
    `secret`, AWS credentials), `dlq` receives the records a rule with a DLQ action refuses."""
    return RuleRunner(rule_executors or DEFAULT_EXECUTORS, dict(rule_config or {}), dlq, registry=registry)


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
        rule_config: Mapping[str, str] | None = None,
        dlq: DlqHandler | None = None,
        rule_executors: ExecutorRegistry | None = None,
    ) -> None:
        """`rule_config`, `dlq` and `rule_executors` only matter for schemas with a rule set
        (see `app.client.rules`)."""
        self.client = client
        self.rules = rule_runner(client, rule_config, dlq, rule_executors)
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

    def __getstate__(self) -> dict[str, object]:
        """Pickles settings, never compiled state (validators, walkers, parsed schemas): a copy
        shipped to another process (a Spark worker) compiles its own on first use."""
        state = dict(self.__dict__)
        state["_state"], state["_compiled"] = None, {}
        return state

    def record_name(self, schema: Schema) -> str | None:
        """The full name the record-based naming strategies use."""
        raise NotImplementedError

    def compile(self, registered: RegisteredSchema) -> Compiled:
        """The format's ready-to-use writer for a schema (parsed once per schema id)."""
        raise NotImplementedError

    def header_for(self, registered: RegisteredSchema, compiled: Compiled) -> bytes:
        """The framing's header for records written with `registered`."""
        raise NotImplementedError

    def rule_walker(self, schema: Schema) -> FieldWalker | None:
        """The format's walker for field rules over records of `schema` (None: no field rules)."""
        return None

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
        plan = None
        if WritePlan.needed(registered.schema):
            plan = WritePlan(self.rules, self.subject, registered.version, registered.schema,
                             self.rule_walker(registered.schema))
        state = WriterState(registered, self.header_for(registered, compiled), compiled,
                            None if recheck is None else time.monotonic() + recheck, plan)
        self._state = state
        return state


def _reader_version(source: SchemaSource, reader: ReaderVersion, schema_format: str | None) -> RegisteredSchema:
    if reader.metadata is None:
        return source.get_version(reader.subject, reader.version, format=schema_format)
    with_metadata = getattr(source, "get_latest_with_metadata", None)
    if with_metadata is None:
        raise ValueError("a ReaderVersion with metadata needs a RegistryClient as the schema source")
    return with_metadata(reader.subject, reader.metadata, deleted=True, format=schema_format)


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
        rule_config: Mapping[str, str] | None = None,
        dlq: DlqHandler | None = None,
        rule_executors: ExecutorRegistry | None = None,
    ) -> None:
        """`reader` None returns each record in its writer's shape. `subject` is a context
        hint for id lookups (as confluent-kafka's deserializer passes its subject) and the
        subject whose rules, DEKs and versions a writer schema with rules is read under."""
        self.source = source
        self.framing = framing
        self.subject = subject
        self.rules = rule_runner(source, rule_config, dlq, rule_executors)
        self.reader_version: RegisteredSchema | None = None
        if isinstance(reader, ReaderVersion):
            self.reader_version = _reader_version(source, reader, self.schema_format)
            reader = self.reader_version.schema
        self.reader = reader
        self._decoders: dict[bytes, Compiled] = {}
        # Read plans by header, only for writer schemas with rules: empty, it costs a record
        # one truth test.
        self._plans: dict[bytes, ReadPlan] = {}

    def compile(self, writer: Schema, key: WriterKey, project: bool = True) -> Compiled:
        """The format's decoder for data written with `writer`, shaped as `self.reader` (None:
        as written; `project` False: as written, since migrations reshape the record). `key`
        is what the header named it by (an id or a fingerprint), for the formats whose
        decoders report it in their errors."""
        raise NotImplementedError

    def rule_walker(self, schema: Schema) -> FieldWalker | None:
        """The format's walker for field rules over records of `schema` (None: no field rules)."""
        return None

    def migration_walker(self, schema: Schema) -> FieldWalker | None:
        """The walker for field rules of a migration to or from `schema`: the format's own,
        unless the format migrates records in another form (Protobuf: as JSON)."""
        return self.rule_walker(schema)

    def __getstate__(self) -> dict[str, object]:
        """Pickles settings, never compiled decoders or read plans (see the serializer's)."""
        state = dict(self.__dict__)
        state["_decoders"], state["_plans"] = {}, {}
        return state

    def _decoder_for(self, data: bytes) -> Compiled:
        """The slow path, once per distinct header: read it, find and compile the writer, and
        plan its rules if it has any."""
        header = bytes(data[: self.framing.header_size])
        key: WriterKey = self.framing.writer_key(header)
        writer = self.framing.find_writer(key, self.source, self.subject, self.schema_format)
        plan = self._read_plan(writer, key)
        if plan is not None:
            self._plans[header] = plan
        return self._decoders.setdefault(header, self.compile(writer, key, not (plan and plan.migrations)))

    def _read_plan(self, writer: Schema, key: WriterKey) -> ReadPlan | None:
        """The rules records of `writer` are read with: the writer's READ encoding rules, the
        migrations to a `ReaderVersion` of the same subject, then the READ domain rules of
        the reader's schema when it has a rule set, else the writer's."""
        reader = self.reader if self.reader is not None and self.reader.rule_set else writer
        registered_reader = self.reader_version
        # Migrations are looked for when either end has rules (the newer version carries them).
        migrating = registered_reader is not None and (writer.rule_set is not None
                                                       or registered_reader.schema.rule_set is not None)
        if not ReadPlan.needed(writer, reader, migrating):
            return None
        subject = self.subject or (registered_reader.subject if registered_reader is not None else None) \
            or self._subject_of(key)
        writer_version = self._version_of(subject, writer)
        steps: tuple[MigrationStep, ...] = ()
        if registered_reader is not None and registered_reader.subject == subject:
            steps = self._migrations(subject, writer, writer_version, registered_reader)
        reader_version = registered_reader.version if reader is not writer and registered_reader is not None \
            else writer_version
        if not steps and not ReadPlan.needed(writer, reader, False):
            return None
        return ReadPlan(self.rules, subject, writer, writer_version, reader, reader_version,
                        self.rule_walker(reader), steps)

    def _subject_of(self, key: WriterKey) -> str:
        """The subject a writer schema's rules run under, when the deserializer was given none:
        the first subject the registry names for its id."""
        versions_for_id = getattr(self.source, "get_versions_for_id", None)
        if isinstance(key, int) and versions_for_id is not None:
            found = versions_for_id(key)
            if found:
                return str(found[0].subject)
        raise SerializationError(f"schema {key} has rules, which run under a subject: give the deserializer "
                                 f"`subject=` or a `ReaderVersion`")

    def _version_of(self, subject: str, schema: Schema) -> int | None:
        """The version of `subject` holding `schema` (None when the source cannot say)."""
        lookup = getattr(self.source, "lookup", None)
        if lookup is None:
            return None
        try:
            return lookup(subject, schema, deleted=True).version
        except RegistryClientError:
            return None

    def _migrations(self, subject: str, writer: Schema, writer_version: int | None,
                    reader: RegisteredSchema) -> tuple[MigrationStep, ...]:
        """Confluent's migration chain: from the writer's version up to the reader's, each
        version with UPGRADE rules a step from the version before it; or down, each version
        with DOWNGRADE rules a step to the version before it, latest first."""
        if writer_version is None or reader.version is None or writer_version == reader.version:
            return ()
        mode = UPGRADE if writer_version < reader.version else DOWNGRADE
        low, high = sorted((writer_version, reader.version))
        chain: list[tuple[Schema, int | None]] = [(writer, writer_version) if mode == UPGRADE
                                                  else (reader.schema, reader.version)]
        for number in range(low + 1, high):
            chain.append((self.source.get_version(subject, number, format=self.schema_format).schema, number))
        chain.append((reader.schema, reader.version) if mode == UPGRADE else (writer, writer_version))
        steps: list[MigrationStep] = []
        for (before, before_version), (after, after_version) in zip(chain, chain[1:]):
            if not has_rules(after, MIGRATION, mode):
                continue
            if mode == UPGRADE:
                steps.append(MigrationStep(mode, before, before_version, after, after_version,
                                           self.migration_walker(after)))
            else:
                steps.append(MigrationStep(mode, after, after_version, before, before_version,
                                           self.migration_walker(before)))
        if mode == DOWNGRADE:
            steps.reverse()
        return tuple(steps)

    def writer_key(self, data: bytes) -> WriterKey:
        """The id (or fingerprint) in a record's header, for callers that group by writer."""
        return self.framing.writer_key(bytes(data[: self.framing.header_size]))
