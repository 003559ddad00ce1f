"""JSON Schema as a pipeline format: records validated against their writer, shaped as the reader.

Each record is checked against its writer's schema as confluent-kafka's `JSONDeserializer`
does (the validator compiled once per writer per worker, references resolved through the
registry, by `app.client.json_schema`): a wrong type or a missing required property is a bad
record, never a null. That check costs about 400 us per record of ten properties, which would
make the job slower than the deserializer's loop it replaces; so a writer without references
to other subjects is first checked by `jsonschema_rs` (the same drafts in Rust, formats not
asserted, offline: about 6 us), and only a record it rejects goes to `jsonschema`, which words
the reason and has the last say. The valid record is then projected onto the reader schema: properties
the reader lacks are dropped, a reader property the record lacks is the property's `default`
(or null).

Spark types, as Kafka Connect's JSON Schema converter maps them:

- `object` with `properties` -> struct of those properties (each nullable), in their order;
  an `object` with only `additionalProperties: <schema>` -> map<string, that schema's type>
- `integer` -> bigint, `number` -> double, `boolean` -> boolean, `string` -> string
  (`format: date-time` -> timestamp, read as RFC 3339; a value that is not one is a bad record)
- `array` -> array of its `items`
- `oneOf`/`anyOf` of one type and `null`, or `type: [T, "null"]` -> T, nullable
- anything else (no type, several types, `true`) -> string holding the value as JSON text
- local `$ref`s (`#/definitions/...`) are followed; a schema that contains itself has no Spark
  type and is refused, naming the property.
"""
from __future__ import annotations

import json
from collections.abc import Callable
from datetime import datetime, timezone
from typing import Any

import jsonschema_rs
from pyspark.sql import types as T

from app.client import JsonDeserializer, RegistryClient, Schema, SchemaNotFound, SerializationError
from app.client.framing import Framing, WriterKey
from app.client.json_schema import RecordCheck, compile_validator
from app.client.records import JSON
from app.pipeline.formats.format import BadRecordHook, RecordDecoder, UnsupportedSchemaType
from app.pipeline.formats.writer_cache import WriterCache, kept_in_worker
from app.pipeline.rule_decoder import RuleRecordDecoder, rule_reader
from app.pipeline.rule_plan import DecodeRules
from app.pipeline.types import SparkShape

Convert = Callable[[Any], Any]
_SCALARS: dict[str, T.DataType] = {"integer": T.LongType(), "number": T.DoubleType(), "boolean": T.BooleanType(),
                                   "string": T.StringType()}


def _json_text(value: Any) -> Any:
    return None if value is None else json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def _timestamp(value: Any) -> Any:
    if value is None:
        return None
    try:
        found = datetime.fromisoformat(value)
    except (TypeError, ValueError):
        raise SerializationError(f"{value!r} is not an RFC 3339 date-time") from None
    return found if found.tzinfo is not None else found.replace(tzinfo=timezone.utc)


class _Node:
    """A reader schema node's Spark shape and the conversion its values need (None: none)."""

    def __init__(self, shape: SparkShape, convert: Convert | None) -> None:
        self.shape, self.convert = shape, convert


_ANY = _Node(SparkShape(T.StringType(), True), _json_text)


class _Mapper:
    def __init__(self, root: Any) -> None:
        self.root = root
        self.in_progress: set[str] = set()

    def node(self, schema: Any, where: str) -> _Node:
        if not isinstance(schema, dict):
            return _ANY  # `true`, or not a schema at all
        ref = schema.get("$ref")
        if isinstance(ref, str):
            if not ref.startswith("#"):
                raise UnsupportedSchemaType(f"{where}: $ref {ref!r} names another schema; the pipeline "
                                            "maps only references inside the reader schema")
            if ref in self.in_progress:
                raise UnsupportedSchemaType(f"{where}: recursive type {ref} has no Spark equivalent")
            self.in_progress.add(ref)
            try:
                return self.node(self._pointer(ref, where), where)
            finally:
                self.in_progress.discard(ref)
        for union in ("oneOf", "anyOf"):
            members = schema.get(union)
            if isinstance(members, list):
                others = [member for member in members if not _is_null(member)]
                if len(others) == 1:
                    inner = self.node(others[0], where)
                    return _Node(SparkShape(inner.shape.data_type, True), inner.convert)
                return _ANY
        kind = schema.get("type")
        if isinstance(kind, list):
            others = [name for name in kind if name != "null"]
            kind = others[0] if len(others) == 1 else None
        if kind is None:
            kind = "object" if "properties" in schema else "array" if "items" in schema else None
        if kind == "object":
            return self._object(schema, where)
        if kind == "array":
            items = schema.get("items")
            if not isinstance(items, dict):
                items = True
            item = self.node(items, f"{where}[]")
            convert = item.convert
            return _Node(SparkShape(T.ArrayType(item.shape.data_type, True), True),
                         None if convert is None else lambda v: None if v is None else [convert(x) for x in v])
        if kind == "string" and schema.get("format") == "date-time":
            return _Node(SparkShape(T.TimestampType(), True), _timestamp)
        if kind in _SCALARS:
            return _Node(SparkShape(_SCALARS[kind], True), None)
        return _ANY

    def _pointer(self, ref: str, where: str) -> Any:
        found = self.root
        for part in [p for p in ref[1:].split("/") if p]:
            part = part.replace("~1", "/").replace("~0", "~")
            try:
                found = found[int(part)] if isinstance(found, list) else found[part]
            except (KeyError, IndexError, ValueError, TypeError):
                raise UnsupportedSchemaType(f"{where}: $ref {ref!r} resolves to nothing") from None
        return found

    def _object(self, schema: dict[str, Any], where: str) -> _Node:
        properties = schema.get("properties")
        if not isinstance(properties, dict) or not properties:
            extra = schema.get("additionalProperties", True)
            value = self.node(extra if isinstance(extra, dict) and extra else True, f"{where}.*")
            convert = value.convert
            return _Node(SparkShape(T.MapType(T.StringType(), value.shape.data_type, True), True),
                         None if convert is None else
                         lambda v: None if v is None else {k: convert(x) for k, x in v.items()})
        fields: list[T.StructField] = []
        steps: list[tuple[str, Convert | None, Any]] = []
        for name, prop in properties.items():
            child = self.node(prop, f"{where}.{name}")
            fields.append(T.StructField(name, child.shape.data_type, True))
            default = prop.get("default") if isinstance(prop, dict) else None
            if default is not None and child.convert is not None:
                default = child.convert(default)
            steps.append((name, child.convert, default))

        def convert_object(value: Any) -> Any:
            # A tuple in property order: Arrow builds a struct from tuples about 8x faster than from dicts.
            if value is None:
                return None
            if not isinstance(value, dict):
                raise SerializationError(f"{where} is a {type(value).__name__}, not the reader's object")
            get = value.get
            out = []
            for name, convert, default in steps:
                found = get(name, default)
                out.append(found if convert is None or found is None else convert(found))
            return tuple(out)

        return _Node(SparkShape(T.StructType(fields), True), convert_object)


def _is_null(schema: Any) -> bool:
    return isinstance(schema, dict) and schema.get("type") == "null"


def reader_node(reader: Schema) -> _Node:
    try:
        root = json.loads(reader.text)
    except ValueError as exc:
        raise UnsupportedSchemaType(f"the reader JSON schema is not JSON: {exc}") from exc
    node = _Mapper(root).node(root, "$")
    if not isinstance(node.shape.data_type, T.StructType):
        # `value` is always a struct: a top-level scalar or array becomes its one field.
        convert = node.convert
        return _Node(SparkShape(T.StructType([T.StructField("value", node.shape.data_type, True)]), True),
                     lambda v: (v if convert is None or v is None else convert(v),))
    return node


_FAST = {"Draft4Validator": jsonschema_rs.Draft4Validator, "Draft6Validator": jsonschema_rs.Draft6Validator,
         "Draft7Validator": jsonschema_rs.Draft7Validator,
         "Draft201909Validator": jsonschema_rs.Draft201909Validator,
         "Draft202012Validator": jsonschema_rs.Draft202012Validator}


class WriterCheck:
    """A writer's record check: `jsonschema_rs` accepts the valid records quickly; `jsonschema`
    (`RecordCheck`, what the client's deserializer runs) judges and words the others."""

    def __init__(self, writer: Schema, full: RecordCheck) -> None:
        self.full = full
        self.fast: Any = None
        assert full.validator is not None
        cls = _FAST.get(type(full.validator).__name__)
        if cls is not None and not writer.references:
            try:
                self.fast = cls(json.loads(writer.text), validate_formats=False, offline=True)
            except (ValueError, TypeError, jsonschema_rs.ValidationError, jsonschema_rs.ReferencingError):
                self.fast = None  # a $ref it cannot resolve offline, a regex dialect it refuses: jsonschema alone

    def __call__(self, record: Any) -> None:
        fast = self.fast
        if fast is not None:
            try:
                if fast.is_valid(record):
                    return
            except (ValueError, OverflowError):  # a value Rust's JSON cannot hold
                pass
        self.full(record)


class JsonSchemaDecoder:
    """Framed JSON to the reader's shape, validated against each record's writer."""

    def __init__(self, client: RegistryClient, reader: Schema, framing: Framing) -> None:
        convert = reader_node(reader).convert
        assert convert is not None  # the reader's top level is always a struct, built as a tuple
        self.convert = convert
        self.writers: WriterCache[WriterCheck] = WriterCache(client, framing, None, self._compile)
        self.client = client

    def _compile(self, writer: Schema, key: WriterKey) -> WriterCheck:
        if writer.schema_type != JSON:
            raise SerializationError(f"schema id {key} is {writer.schema_type}, not JSON")
        return WriterCheck(writer, RecordCheck(compile_validator(self.client, writer), f"writer JSON schema id {key}"))

    def decode_all(self, values: list[bytes | None], bad: BadRecordHook) -> list[Any]:
        decoded: list[Any] = [None] * len(values)
        writer_of, size, loads, convert = self.writers.get, self.writers.header_size, json.loads, self.convert
        for row, data in enumerate(values):
            if data is None:
                continue
            try:
                check = writer_of(data)
                try:
                    record = loads(data[size:])
                except ValueError as exc:  # JSONDecodeError and UnicodeDecodeError both
                    raise SerializationError(f"cannot decode {len(data)} bytes as JSON: {exc}") from exc
                check(record)
                decoded[row] = convert(record)
            except (SerializationError, SchemaNotFound) as exc:
                bad(row, exc)
        return decoded


class JsonSchemaFormat:
    name = "JSON Schema"
    schema_format = None
    jvm = False

    def spark_shape(self, registry: RegistryClient, reader: Schema, message: str | None) -> SparkShape:
        return reader_node(reader).shape

    def decoder(self, registry: RegistryClient, reader: Schema, framing: Framing,
                message: str | None) -> RecordDecoder:
        return kept_in_worker(registry, (JSON, reader.text, type(framing).__name__),
                            lambda client: JsonSchemaDecoder(client, reader, framing))

    def rule_decoder(self, registry: RegistryClient, reader: Schema, framing: Framing, message: str | None,
                     rules: DecodeRules) -> RecordDecoder:
        """`app.client`'s `JsonDeserializer`: rules, then the record validated against the reader."""
        convert = reader_node(reader).convert
        assert convert is not None  # the reader's top level is always a struct
        key = (JSON, "rules", reader.text, rules.subject, rules.reader_version, rules.config_key,
               type(framing).__name__)
        return kept_in_worker(registry, key, lambda client: RuleRecordDecoder(
            JsonDeserializer(client, reader=rule_reader(reader, rules), subject=rules.subject, framing=framing,
                             rule_config=rules.config),
            convert))


JSON_SCHEMA_FORMAT = JsonSchemaFormat()
