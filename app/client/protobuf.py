"""Protobuf serializer and deserializer, on the `protobuf` runtime's generated classes.

    serialize = ProtobufSerializer(client, order_pb2.Order, topic="orders")
    data = serialize(order)          # b"\\x00" + id + message indexes + order.SerializeToString()
    order = ProtobufDeserializer(client, order_pb2.Order)(data)
    anything = ProtobufDeserializer(client)(data)   # a dynamic message built from the registry

The serializer registers the message's whole file, as a base64 `FileDescriptorProto` exactly as
confluent-kafka does (so both clients register the same text and get the same id), after
registering each file it imports under the subject the reference strategy names (the import
path by default); well-known imports are never registered. The message-index block after the
schema id says which message of the file the record is (`app.client.message_indexes`).

The deserializer fetches each writer schema once, with `format=serialized`, and reads the
message the indexes name: into the class it was given (after checking that the writer's
message has that class's full name, so bytes of another type are refused, not misread), or,
without one, into a class made by `message_factory` from a descriptor pool built from the
writer's file and its references (fetched once per subject version). Protobuf needs no
projection: any class of a compatible file reads the bytes.

A `ReaderVersion` reader only matters when migration rules lie between it and a record's writer
version: the record is then read with the writer's own message, turned into its JSON form
(`MessageToDict`, JSON field names, every field without presence printed), migrated there by
the rules (a JSONata rename works as for Avro and JSON Schema), and parsed into the reader's
message: `message_type`, or the reader schema's message of the writer's message's name (its
first message when none has it), as confluent-kafka's deserializer does. The parse refuses a
field the reader lacks, as confluent-kafka's does, so a downgrade names the fields it keeps.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from time import monotonic
from typing import Any

from google.protobuf.descriptor import FileDescriptor
from google.protobuf.descriptor_pb2 import FileDescriptorProto
from google.protobuf.json_format import MessageToDict, ParseDict, ParseError
from google.protobuf.message import DecodeError, EncodeError, Message
from google.protobuf.message_factory import GetMessageClass

from app.client.errors import SerializationError
from app.client.framing import CONFLUENT, Framing, IdOnlyWriter, WriterKey, id_framing_only
from app.client.message_indexes import decode_indexes, encode_indexes, message_path
from app.client.naming import ReferenceSubjectNameStrategy, import_path
from app.client.protobuf_files import SERIALIZED, build_pool, file_proto, is_well_known, message_at, serialized_text
from app.client.records import PROTOBUF, RegisteredSchema, Schema, SchemaReference
from app.client.registry_client import RegistryClient
from app.client.resolver import SchemaSource
from app.client.rules.plans import ReadPlan
from app.client.rules.protobuf_walker import ProtobufWalker
from app.client.rules.walkers import FieldWalker
from app.client.serde import (
    AutoRegister, LookupOnly, ReaderVersion, RegistryDeserializer, RegistrySerializer, WriterState,
)

MessageType = type[Message]


def message_type_of(message: MessageType | Message) -> MessageType:
    """The generated class of a message, given the class or an instance of it."""
    if isinstance(message, type) and issubclass(message, Message):
        return message
    if isinstance(message, Message):
        return type(message)
    raise TypeError(f"expected a protobuf message class or message, got {message!r}")


class ProtobufSerializer(RegistrySerializer[MessageType]):
    """`serializer(message) -> bytes` for instances of one generated message class.

    `message` is the class (or an instance of it). `reference_subject_name_strategy` names the
    subject each imported file is registered (or, with `LookupOnly`, looked up) under. See
    `RegistrySerializer` for subject, writer and framing options; the record-based subject
    strategies use the message's full name (`shop.Order.Line`).
    """

    def __init__(
        self,
        client: RegistryClient,
        message: MessageType | Message,
        *,
        reference_subject_name_strategy: ReferenceSubjectNameStrategy = import_path,
        **options: Any,
    ) -> None:
        self.message_type = message_type_of(message)
        descriptor = self.message_type.DESCRIPTOR
        self.reference_subject_name_strategy = reference_subject_name_strategy
        self._index_block = encode_indexes(message_path(descriptor))
        self._imports_registered = False
        id_framing_only(options.get("framing", CONFLUENT))
        super().__init__(client, Schema(serialized_text(descriptor.file), PROTOBUF), **options)

    def record_name(self, schema: Schema) -> str | None:
        return str(self.message_type.DESCRIPTOR.full_name)

    def _refresh(self) -> WriterState[MessageType]:
        """Imports are registered (or looked up) once, on the first record: the file's own
        references need their versions, and a constructor should not call the registry."""
        if not self._imports_registered and isinstance(self.writer_choice, (AutoRegister, LookupOnly)):
            assert self.schema is not None
            references = self._references(self.message_type.DESCRIPTOR.file, {})
            self.schema = Schema(self.schema.text, PROTOBUF, references)
            self._imports_registered = True
        return super()._refresh()

    def _references(self, file: FileDescriptor, done: dict[str, SchemaReference]) -> tuple[SchemaReference, ...]:
        """The references for `file`'s imports, each registered after its own imports; a file
        imported along several paths is handled once (`done`)."""
        references = []
        for dependency in file.dependencies:
            if is_well_known(dependency.name):
                continue
            reference = done.get(dependency.name)
            if reference is None:
                schema = Schema(serialized_text(dependency), PROTOBUF, self._references(dependency, done))
                subject = self.reference_subject_name_strategy(dependency.name)
                reference = SchemaReference(dependency.name, subject, self._version_of(subject, schema))
                done[dependency.name] = reference
            references.append(reference)
        return tuple(references)

    def _version_of(self, subject: str, schema: Schema) -> int:
        choice = self.writer_choice
        assert isinstance(choice, (AutoRegister, LookupOnly))
        if isinstance(choice, AutoRegister):
            registered = self.client.register(subject, schema, normalize=choice.normalize)
            if registered.version is not None:
                return registered.version
        found = self.client.lookup(subject, schema, normalize=choice.normalize)  # a 7.x register reply has no version
        if found.version is None:
            raise SerializationError(f"the registry did not say which version of {subject} holds the import")
        return found.version

    def compile(self, registered: RegisteredSchema) -> MessageType:
        if registered.schema.schema_type != PROTOBUF:
            raise SerializationError(f"schema id {registered.schema_id} of {self.subject} is "
                                     f"{registered.schema.schema_type}, not PROTOBUF")
        return self.message_type

    def header_for(self, registered: RegisteredSchema, compiled: MessageType) -> bytes:
        return self.framing.header(IdOnlyWriter(registered.schema_id)) + self._index_block

    def rule_walker(self, schema: Schema) -> ProtobufWalker:
        return ProtobufWalker()

    def __call__(self, message: Message) -> bytes:
        state = self._state
        if state is None or (state.expires_at is not None and monotonic() >= state.expires_at):
            state = self._refresh()
        if not isinstance(message, state.compiled):
            raise SerializationError(f"this serializer writes {state.compiled.DESCRIPTOR.full_name} messages, "
                                     f"not {type(message).__name__}")
        rules = state.rules
        if rules is not None:
            message = rules.record(message)
        try:
            payload = message.SerializeToString()
        except EncodeError as exc:  # proto2 required fields left unset
            raise SerializationError(f"cannot write the {type(message).__name__}: {exc}") from exc
        if rules is not None:
            return state.header + rules.payload(payload)
        return state.header + payload


@dataclass
class WriterFile:
    """One writer schema, ready to read records of any of its messages: the class for each
    index path is found on first use and kept."""

    proto: FileDescriptorProto
    described: str
    fixed: MessageType | None  # the deserializer's class, or None for dynamic messages
    file: FileDescriptor | None  # the writer's file in its own pool (dynamic messages only)
    classes: dict[tuple[int, ...], MessageType] = field(default_factory=dict)

    def message_class(self, path: tuple[int, ...]) -> MessageType:
        found = self.classes.get(path)
        if found is None:
            found = self.classes.setdefault(path, self._resolve(path))
        return found

    def _resolve(self, path: tuple[int, ...]) -> MessageType:
        full_name = message_at(self.proto, path, self.described)
        if self.fixed is not None:
            if self.fixed.DESCRIPTOR.full_name != full_name:
                raise SerializationError(f"the record is a {full_name} (message indexes {list(path)} of "
                                         f"{self.described}), not a {self.fixed.DESCRIPTOR.full_name}")
            return self.fixed
        assert self.file is not None
        return GetMessageClass(self.file.pool.FindMessageTypeByName(full_name))


class ProtobufDeserializer(RegistryDeserializer[WriterFile]):
    """`deserializer(data) -> message`: an instance of `message_type`, or without one a dynamic
    message of the writer's type (its class made once per schema id and message path).

    `subject` is only a context hint for id lookups, as for the other deserializers. `reader`
    (a `ReaderVersion`) migrates records of other versions of its subject to it (see above).
    """

    schema_format = SERIALIZED

    def __init__(
        self,
        source: SchemaSource,
        message_type: MessageType | Message | None = None,
        *,
        reader: ReaderVersion | None = None,
        framing: Framing = CONFLUENT,
        subject: str | None = None,
        **rule_options: Any,
    ) -> None:
        """`rule_options`: `rule_config`, `dlq` and `rule_executors`, as for every deserializer."""
        if reader is not None and not isinstance(reader, ReaderVersion):
            raise TypeError(f"a Protobuf reader is a ReaderVersion (or a message_type), not {reader!r}")
        super().__init__(source, reader=reader, framing=id_framing_only(framing), subject=subject, **rule_options)
        self.message_type = message_type_of(message_type) if message_type is not None else None
        self._header_size = self.framing.header_size
        self._reader_file: FileDescriptor | None = None

    def compile(self, writer: Schema, key: WriterKey, project: bool = True) -> WriterFile:
        """`project` False (records to migrate): the writer's own messages, even with a
        `message_type`, since the reader's class may not read the writer's fields."""
        described = f"Protobuf schema id {key}"
        proto = file_proto(writer, described)
        if self.message_type is not None and project:
            return WriterFile(proto, described, self.message_type, None)
        return WriterFile(proto, described, None, build_pool(self.source, writer, described))

    def rule_walker(self, schema: Schema) -> ProtobufWalker:
        return ProtobufWalker()

    def migration_walker(self, schema: Schema) -> FieldWalker | None:
        """None: migrations see a record's JSON form, which field rules cannot walk (as in
        confluent-kafka, whose migrations run no field rules in any format)."""
        return None

    def __getstate__(self) -> dict[str, object]:
        state = super().__getstate__()
        state["_reader_file"] = None
        return state

    def _migrated(self, plan: ReadPlan, message: Message) -> Message:
        as_json = MessageToDict(message, always_print_fields_with_no_presence=True)
        migrated = plan.migrate(as_json)
        target = self._reader_class(message.DESCRIPTOR.name)()
        try:
            return ParseDict(migrated, target)
        except (ParseError, TypeError, AttributeError) as exc:
            raise SerializationError(f"the migrated record is not a {target.DESCRIPTOR.full_name}: "
                                     f"{str(exc)[:300]}") from None

    def _reader_class(self, name: str) -> MessageType:
        """The class a migrated record is parsed into (see the module's docstring)."""
        if self.message_type is not None:
            return self.message_type
        if self._reader_file is None:
            assert self.reader is not None and self.reader_version is not None
            self._reader_file = build_pool(self.source, self.reader,
                                           f"Protobuf schema {self.reader_version.subject} "
                                           f"version {self.reader_version.version}")
        messages = self._reader_file.message_types_by_name
        found = messages.get(name)
        if found is None:
            if not messages:
                raise SerializationError(f"the reader schema {self.reader_version.subject} version "
                                         f"{self.reader_version.version} has no message")
            found = next(iter(messages.values()))
        return GetMessageClass(found)

    def __call__(self, data: bytes) -> Message:
        writer = self._decoders.get(data[: self._header_size])
        if writer is None:
            writer = self._decoder_for(data)
        path, offset = decode_indexes(data, self._header_size)
        message = (writer.classes.get(path) or writer.message_class(path))()
        plan = self._plans.get(data[: self._header_size]) if self._plans else None
        payload = data[offset:] if plan is None else plan.payload(data[offset:])
        try:
            message.ParseFromString(payload)
        except DecodeError as exc:
            raise SerializationError(f"cannot decode {len(data)} bytes as {message.DESCRIPTOR.full_name}: {exc}") \
                from exc
        if plan is None:
            return message
        return plan.read(self._migrated(plan, message)) if plan.migrations else plan.record(message)
