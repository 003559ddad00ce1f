"""`JsonSchemaFormat`, the JSON Schema `SchemaFormat`, put together from the modules beside it.

What Confluent's JSON Schema provider does, and this follows: the stored text is the document as
Jackson prints it (keys in the order given, see `json_text`); `normalize` sorts the keys of every
object; there are no `format=` renderings; references are resolved by name (`model`). A schema
arriving through the API is also checked against its draft's metaschema (`metaschema`), every
`$ref` in it must resolve and every regular expression must compile (`patterns`), so a broken
schema is refused at registration instead of failing its users later; a lookup, which parses
leniently, still refuses a regular expression that does not compile (`check_request`).
Compatibility is the `diff` package's (Confluent's `SchemaDiff`).
"""
from __future__ import annotations

from collections.abc import Mapping
from contextlib import AbstractContextManager
from dataclasses import replace
from typing import Any

from referencing import Resource
from referencing.exceptions import Unresolvable

from app.formats import work_budget
from app.formats.base import (
    LENIENT_POLICY,
    STRICT_POLICY,
    EntityTags,
    Incompatibility,
    Node,
    ParsedSchema,
    SchemaElement,
    refusals,
)
from app.formats.json_schema.drafts import draft_of
from app.formats.json_schema.errors import InvalidJsonSchema
from app.formats.json_schema.json_text import dumps, loads, sorted_keys
from app.formats.json_schema.metaschema import check_against_metaschema
from app.formats.json_schema.model import JsonNative, build_native
from app.formats.json_schema.patterns import check_regexes
from app.formats.json_schema.subschemas import Ref, scan
from app.formats.json_schema.elements import elements as schema_elements

SCHEMA_TYPE = "JSON"
_REFUSAL = "Invalid schema of type JSON, details: {}"
_JSON_TYPES = {list: "ARRAY", str: "STRING", int: "NUMBER", float: "NUMBER", type(None): "NULL"}


def _native(schema: ParsedSchema) -> JsonNative:
    return schema.native


def _refusals() -> AbstractContextManager[None]:
    return refusals(InvalidJsonSchema, _REFUSAL)


def _document(text: str) -> Any:
    """The schema document in `text`: a JSON object or boolean, as Confluent requires."""
    document = loads(text)
    if not isinstance(document, (dict, bool)):
        found = _JSON_TYPES.get(type(document), type(document).__name__.upper())
        raise InvalidJsonSchema(f"Invalid JSON schema: expected an object or boolean at the root, found {found}")
    return document


def _built(document: Any, dependencies: Mapping[str, Any], *, crawl: bool) -> JsonNative:
    """`build_native`, with a refusal for documents whose ids and subschemas are not shaped
    as their draft says (only a schema that skipped the metaschema check can be one)."""
    try:
        return build_native(document, dependencies, crawl=crawl)
    except (TypeError, AttributeError, ValueError) as exc:
        raise InvalidJsonSchema(f"Invalid JSON schema: cannot index its subschemas ({exc})") from None


def _check_refs(native: JsonNative, refs: list[Ref]) -> None:
    """`InvalidJsonSchema` for the first `$ref` that resolves to nothing: a reference missing
    from the request's `references`, or a local pointer or anchor the schema does not have."""
    for ref in refs:
        work_budget.check()
        try:
            native.registry.resolver(base_uri=ref.base).lookup(ref.ref)
        except (Unresolvable, ValueError):
            hint = "no such location or anchor in the schema" if ref.ref.startswith("#") else (
                "a referenced schema must be listed in the references under that name"
            )
            raise InvalidJsonSchema(f"{ref.pointer}: cannot resolve $ref '{ref.ref}' ({hint})") from None


class JsonSchemaFormat:
    schema_type = SCHEMA_TYPE
    file_extension = "json"  # what a downloaded schema file is named with (the web UI)

    def parse(self, text: str, dependencies: Mapping[str, str], *, strict: bool = True) -> ParsedSchema:
        """A new schema (`strict`) is held to its metaschema and must resolve every `$ref`;
        a stored one is only read again."""
        with _refusals():
            document = _document(text)
            draft = draft_of(document)
            found = scan(document, draft)  # bounds the nesting before anything recurses
            if strict:
                check_against_metaschema(document, draft)
                check_regexes(found.regexes)
            decoded = {}
            for name, dependency in dependencies.items():  # a request may bring 1,000 references
                work_budget.check()
                decoded[name] = loads(dependency)
            native = _built(document, decoded, crawl=found.embedded_names or bool(decoded))
            if strict:
                _check_refs(native, found.refs)
            canonical = dumps(document)
        return ParsedSchema(self.schema_type, canonical, native)

    def check_request(self, schema: ParsedSchema) -> None:
        """`RequestChecks`: a lookup parses leniently, so as to find versions stored without
        the strict checks, yet Confluent's loaders refuse a regular expression that does not
        compile wherever they read a schema; so does this."""
        document = _native(schema).document
        with _refusals():
            check_regexes(scan(document, draft_of(document)).regexes)

    def same_schema(self, schema: ParsedSchema, stored_text: str) -> bool:
        """`SchemaEquality`: equal documents once every object's keys are sorted (Confluent
        compares the parsed JSON, where key order does not count but `1` and `1.0` differ, as
        they do in the sorted texts). Texts of one document in two key orders, printed alike,
        have one length: that test settles almost every other version without parsing it."""
        if len(stored_text) != len(schema.canonical):
            return False
        try:
            stored = sorted_keys(loads(stored_text))
        except InvalidJsonSchema:
            return False
        return dumps(stored) == dumps(sorted_keys(_native(schema).document))

    def normalize(self, schema: ParsedSchema) -> ParsedSchema:
        """Confluent re-reads its canonical text into key-sorted objects, at every level; the
        references stay as they were (the core sorts the list)."""
        native = _native(schema)
        with _refusals():
            document = sorted_keys(native.document)
            canonical = dumps(document)
        root = Resource(contents=document, specification=native.specification)
        registry = native.registry.with_resource(native.base_uri, root).crawl()
        return ParsedSchema(self.schema_type, canonical, replace(native, document=document, registry=registry))

    def can_read(
        self, reader: ParsedSchema, writer: ParsedSchema, *, policy: str = STRICT_POLICY
    ) -> list[Incompatibility]:
        """Incompatibilities of `reader` (the side decoding) with data written with `writer`:
        Confluent's `SchemaDiff.compare(writer, reader)` filtered by the policy's compatible
        changes. The checker is imported here, so parsing and reading never load it."""
        from app.formats.json_schema.diff import compare, incompatible

        rules = LENIENT_POLICY if policy == LENIENT_POLICY else STRICT_POLICY  # LOGICAL checks as STRICT
        with _refusals():
            return incompatible(compare(_native(writer), _native(reader), policy=rules), rules)

    def describe(self, incompatibility: Incompatibility, reader_label: str, writer_label: str) -> str:
        from app.formats.json_schema.diff import describe

        return describe(incompatibility, reader_label, writer_label)

    def explain(self, incompatibility: Incompatibility, reader_label: str, writer_label: str) -> str:
        """`Explains`: the sentence of `describe`'s entry."""
        from app.formats.json_schema.diff.messages import description

        return description(incompatibility.type, incompatibility.location, reader_label, writer_label)

    def outline(self, schema: ParsedSchema) -> Node:
        """`Outlines`: properties as fields, definitions as named types."""
        from app.formats.json_schema.outline import outline

        return outline(_native(schema).document)

    def field_tags(self, schema: ParsedSchema) -> dict[str, tuple[str, ...]]:
        """`FieldTags`: the properties' `confluent:tags`."""
        from app.formats.json_schema.field_tags import field_tags

        return field_tags(_native(schema).document)

    def tagged_entities(self, schema: ParsedSchema) -> list[EntityTags]:
        """`TaggedEntities`: objects' and properties' `confluent:tags`, named as Confluent's."""
        from app.formats.json_schema.field_tags import tagged_entities

        return tagged_entities(_native(schema).document)

    def formatted(self, schema: ParsedSchema, fmt: str) -> str | None:
        """Confluent's JSON Schema has no `format=` renderings: the canonical text is served."""
        return None

    def elements(self, schema: ParsedSchema, *, as_stored: bool = False) -> list[SchemaElement]:
        """`PolicyView`: the document's elements in the rules' vocabulary (see `elements`);
        pointers hold in the sent and the stored text alike, so `as_stored` changes nothing."""
        return schema_elements(_native(schema).document)

    def field_names(self, schema: ParsedSchema) -> set[str]:
        """Top-level field names for the core's reserved-field check (`TopLevelFields`): the
        root's `properties`, as Confluent's `JsonSchema.hasTopLevelField` reads them."""
        document = _native(schema).document
        properties = document.get("properties") if isinstance(document, dict) else None
        return set(properties) if isinstance(properties, dict) else set()
