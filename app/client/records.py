"""The values the client hands out and takes in.

All are frozen (hashable) so they can be cache keys: a `Schema` is the key of the
(subject, schema) -> id cache, and a shared cached value must not be mutated by a caller.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping

AVRO = "AVRO"
JSON = "JSON"
PROTOBUF = "PROTOBUF"


@dataclass(frozen=True)
class SchemaReference:
    """A named dependency: `name` as the schema text refers to it, found at subject/version."""

    name: str
    subject: str
    version: int

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "subject": self.subject, "version": self.version}

    @classmethod
    def from_json(cls, body: Mapping[str, Any]) -> SchemaReference:
        return cls(str(body["name"]), str(body["subject"]), int(body["version"]))


@dataclass(frozen=True)
class Schema:
    """A schema as the registry stores it: its text, its type and its references."""

    text: str
    schema_type: str = AVRO
    references: tuple[SchemaReference, ...] = ()

    def request_body(self) -> dict[str, Any]:
        body: dict[str, Any] = {"schema": self.text, "schemaType": self.schema_type}
        if self.references:
            body["references"] = [reference.to_json() for reference in self.references]
        return body

    @classmethod
    def from_json(cls, body: Mapping[str, Any]) -> Schema:
        """Reads both reply shapes: 7.x leaves `schemaType` out for AVRO, 8.x always sends it."""
        references = tuple(SchemaReference.from_json(item) for item in body.get("references") or ())
        return cls(str(body.get("schema", "")), str(body.get("schemaType") or AVRO), references)


@dataclass(frozen=True)
class RegisteredSchema:
    """A schema together with where the registry keeps it.

    `subject` and `version` are None when the reply did not say (a 7.x register reply is
    just `{"id": N}`; a schema found by id or fingerprint is not tied to one subject).
    """

    schema_id: int
    schema: Schema
    subject: str | None = None
    version: int | None = None

    @classmethod
    def from_json(cls, body: Mapping[str, Any], schema: Schema | None = None) -> RegisteredSchema:
        """`schema` stands in when the reply carries no schema text (a 7.x register reply)."""
        parsed = Schema.from_json(body) if body.get("schema") or schema is None else schema
        version = body.get("version")
        subject = body.get("subject")
        return cls(int(body["id"]), parsed, str(subject) if subject else None,
                   int(version) if isinstance(version, int) and version > 0 else None)


@dataclass(frozen=True)
class CompatibilityResult:
    """The verdict of a compatibility check; `messages` only when asked for verbosely."""

    is_compatible: bool
    messages: tuple[str, ...] = ()


@dataclass(frozen=True)
class SubjectVersion:
    subject: str
    version: int


@dataclass(frozen=True)
class Config:
    """A config as `GET /config` answers it; `raw` keeps every key, including ones this
    client does not name (metadata, rule sets), so nothing the server sends is lost."""

    compatibility_level: str | None
    normalize: bool | None = None
    alias: str | None = None
    raw: Mapping[str, Any] = field(default_factory=dict, compare=False, hash=False)

    @classmethod
    def from_json(cls, body: Mapping[str, Any]) -> Config:
        level = body.get("compatibilityLevel", body.get("compatibility"))
        normalize = body.get("normalize")
        return cls(level, normalize if isinstance(normalize, bool) else None, body.get("alias"), dict(body))
