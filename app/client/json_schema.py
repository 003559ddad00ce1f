"""JSON Schema serializer and deserializer: records as JSON text behind Confluent's header.

    serialize = JsonSerializer(client, ORDER_SCHEMA, subject="orders-value")
    data = serialize({"id": 7, "total": 9.5})             # b"\\x00" + id + b'{"id":7,"total":9.5}'
    deserialize = JsonDeserializer(client)
    record = deserialize(data)                             # {"id": 7, "total": 9.5}

The payload is compact UTF-8 JSON (no spaces, non-ASCII kept), the bytes confluent-kafka's
`JSONSerializer` writes for the same record and id. Unlike Avro, the bytes do not need the
schema to be read back; what the schema adds is validation: by default every record is
checked against the writer's schema on the way out, and against the reader's schema (or,
without one, the writer's) on the way in, as confluent-kafka does, so a consumer never hands
on a record its schema forbids. `validate=False` skips the check (and its cost) on either side.

A schema's validator is compiled once per schema id: the `jsonschema` class its `$schema`
names (draft 7 when absent), over a `referencing` registry that holds every schema it
references, transitively, under the reference names its references list gives, so a
`$ref: "customer.json"` finds the subject version registered as `customer.json`. Referenced
schemas come from the registry client (whose caches make that one request per version);
remote `$ref`s are never fetched from the network. `format` is an annotation only (not
asserted), as in confluent-kafka, so a record is valid here exactly when it is valid there.
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from time import monotonic
from typing import Any, Iterable, Union

from jsonschema import Draft7Validator
from jsonschema.exceptions import SchemaError, ValidationError, best_match
from jsonschema.protocols import Validator
from jsonschema.validators import validator_for
from referencing import Registry, Resource
from referencing.exceptions import Unresolvable
from referencing.jsonschema import DRAFT7

from app.client.errors import RecordInvalid, SerializationError
from app.client.framing import IdOnlyWriter, WriterKey, id_framing_only
from app.client.records import JSON, RegisteredSchema, Schema
from app.client.registry_client import RegistryClient
from app.client.resolver import SchemaSource, resolve_references
from app.client.rules.json_walker import JsonWalker
from app.client.serde import ReaderVersion, RegistryDeserializer, RegistrySerializer

JsonSchemaInput = Union[Schema, str, dict, bool]

# Compact and UTF-8 as confluent-kafka writes it. NaN and infinities are refused rather than
# written as the non-JSON tokens `NaN`/`Infinity`, which strict readers (orjson, Java) reject.
_encode = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False, allow_nan=False).encode


def as_json_schema(schema: JsonSchemaInput) -> Schema:
    """Schema text as given (str), a decoded schema (dict, or a boolean schema), or a `Schema`."""
    if isinstance(schema, Schema):
        if schema.schema_type != JSON:
            raise ValueError(f"a JSON Schema serializer cannot use a {schema.schema_type} schema")
        return schema
    if isinstance(schema, str):
        return Schema(schema, JSON)
    return Schema(json.dumps(schema), JSON)


def _decode_schema(schema: Schema) -> Any:
    try:
        return json.loads(schema.text)
    except ValueError as exc:
        raise SerializationError(f"the JSON schema is not JSON: {exc}") from exc


def _reference_registry(source: SchemaSource, schema: Schema) -> Registry[Any]:
    """Every schema `schema` references, transitively, under its reference name (and, by
    `crawl`, its own `$id`s), for `$ref`s to resolve against."""
    try:
        resources = [(reference.name, Resource.from_contents(_decode_schema(found), default_specification=DRAFT7))
                     for reference, found in resolve_references(source, schema)]
    except ValueError as exc:  # a reference cycle
        raise SerializationError(str(exc)) from exc
    return Registry().with_resources(resources).crawl()


def json_walker(source: SchemaSource, schema: Schema) -> JsonWalker:
    """The field-rule walker over records of `schema`."""
    return JsonWalker(_decode_schema(schema), _reference_registry(source, schema))


def compile_validator(source: SchemaSource, schema: Schema) -> Validator:
    """The `jsonschema` validator for `schema`, its references resolvable by name.

    Raises `SerializationError` when the schema (or one it references) is not JSON, is not a
    JSON schema of its draft, or forms a reference cycle between subjects.
    """
    if schema.schema_type != JSON:
        raise SerializationError(f"expected a JSON schema, got a {schema.schema_type} one")
    contents = _decode_schema(schema)
    registry = _reference_registry(source, schema)
    cls = validator_for(contents, default=Draft7Validator)
    try:
        cls.check_schema(contents)
    except SchemaError as exc:
        raise SerializationError(
            f"not a valid {cls.__name__.removesuffix('Validator')} JSON schema: {exc.message} "
            f"at {_pointer(exc.absolute_path)}"
        ) from exc
    return cls(contents, registry=registry)


def _pointer(parts: Iterable[str | int]) -> str:
    """A JSON pointer as a URI fragment (`#/items/0/age`), escaped per RFC 6901."""
    return "#" + "".join("/" + str(part).replace("~", "~0").replace("/", "~1") for part in parts)


@dataclass(frozen=True)
class RecordCheck:
    """The validation of one schema's records; `validator` None when validation is off."""

    validator: Validator | None
    described: str  # "JSON schema id 7 of orders-value": what error messages name

    def __call__(self, record: Any) -> None:
        if self.validator is None:
            return
        try:
            errors = list(self.validator.iter_errors(record))
        except Unresolvable as exc:
            raise SerializationError(f"{self.described} has a $ref that resolves to nothing: {exc}") from exc
        if errors:
            error: ValidationError = best_match(errors)
            path, schema_path = _pointer(error.absolute_path), _pointer(error.absolute_schema_path)
            more = f"; {len(errors) - 1} more" if len(errors) > 1 else ""
            raise RecordInvalid(
                f"record does not match {self.described}: {error.message} at {path} "
                f"(rule {error.validator} at {schema_path}{more})",
                path=path, keyword=str(error.validator), schema_path=schema_path,
            ) from None


class JsonSerializer(RegistrySerializer[RecordCheck]):
    """`serializer(record) -> bytes` for dicts, lists and scalars that `json` can encode.

    `validate` False writes records without checking them against the writer schema. See
    `RegistrySerializer` for subject, writer and framing options; `schema` may be None with
    `UseLatest` or `PinnedVersion`. The record-based subject strategies use the schema's
    `title`, as Confluent's serializers do.
    """

    def __init__(
        self, client: RegistryClient, schema: JsonSchemaInput | None = None, *, validate: bool = True,
        **options: Any,
    ) -> None:
        self.validate = validate
        if "framing" in options:
            id_framing_only(options["framing"])
        super().__init__(client, as_json_schema(schema) if schema is not None else None, **options)

    def record_name(self, schema: Schema) -> str | None:
        decoded = _decode_schema(schema)
        title = decoded.get("title") if isinstance(decoded, dict) else None
        return title if isinstance(title, str) else None

    def compile(self, registered: RegisteredSchema) -> RecordCheck:
        if registered.schema.schema_type != JSON:
            raise SerializationError(f"schema id {registered.schema_id} of {self.subject} is "
                                     f"{registered.schema.schema_type}, not JSON")
        validator = compile_validator(self.client, registered.schema) if self.validate else None
        return RecordCheck(validator, f"JSON schema id {registered.schema_id} of {self.subject}")

    def header_for(self, registered: RegisteredSchema, compiled: RecordCheck) -> bytes:
        return self.framing.header(IdOnlyWriter(registered.schema_id))

    def rule_walker(self, schema: Schema) -> JsonWalker:
        return json_walker(self.client, schema)

    def __call__(self, record: Any) -> bytes:
        state = self._state
        if state is None or (state.expires_at is not None and monotonic() >= state.expires_at):
            state = self._refresh()
        rules = state.rules
        if rules is not None:
            record = rules.record(record)
        state.compiled(record)
        try:
            payload = _encode(record)
        except (TypeError, ValueError) as exc:
            raise SerializationError(f"record cannot be written as JSON: {exc}") from exc
        if rules is not None:
            return state.header + rules.payload(payload.encode())
        return state.header + payload.encode()


class JsonDeserializer(RegistryDeserializer[RecordCheck]):
    """`deserializer(data) -> record`: the decoded JSON (dicts, lists, str, int, float, bool, None).

    `reader` (a schema, or a `ReaderVersion` of a subject) is what records are validated
    against; without one each record is validated against its writer's schema. JSON needs
    no projection: a record reads the same under any schema, so `reader` never reshapes it.
    Writer schemas are fetched once per header even with `validate=False`, so that bytes
    naming an unknown id, or an Avro or Protobuf schema, are refused rather than misread.
    """

    def __init__(
        self,
        source: SchemaSource,
        *,
        reader: JsonSchemaInput | ReaderVersion | None = None,
        validate: bool = True,
        **options: Any,
    ) -> None:
        if reader is not None and not isinstance(reader, ReaderVersion):
            reader = as_json_schema(reader)
        if "framing" in options:
            id_framing_only(options["framing"])
        super().__init__(source, reader=reader, **options)
        self.validate = validate
        self._header_size = self.framing.header_size
        self._reader_check: RecordCheck | None = None
        if self.reader is not None:
            as_json_schema(self.reader)  # a ReaderVersion may have named an Avro subject
            self._reader_check = RecordCheck(compile_validator(source, self.reader) if validate else None,
                                             "the reader's JSON schema")

    def compile(self, writer: Schema, key: WriterKey, project: bool = True) -> RecordCheck:
        if writer.schema_type != JSON:
            raise SerializationError(f"schema id {key} is {writer.schema_type}, not JSON")
        if self._reader_check is not None:
            return self._reader_check
        return RecordCheck(compile_validator(self.source, writer) if self.validate else None,
                           f"writer JSON schema id {key}")

    def rule_walker(self, schema: Schema) -> JsonWalker:
        return json_walker(self.source, schema)

    def __call__(self, data: bytes) -> Any:
        check = self._decoders.get(data[: self._header_size])
        if check is None:
            check = self._decoder_for(data)
        plan = self._plans.get(data[: self._header_size]) if self._plans else None
        payload = data[self._header_size:] if plan is None else plan.payload(data[self._header_size:])
        try:
            record = json.loads(payload)
        except ValueError as exc:  # JSONDecodeError and UnicodeDecodeError both are ValueErrors
            raise SerializationError(f"cannot decode {len(data)} bytes as JSON: {exc}") from exc
        if plan is not None:
            record = plan.record(record)
        check(record)
        return record
