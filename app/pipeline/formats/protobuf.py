"""Protobuf as a pipeline format: records parsed as the reader's message, as Spark values.

The writer is found from the frame (schema id, then the message-index block naming the message
of its file, `app.client.message_indexes`); the record is parsed into the reader's message
class, built from the reader version's serialized descriptors by `app.client.protobuf_files`,
after checking that the writer's message has the reader message's full name (bytes of another
message are a bad record, not misread). Parsing with the reader's class is Protobuf's own
projection: a field the writer lacks reads as its proto3 default, one the reader lacks is
skipped. The reader message is `message=` (a full name) or the file's first message.

Spark types, as Confluent's Protobuf converter maps them:

- message -> struct (a nested message unset -> null), in field-number order of declaration
- int32, sint32, sfixed32 -> int; int64, sint64, sfixed64, uint32, fixed32 -> bigint;
  uint64, fixed64 -> decimal(20,0) (no loss); float -> float; double -> double; bool -> boolean
- string -> string; bytes -> binary; enum -> string, its value's name (an unknown number: the
  number as text)
- repeated -> array (empty, not null); map<K, V> -> map (empty, not null)
- google.protobuf.Timestamp -> timestamp; the wrapper types (Int64Value, StringValue, ...) ->
  their value's type, null when unset; a field with presence (`optional`, oneof members) unset
  -> null
- a message that contains itself has no Spark type and is refused, naming the field.
"""
from __future__ import annotations

from collections.abc import Callable
from operator import attrgetter
from typing import Any

from google.protobuf.descriptor import Descriptor, FieldDescriptor
from google.protobuf.message import DecodeError, Message
from google.protobuf.message_factory import GetMessageClass
from pyspark.sql import types as T

from app.client import ReaderVersion, RegistryClient, Schema, SchemaNotFound, SerializationError
from app.client.framing import Framing, WriterKey
from app.client.message_indexes import decode_indexes
from app.client.protobuf import MessageType, ProtobufDeserializer, WriterFile
from app.client.protobuf_files import SERIALIZED, build_pool, file_proto
from app.client.records import PROTOBUF
from app.pipeline.formats.format import BadRecordHook, RecordDecoder, UnsupportedSchemaType
from app.pipeline.formats.writer_cache import WriterCache, kept_in_worker
from app.pipeline.rule_decoder import RuleRecordDecoder, rule_reader
from app.pipeline.rule_plan import DecodeRules
from app.pipeline.types import SparkShape

Convert = Callable[[Any], Any]
_F = FieldDescriptor
_SCALARS: dict[int, T.DataType] = {
    _F.TYPE_INT32: T.IntegerType(), _F.TYPE_SINT32: T.IntegerType(), _F.TYPE_SFIXED32: T.IntegerType(),
    _F.TYPE_INT64: T.LongType(), _F.TYPE_SINT64: T.LongType(), _F.TYPE_SFIXED64: T.LongType(),
    _F.TYPE_UINT32: T.LongType(), _F.TYPE_FIXED32: T.LongType(),
    _F.TYPE_UINT64: T.DecimalType(20, 0), _F.TYPE_FIXED64: T.DecimalType(20, 0),
    _F.TYPE_FLOAT: T.FloatType(), _F.TYPE_DOUBLE: T.DoubleType(), _F.TYPE_BOOL: T.BooleanType(),
    _F.TYPE_STRING: T.StringType(), _F.TYPE_BYTES: T.BinaryType(), _F.TYPE_ENUM: T.StringType(),
}
TIMESTAMP = "google.protobuf.Timestamp"
WRAPPERS = {f"google.protobuf.{name}" for name in ("DoubleValue", "FloatValue", "Int64Value", "UInt64Value",
                                                   "Int32Value", "UInt32Value", "BoolValue", "StringValue",
                                                   "BytesValue")}


def _scalar_convert(field: FieldDescriptor) -> Convert | None:
    """What a scalar needs before Arrow takes it (None: nothing; an unsigned 64-bit int goes
    into decimal(20,0) as it is)."""
    if field.type == _F.TYPE_ENUM:
        names = {value.number: value.name for value in field.enum_type.values}
        return lambda number: names.get(number, str(number))
    return None


def _is_map(field: FieldDescriptor) -> bool:
    return field.message_type is not None and field.message_type.GetOptions().map_entry


# What a field's attribute needs before Arrow takes it: fix(message, attribute) -> value.
Fix = Callable[[Message, Any], Any]


class _Mapper:
    """A message's Spark type and the function from a parsed message to its Arrow-ready tuple.

    All of a message's attributes are read at once by `operator.attrgetter` (in C), and only the
    fields that need it are fixed afterwards (a nested message's presence, an enum's name, a
    map's dict): per record this is the pipeline's hot loop. Arrow builds a struct from a tuple
    in field order, and takes repeated scalars' containers and Python ints for decimals as they
    are."""

    def __init__(self) -> None:
        self.in_progress: set[str] = set()

    def message(self, descriptor: Descriptor, where: str) -> tuple[T.StructType, Callable[[Message], tuple]]:
        self.in_progress.add(descriptor.full_name)
        fields: list[T.StructField] = []
        fixes: list[tuple[int, Fix]] = []
        for index, field in enumerate(descriptor.fields):
            data_type, fix = self.field(field, f"{where}.{field.name}")
            fields.append(T.StructField(field.name, data_type, True))
            if fix is not None:
                fixes.append((index, fix))
        self.in_progress.discard(descriptor.full_name)
        names = [field.name for field in descriptor.fields]
        if len(names) < 2:
            one = attrgetter(*names) if names else None
            read: Callable[[Message], tuple] = (lambda m: (one(m),)) if one is not None else (lambda m: ())
        else:
            read = attrgetter(*names)
        if not fixes:
            return T.StructType(fields), read

        def convert(message: Message) -> tuple:
            values = list(read(message))
            for index, fix in fixes:
                values[index] = fix(message, values[index])
            return tuple(values)

        return T.StructType(fields), convert

    def value(self, field: FieldDescriptor, where: str) -> tuple[T.DataType, Convert | None]:
        """The type of one value of `field` (an element, for a repeated field) and its conversion."""
        target = field.message_type
        if target is None:
            return _SCALARS[field.type], _scalar_convert(field)
        if target.full_name == TIMESTAMP:
            # microseconds since the epoch, which Arrow takes for a timestamp; cheaper than a datetime
            return T.TimestampType(), lambda stamp: stamp.seconds * 1_000_000 + stamp.nanos // 1000
        if target.full_name in WRAPPERS:
            inner = target.fields_by_name["value"]
            convert = _scalar_convert(inner)
            return _SCALARS[inner.type], (lambda wrapper: wrapper.value) if convert is None else \
                (lambda wrapper: convert(wrapper.value))
        if target.full_name in self.in_progress:
            raise UnsupportedSchemaType(f"field {where} is of the recursive message {target.full_name}, "
                                        "which has no Spark equivalent")
        return self.message(target, where)

    def field(self, field: FieldDescriptor, where: str) -> tuple[T.DataType, Fix | None]:
        name = field.name
        if _is_map(field):
            key_type, key_convert = self.value(field.message_type.fields_by_name["key"], f"{where}.key")
            value_type, value_convert = self.value(field.message_type.fields_by_name["value"], f"{where}.value")
            if key_convert is None and value_convert is None:
                return T.MapType(key_type, value_type, True), lambda m, found: dict(found)
            key_of = key_convert or (lambda k: k)
            value_of = value_convert or (lambda v: v)
            return T.MapType(key_type, value_type, True), \
                lambda m, found: {key_of(k): value_of(v) for k, v in found.items()}
        data_type, convert = self.value(field, where)
        if field.is_repeated:
            if convert is None:
                return T.ArrayType(data_type, False), None
            return T.ArrayType(data_type, False), lambda m, found: [convert(x) for x in found]
        if field.message_type is not None or field.has_presence:
            plain = convert or (lambda v: v)
            return data_type, lambda m, found: plain(found) if m.HasField(name) else None
        if convert is None:
            return data_type, None
        return data_type, lambda m, found: convert(found)


def reader_class(registry: RegistryClient, reader: Schema, message: str | None) -> MessageType:
    """The reader's message class: `message` (a full name) or the file's first message."""
    described = "the reader Protobuf schema"
    if reader.schema_type != PROTOBUF:
        raise ValueError(f"the reader schema is {reader.schema_type}, not PROTOBUF")
    file = build_pool(registry, reader, described)
    if message is None:
        proto = file_proto(reader, described)
        if not proto.message_type:
            raise UnsupportedSchemaType(f"{described} declares no message")
        first = proto.message_type[0].name
        message = f"{proto.package}.{first}" if proto.package else first
    try:
        return GetMessageClass(file.pool.FindMessageTypeByName(message))
    except KeyError:
        raise ValueError(f"{described} has no message {message!r}") from None


def message_shape(message_class: MessageType) -> tuple[T.StructType, Callable[[Message], tuple]]:
    descriptor = message_class.DESCRIPTOR
    return _Mapper().message(descriptor, descriptor.name)


class ProtobufDecoder:
    """Framed Protobuf to the reader message's shape."""

    def __init__(self, client: RegistryClient, reader: Schema, framing: Framing, message: str | None) -> None:
        self.reader = reader_class(client, reader, message)
        self.convert = message_shape(self.reader)[1]
        self.writers: WriterCache[WriterFile] = WriterCache(client, framing, SERIALIZED, self._compile)

    def _compile(self, writer: Schema, key: WriterKey) -> WriterFile:
        if writer.schema_type != PROTOBUF:
            raise SerializationError(f"schema id {key} is {writer.schema_type}, not PROTOBUF")
        described = f"Protobuf schema id {key}"
        return WriterFile(file_proto(writer, described), described, self.reader, None)

    def decode_all(self, values: list[bytes | None], bad: BadRecordHook) -> list[Any]:
        decoded: list[Any] = [None] * len(values)
        writer_of, size, convert = self.writers.get, self.writers.header_size, self.convert
        for row, data in enumerate(values):
            if data is None:
                continue
            try:
                writer = writer_of(data)
                path, offset = decode_indexes(data, size)
                message = (writer.classes.get(path) or writer.message_class(path))()
                try:
                    message.ParseFromString(data[offset:])
                except DecodeError as exc:
                    raise SerializationError(f"cannot decode {len(data)} bytes as "
                                             f"{message.DESCRIPTOR.full_name}: {exc}") from exc
                decoded[row] = convert(message)
            except (SerializationError, SchemaNotFound) as exc:
                bad(row, exc)
        return decoded


class ProtobufFormat:
    name = "Protobuf"
    schema_format = SERIALIZED
    jvm = False

    def spark_shape(self, registry: RegistryClient, reader: Schema, message: str | None) -> SparkShape:
        return SparkShape(message_shape(reader_class(registry, reader, message))[0], True)

    def decoder(self, registry: RegistryClient, reader: Schema, framing: Framing,
                message: str | None) -> RecordDecoder:
        return kept_in_worker(registry, (PROTOBUF, reader.text, reader.references, message, type(framing).__name__),
                            lambda client: ProtobufDecoder(client, reader, framing, message))

    def rule_decoder(self, registry: RegistryClient, reader: Schema, framing: Framing, message: str | None,
                     rules: DecodeRules) -> RecordDecoder:
        """`app.client`'s `ProtobufDeserializer` with the reader's message class and version:
        records of other versions migrated to it, the rules run, then the reader's Spark shape."""
        key = (PROTOBUF, "rules", reader.text, reader.references, message, rules.subject, rules.reader_version,
               rules.config_key, type(framing).__name__)
        version = rule_reader(reader, rules)

        def make(client: RegistryClient) -> RecordDecoder:
            message_class = reader_class(client, reader, message)
            return RuleRecordDecoder(ProtobufDeserializer(
                client, message_class, reader=version if isinstance(version, ReaderVersion) else None,
                subject=rules.subject, framing=framing, rule_config=rules.config), message_shape(message_class)[1])

        return kept_in_worker(registry, key, make)


PROTOBUF_FORMAT = ProtobufFormat()
