"""The one interface every schema format implements.

The core never asks which format a schema is in: it parses through `SchemaFormat.parse`,
stores `ParsedSchema.canonical`, and asks `can_read(reader, writer)` for compatibility.
Another format is one new subpackage that implements this protocol and one line in
`app/formats/__init__.py`.

Formats know nothing of the registry (they must not import `app.core`, so that `app.client`
can use them alone): a schema they refuse is a `SchemaParseError`, which the core turns into
its 42201 reply with the message unchanged.
"""
from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, NamedTuple, Protocol, TypeGuard, TypeVar, runtime_checkable

# Confluent's default: a request without `schemaType` means Avro, and 7.x replies left the
# type out for it. The only place outside a format module that names one.
DEFAULT_SCHEMA_TYPE = "AVRO"

# Confluent's `compatibilityPolicy` config values. LENIENT lets a format accept changes its
# STRICT rules refuse (JSON Schema: closing an open content model); a format without such
# changes treats both alike.
STRICT_POLICY = "STRICT"
LENIENT_POLICY = "LENIENT"


class SchemaParseError(Exception):
    """A schema the format refuses. `message` is the whole text a client is shown (the core
    answers 42201 with it), so a format words it as its reference registry does, e.g.
    Confluent's "Invalid schema of type AVRO, details: ..." for Avro."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


_SUPPORTED: dict[tuple[type, type], bool] = {}
_Capability = TypeVar("_Capability")


def supports(fmt: object, capability: type[_Capability]) -> TypeGuard[_Capability]:
    """`isinstance(fmt, capability)` for the optional capability protocols below, decided once
    per format class: a runtime-checkable Protocol's isinstance inspects every member on each
    call (tens of µs), and one registration asks several. Formats are one instance per class,
    so the class answers for its instances."""
    key = (type(fmt), capability)
    known = _SUPPORTED.get(key)
    if known is None:
        known = _SUPPORTED[key] = isinstance(fmt, capability)
    return known


@contextmanager
def refusals(own_error: type[Exception], template: str) -> Iterator[None]:
    """Around a format's work: its own refusals (`own_error`) become `SchemaParseError`s worded
    by `template` ("Invalid schema of type AVRO, details: {}"). The nesting bounds keep every
    walk far from Python's recursion limit; should one still reach it, the client gets a
    refusal of the same kind instead of a 500."""
    try:
        yield
    except own_error as exc:
        raise SchemaParseError(template.format(exc)) from None
    except RecursionError:
        raise SchemaParseError(template.format("Schema is nested too deeply to process")) from None


@dataclass(frozen=True, eq=False)
class ParsedSchema:
    """A schema after parsing. Immutable, so the core caches it per stored schema.

    `canonical` is the text the registry stores, hashes and serves; `native` is whatever
    the format needs to compare, render and re-parse it (for Avro, an `AvroNative`: the
    parsed schema model, the referenced type names and the dependencies it was parsed with).
    """

    schema_type: str
    canonical: str
    native: Any


@dataclass(frozen=True)
class Incompatibility:
    """One reason why a reader cannot read a writer's data.

    type: the reference's constant (Avro: READER_FIELD_MISSING_DEFAULT_VALUE, TYPE_MISMATCH, ...).
    location: a JSON pointer into the reader schema (`/fields/1/type/symbols`).
    message: the reference's detail text (Java's `getMessage()`, Confluent's `additionalInfo`).
    """

    type: str
    location: str
    message: str


@runtime_checkable
class SchemaFormat(Protocol):
    """What the core calls. `parse`, `normalize`, `can_read` and `formatted` raise
    `SchemaParseError` for a schema they cannot handle (a malformed text, or one nested too
    deeply to walk safely) and nothing else for any input; `describe` never raises."""

    schema_type: str  # "AVRO" | "JSON" | "PROTOBUF"
    file_extension: str  # a schema file's usual extension, without the dot ("avsc")

    def parse(self, text: str, dependencies: Mapping[str, str], *, strict: bool = True) -> ParsedSchema:
        """Parse `text`; `SchemaParseError` with a message naming the problem.

        `dependencies` maps each reference name to the referenced schema's text, every
        transitive dependency included, ordered so that a schema comes after the ones it
        depends on. `strict=True` is for schemas arriving through the API (full validation,
        e.g. Avro defaults); stored schemas are re-parsed with `strict=False`.
        """
        ...

    def normalize(self, schema: ParsedSchema) -> ParsedSchema:
        """The `normalize=true` form: equal for texts that differ only in spelling;
        `SchemaParseError` when the normalized form cannot be built."""
        ...

    def can_read(
        self, reader: ParsedSchema, writer: ParsedSchema, *, policy: str = STRICT_POLICY
    ) -> list[Incompatibility]:
        """Every reason `reader` cannot decode data written with `writer`; empty when it can.
        `policy` is the subject's `compatibilityPolicy` (`STRICT_POLICY` or `LENIENT_POLICY`).
        `SchemaParseError` when the pair is too deeply nested to compare."""
        ...

    def describe(self, incompatibility: Incompatibility, reader_label: str, writer_label: str) -> str:
        """One entry of Confluent's verbose message list for this incompatibility.

        `reader_label` names the reader side and `writer_label` the writer side of the check
        being reported ("new"/"old": BACKWARD reads old with new, FORWARD new with old).
        """
        ...

    def formatted(self, schema: ParsedSchema, fmt: str) -> str | None:
        """The text for a `format=` query value (Avro: "resolved"); None when the format
        does not know the value, in which case the canonical text is served.
        `SchemaParseError` when that text cannot be built (too deeply nested)."""
        ...


@runtime_checkable
class Explains(Protocol):
    """Optional: an incompatibility as a sentence for people (the web UI), where `describe`
    gives Confluent's entry (`{errorType:..., description:...}`), which clients parse and
    people should not have to. Without it pages show `describe`'s entry."""

    def explain(self, incompatibility: Incompatibility, reader_label: str, writer_label: str) -> str:
        """The entry's description alone, labels as `describe` takes them; never raises."""
        ...


@runtime_checkable
class Fingerprints(Protocol):
    """Optional: digests a reader can name a schema by, algorithm -> lowercase hex (Avro: the
    Parsing Canonical Form's crc64, md5 and sha256, for single-object encoding).

    `fingerprint_digits` names each algorithm the format computes and how many hexadecimal
    digits its digest has, so the core can refuse a malformed lookup without a query."""

    fingerprint_digits: Mapping[str, int]

    def fingerprints(self, schema: ParsedSchema) -> dict[str, str]: ...


@runtime_checkable
class RequestChecks(Protocol):
    """Optional: what a format refuses in a schema a request brings even where the core parses
    it leniently (a lookup, which must still find versions stored without the strict checks).
    JSON Schema: a regular expression that does not compile, which Confluent's loaders refuse
    wherever they read a schema."""

    def check_request(self, schema: ParsedSchema) -> None:
        """`SchemaParseError` for what no request may bring, however leniently parsed."""
        ...


@runtime_checkable
class SchemaEquality(Protocol):
    """Optional: a format whose canonical text keeps apart spellings of one schema (JSON Schema
    keeps each object's key order, as Confluent's does). When no version holds a lookup's text,
    Confluent's lookup compares the parsed schemas instead; the core asks this."""

    def same_schema(self, schema: ParsedSchema, stored_text: str) -> bool:
        """Whether `stored_text`, a canonical text this format produced, is `schema` spelled
        otherwise. Cheap when it is not: the core asks it of a subject's versions in turn."""
        ...


@runtime_checkable
class TopLevelFields(Protocol):
    """An optional capability: formats whose schemas have named top-level fields.

    The core's `validateFields` check needs to know whether a reserved name
    (`confluent:reserved` metadata) is used as a top-level field; a format without this
    method is treated as having none, so it can never conflict.
    """

    def field_names(self, schema: ParsedSchema) -> set[str]:
        """The names of the schema's top-level fields; empty when it has no fields."""
        ...


RECORD_ENTITY = "sr_record"
FIELD_ENTITY = "sr_field"


@dataclass(frozen=True)
class EntityTags:
    """Inline tags for one schema entity, as a tag-editing request names it.

    `entity_type` is Confluent's wire name (`RECORD_ENTITY` or `FIELD_ENTITY`); how `path`
    names a record or a field is up to each format.
    """

    path: str
    entity_type: str
    tags: tuple[str, ...]


@runtime_checkable
class SchemaTagEditor(Protocol):
    """An optional capability: formats that can carry tags inside the schema text itself.

    `POST /subjects/{s}/versions/{v}/tags` derives a new version with such tags added or
    removed; the core asks the format for the edited schema and registers it like any other.
    A format without this method gets 42201 when a request wants to edit its tags.
    """

    def modify_tags(
        self, schema: ParsedSchema, add: Sequence[EntityTags], remove: Sequence[EntityTags]
    ) -> ParsedSchema:
        """`schema` with `add` merged into and then `remove` taken out of each named entity's
        tags; `SchemaParseError` when an entity is not in the schema."""
        ...


# Node kinds: the only vocabulary the core reads from an outline. What a node is in its
# format's own words (record, enum, message, definition, ...) is its `type` label.
FIELD_NODE = "field"  # a record's field, a message's field, an object's property
TYPE_NODE = "type"  # a named type declared in the schema: Avro record/enum/fixed, Protobuf message/enum, a definition
GROUP_NODE = "group"  # structure holding fields without being one: a union's record branch


@dataclass(frozen=True)
class Declaration:
    """How the schema's own language writes an element, around its name: `before` it and
    `after` it (Protobuf: `repeated string` tags `= 4`; Avro: tags `array<string>`; JSON
    Schema: tags `array of string`). `spells` names the attributes it already shows (`type`,
    `default`, keys of `Node.detail`), so that a page does not repeat them beside it."""

    before: str = ""
    after: str = ""
    spells: tuple[str, ...] = ()


@dataclass(frozen=True, eq=False)
class Node:
    """One element of a schema's outline: what the browser shows as a tree, what the
    structural diff pairs up, and what the search index stores, all format-agnostic.

    `path` is dotted from the root (`amount`, `address.city`; the root's is ""); `name` the
    element's own name; `kind` one of FIELD_NODE, TYPE_NODE, GROUP_NODE (the root is a
    TYPE_NODE or, for a schema without a name, a GROUP_NODE); `type` the label the format
    writes for it (`long`, `union<null, Address>`, `array<string>`, `record`, `message`).
    `default` is the default as JSON text (None: no default; `"null"`: a null default);
    `doc` the documentation as written.

    How a diff pairs nodes is the format's call: `key` identifies the node among its
    siblings (Avro: the field name; Protobuf: the field number, so a rename stays one
    node; JSON Schema: the property name), `match_aliases` are other keys under which the
    node may appear in the other version (Avro: a reader field's aliases).
    `locations` are the `Incompatibility.location` prefixes the format's `can_read` reports
    for this node when its schema is the reader (or, for an element only the writer has,
    the writer): the core resolves each incompatibility to the node with the longest one.
    `named` is the full name of the type the node declares (a record defined inline at a
    field, a message, a definition), None when it declares none, and `named_kind` what
    that type is in the format's words (`record`, `enum`, `message`): the search index's types.

    `detail` holds the format's own facts worth comparing and showing, name -> JSON-able
    value (Avro: aliases, symbols, size, order; JSON Schema: required, enum, constraints
    such as minimum or pattern; Protobuf: number, label, oneof). A change of any of them is
    a `changed` row in a diff.

    `declared` is how the format's language writes the element (`Declaration`), for pages;
    unlike `type`, which diffs compare and the search index stores, it is free to change
    with how a page should read. None: the name and `type`.
    """

    path: str
    name: str
    kind: str
    type: str
    key: str
    default: str | None = None
    doc: str | None = None
    children: tuple[Node, ...] = ()
    detail: Mapping[str, Any] = field(default_factory=dict)
    match_aliases: tuple[str, ...] = ()
    locations: tuple[str, ...] = ()
    named: str | None = None
    named_kind: str = ""
    declared: Declaration | None = None

    @property
    def declaration(self) -> Declaration:
        return self.declared or Declaration(after=self.type, spells=("type",))

    def walk(self) -> Iterator[Node]:
        """This node and every node below it, depth first in declaration order (iterative:
        outlines of deeply nested schemas must not recurse)."""
        pending = [self]
        while pending:
            node = pending.pop()
            yield node
            pending.extend(reversed(node.children))


@runtime_checkable
class Outlines(Protocol):
    """An optional capability: formats that can describe a schema as a tree of `Node`s (the
    browser's field tree, the structural diff, the field and type search index). A format
    without it shows no tree and indexes nothing; its schemas are still diffed as text."""

    def outline(self, schema: ParsedSchema) -> Node:
        """The schema's root node; never raises for a schema `parse` accepted."""


@runtime_checkable
class FieldTags(Protocol):
    """An optional capability: formats whose fields carry inline tags (`confluent:tags` in
    Avro and JSON Schema, `(confluent.field_meta).tags` in Protobuf), by which data contract
    rules such as ENCRYPT pick the fields they apply to. Without it, no field shows tags."""

    def field_tags(self, schema: ParsedSchema) -> dict[str, tuple[str, ...]]:
        """Each tagged field of the schema's own text -> its tags, in document order; the
        field is named as Confluent's tag paths name it (a record's or message's full name
        and the field's; for JSON Schema the dotted property path)."""
        ...


@runtime_checkable
class TaggedEntities(Protocol):
    """An optional capability: every record and field of the schema's own text that carries
    inline tags, named as Confluent's `ParsedSchema.inlineTaggedEntities` names them (what
    `findTags` on the schema reads answers). Without it, a schema has no tagged entities."""

    def tagged_entities(self, schema: ParsedSchema) -> list[EntityTags]:
        """Records (`RECORD_ENTITY`) and fields (`FIELD_ENTITY`) with their tags, each once."""
        ...


class SchemaElement(NamedTuple):
    """One element of a schema as policy rules see it, whatever the format.

    `kind` is one of `record`, `field`, `enum`, `enumSymbol`, `fixed`, `array`, `map`,
    `union`, `primitive` (the vocabulary of the rules' params, so a rule never branches on
    the format). `location` points at the element itself in the document as sent (a JSON
    pointer for JSON-based formats); `path` is its dotted name (a named type's full name, a
    field's record name and field name; a type occurrence carries the path of the field
    that holds it). `type` is the format's notation of a field's type without logical types
    (`long`, `com.acme.Address`, `array<string>`, `union<null,string>`) and of a primitive's
    own name; `logical` the logical type's name. `depth` counts the records enclosing the
    element, itself included. `size` is a union's branch count, an enum's symbol count, a
    fixed's byte size. `noun` is what messages call the kind when the format has its own
    word for it (Protobuf: `message`, `enum value`, `oneof`, `package`); empty: the kind.
    `number` is a field's wire number where the format has one (Protobuf): the same number
    under another name is the same field, renamed. A `namespace` element stands for a
    namespace declared once for the whole document (Protobuf's package; its name is "" when
    there is none): rules check it there, once, instead of on each named type. A tuple, not
    a dataclass: a 200-field record has a thousand of them, built on every registration.
    """

    kind: str
    name: str
    location: str
    path: str
    namespace: str | None = None
    doc: str | None = None
    type: str = ""
    logical: str | None = None
    depth: int = 0
    default: Any = None
    has_default: bool = False
    aliases: tuple[str, ...] = ()
    size: int = 0
    record: str = ""  # a field's enclosing record, by full name
    noun: str = ""
    number: int | None = None


@runtime_checkable
class PolicyView(Protocol):
    """An optional capability: formats whose schemas policy rules can read.

    Rules ask for the elements of the types defined in the schema's own text (not those it
    pulls in through references), in document order, so that every rule reads one walk. A
    format without this method has its rules reported as skipped.

    Locations point into the text as sent, or with `as_stored` into the canonical text the
    registry stores (older versions are read that way, so that a rule says the same of a
    version whichever text registered it). The two differ only where the format prints a
    text of its own (Protobuf, whose stored text also keeps no comments)."""

    def elements(self, schema: ParsedSchema, *, as_stored: bool = False) -> Sequence[SchemaElement]:
        """The schema's elements, the root first; never raises for a parsed schema."""
        ...
