"""Plain, immutable records: what the core hands back to the API layer, and what storage
hands to the core (storage imports this module and `app.core.errors`, nothing else of core).

The API renders them into Confluent's JSON shapes; nothing here knows about JSON keys
beyond the metadata/rule-set documents that are stored as given.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

# The default context's name, as stored and as printed in `GET /contexts`.
DEFAULT_CONTEXT = "."


@dataclass(frozen=True)
class SchemaReference:
    """A named pointer to another subject-version (`{"name", "subject", "version"}`).

    For Avro `name` is the full name of the referenced type; for Protobuf the import path.
    """

    name: str
    subject: str
    version: int

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "subject": self.subject, "version": self.version}


@dataclass(frozen=True)
class StoredSchema:
    """The immutable content behind one schema id. Cached in process by `key`.

    `key` is the storage row's own never-reused key; `id` is the public schema id inside
    `context` (a context is "." for the default one); `hash` the identity digest (hex MD5),
    which laid out as a UUID is the schema's GUID.
    """

    key: int
    context: str
    id: int
    hash: str
    schema_type: str
    schema: str
    references: tuple[SchemaReference, ...] = ()
    metadata: dict[str, Any] | None = None
    rule_set: dict[str, Any] | None = None

    @property
    def guid(self) -> str:
        d = self.hash
        return f"{d[:8]}-{d[8:12]}-{d[12:16]}-{d[16:20]}-{d[20:]}"


@dataclass(frozen=True)
class SubjectVersion:
    """A schema as held by one subject-version.

    `subject` is the qualified name (`:.ctx:name` outside the default context).
    `text` is the schema text to serve: the canonical text, or the `format=` rendering.
    """

    subject: str
    version: int
    schema: StoredSchema
    ts: int
    deleted: bool
    text: str
    # The API's rendered reply bodies, kept with the immutable record they render (the core's
    # read cache hands the same record to every request that asks the same question).
    renditions: dict[str, bytes] = field(default_factory=dict, compare=False, repr=False)

    @property
    def id(self) -> int:
        return self.schema.id


@dataclass(frozen=True)
class SchemaById:
    """Reply to `GET /schemas/ids/{id}` and `/schemas/guids/{guid}`.

    `holder` is the subject-version shown in the 8.x reply (None for the guid endpoint).
    """

    schema: StoredSchema
    text: str
    holder: SubjectVersion | None
    max_id: int | None = None
    renditions: dict[str, bytes] = field(default_factory=dict, compare=False, repr=False)


@dataclass(frozen=True)
class CompatibilityReport:
    is_compatible: bool
    messages: list[str] = field(default_factory=list)
