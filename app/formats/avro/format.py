"""`AvroFormat`, the Avro `SchemaFormat`, put together from the modules beside it.

Parsing is an own walk over the JSON rather than fastavro's: the registry must refuse and accept
what Java refuses and accepts, print Java's bytes (they are hashed into ids), and keep Java's
object identities for the checker, none of which fastavro's parsed form preserves.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass

from app.fingerprinting.canonical import parsing_canonical_form
from app.fingerprinting.fingerprint import CRC64, DIGEST_SIZES, MD5, SHA256, fingerprint_of_form
from app.formats.avro.canonical import to_json
from app.formats.avro.compatibility import UNEXPECTED_EXCEPTION, check
from app.formats.avro.elements import elements as schema_elements
from app.formats.avro.errors import InvalidAvro
from app.formats.avro.model import Record, Schema
from app.formats.avro.nesting import check_document
from app.formats.avro.normalize import normalized_text
from app.formats.avro.outline import outline as outline_of
from app.formats.avro.parser import Parser
from app.formats.avro.tags import field_tags as inline_field_tags
from app.formats.avro.tags import modify_tags as modify_inline_tags
from app.formats.avro.tags import tagged_entities as inline_tagged_entities
from app.formats.base import (
    STRICT_POLICY,
    EntityTags,
    Incompatibility,
    Node,
    ParsedSchema,
    SchemaElement,
    refusals,
)

_REFUSAL = "Invalid schema of type AVRO, details: {}"

# Confluent's `io.confluent.kafka.schemaregistry.avro.Difference` descriptions; {r}/{w} are the
# reader's and writer's labels ("new"/"old"), filled in by SchemaValidatorBuilder.
_DESCRIPTIONS = {
    "FIXED_SIZE_MISMATCH": "The size of FIXED type field at path '{path}' in the {r} schema does not match with the {w} schema",
    "TYPE_MISMATCH": "The type (path '{path}') of a field in the {r} schema does not match with the {w} schema",
    "NAME_MISMATCH": "The name of the schema has changed (path '{path}')",
    "MISSING_ENUM_SYMBOLS": "The {r} schema is missing enum symbols '{msg}' at path '{path}' in the {w} schema",
    "MISSING_UNION_BRANCH": "The {r} schema is missing a type inside a union field at path '{path}' in the {w} schema",
    "READER_FIELD_MISSING_DEFAULT_VALUE": "The field '{msg}' at path '{path}' in the {r} schema has no default value and is missing in the {w} schema",
}


@dataclass(frozen=True, eq=False)
class AvroNative:
    """What a parsed Avro schema keeps besides its text.

    `referenced` are the full names of the referenced schemas' top-level types (Java's writer
    refers to them by name instead of inlining them); `dependencies` and `strict` let
    `normalize` re-parse its output in the same context, as Confluent does.
    """

    schema: Schema
    referenced: tuple[str, ...]
    dependencies: Mapping[str, str]
    strict: bool


def _native(schema: ParsedSchema) -> AvroNative:
    return schema.native


def _refusals() -> AbstractContextManager[None]:
    return refusals(InvalidAvro, _REFUSAL)


class AvroFormat:
    schema_type = "AVRO"
    file_extension = "avsc"  # what a downloaded schema file is named with (the web UI)
    fingerprint_digits = {algorithm: 2 * size for algorithm, size in DIGEST_SIZES.items()}

    def parse(self, text: str, dependencies: Mapping[str, str], *, strict: bool = True) -> ParsedSchema:
        parser = Parser(strict)
        with _refusals():
            referenced = tuple(parser.parse_text(dep).union_key for dep in dependencies.values())
            schema = parser.parse_text(text)
            canonical = to_json(schema, set(referenced))
            check_document(canonical)  # the stored text must parse again (types of references inline)
        return ParsedSchema(self.schema_type, canonical, AvroNative(schema, referenced, dict(dependencies), strict))

    def normalize(self, schema: ParsedSchema) -> ParsedSchema:
        """Confluent stores the Java writer's text of its re-parsed normalized form."""
        native = _native(schema)
        with _refusals():
            text = normalized_text(native.schema, list(native.referenced))
        return self.parse(text, native.dependencies, strict=native.strict)

    def can_read(
        self, reader: ParsedSchema, writer: ParsedSchema, *, policy: str = STRICT_POLICY
    ) -> list[Incompatibility]:
        """Incompatibilities of `reader` (decoding side) with data written with `writer`.
        Avro's rules have no lenient variant, so `policy` changes nothing."""
        with _refusals():
            return check(_native(reader).schema, _native(writer).schema)

    def describe(self, incompatibility: Incompatibility, reader_label: str, writer_label: str) -> str:
        """Confluent's verbose entry; `reader_label` names the reader side, `writer_label` the writer."""
        if incompatibility.type == UNEXPECTED_EXCEPTION:
            return f"Unexpected exception during compatibility check: {incompatibility.message}"
        description = self._description(incompatibility, reader_label, writer_label)
        return (
            f"{{errorType:'{incompatibility.type}', description:'{description}', "
            f"additionalInfo:'{incompatibility.message}'}}"
        )

    def explain(self, incompatibility: Incompatibility, reader_label: str, writer_label: str) -> str:
        """`Explains`: the description, then the detail Confluent puts in `additionalInfo`
        when the description does not already quote it."""
        if incompatibility.type == UNEXPECTED_EXCEPTION:
            return f"Unexpected exception during compatibility check: {incompatibility.message}"
        description = self._description(incompatibility, reader_label, writer_label)
        if not incompatibility.message or "{msg}" in _DESCRIPTIONS.get(incompatibility.type, "{msg}"):
            return description
        return f"{description}: {incompatibility.message}"

    @staticmethod
    def _description(incompatibility: Incompatibility, reader_label: str, writer_label: str) -> str:
        template = _DESCRIPTIONS.get(incompatibility.type, "")
        return template.format(
            path=incompatibility.location, msg=incompatibility.message, r=reader_label, w=writer_label
        )

    def fingerprints(self, schema: ParsedSchema) -> dict[str, str]:
        """The Parsing Canonical Form's fingerprints (`Fingerprints`), references inlined,
        in the byte order of single-object encoding; computed once, at registration."""
        try:
            form = parsing_canonical_form(schema.canonical, list(_native(schema).dependencies.values()))
        except (ValueError, RecursionError):
            # Nested past what the canonical writer's recursion reaches (through references):
            # such a schema registers, it just cannot be found by fingerprint.
            return {}
        return {algorithm: fingerprint_of_form(form, algorithm).hex for algorithm in (CRC64, MD5, SHA256)}

    def field_names(self, schema: ParsedSchema) -> set[str]:
        """Top-level field names, for the core's reserved-field check (`TopLevelFields`): a
        record's own fields, none for any other type, as Java's `AvroSchema.hasTopLevelField`."""
        root = _native(schema).schema
        return {field.name for field in root.fields} if isinstance(root, Record) else set()

    def field_tags(self, schema: ParsedSchema) -> dict[str, tuple[str, ...]]:
        """`FieldTags`: the fields' `confluent:tags`."""
        native = _native(schema)
        return inline_field_tags(native.schema, set(native.referenced))

    def tagged_entities(self, schema: ParsedSchema) -> list[EntityTags]:
        """`TaggedEntities`: records' and fields' `confluent:tags`."""
        native = _native(schema)
        return inline_tagged_entities(native.schema, set(native.referenced))

    def outline(self, schema: ParsedSchema) -> Node:
        """`Outlines`: the field tree; types of referenced schemas show by name."""
        native = _native(schema)
        return outline_of(native.schema, native.referenced)
    def elements(self, schema: ParsedSchema, *, as_stored: bool = False) -> list[SchemaElement]:
        """`PolicyView`: the elements of the types this schema's text defines (pointers follow
        the structure, which the sent and the stored text share: `as_stored` changes nothing)."""
        native = _native(schema)
        return schema_elements(native.schema, frozenset(native.referenced))

    def formatted(self, schema: ParsedSchema, fmt: str) -> str | None:
        if fmt.lower() == "resolved":
            with _refusals():
                return to_json(_native(schema).schema, set())
        return None

    def modify_tags(
        self, schema: ParsedSchema, add: Sequence[EntityTags], remove: Sequence[EntityTags]
    ) -> ParsedSchema:
        """`SchemaTagEditor`: edit `confluent:tags` (see `tags`) on a fresh parse of the
        text, since the parsed form given is cached and shared, then parse the result."""
        native = _native(schema)
        copy = _native(self.parse(schema.canonical, native.dependencies, strict=False)).schema
        known = set(native.referenced)
        modify_inline_tags(copy, known, add, remove)
        with _refusals():
            text = to_json(copy, known)
        return self.parse(text, native.dependencies, strict=native.strict)
