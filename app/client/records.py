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


def _pairs(value: Any) -> tuple[tuple[str, str], ...]:
    """A JSON object of strings as sorted pairs, so that records holding it stay hashable."""
    if not isinstance(value, Mapping):
        return ()
    return tuple(sorted((str(key), str(item)) for key, item in value.items()))


def _strings(value: Any) -> tuple[str, ...]:
    return tuple(str(item) for item in value) if isinstance(value, (list, tuple)) else ()


@dataclass(frozen=True)
class Rule:
    """One rule of a schema's rule set, as Confluent's `Rule` entity spells it.

    `mode` is WRITE, READ, WRITEREAD, UPGRADE, DOWNGRADE or UPDOWN; `kind` CONDITION or
    TRANSFORM; `type` names the executor (CEL, CEL_FIELD, JSONATA, ENCRYPT, ...). `params`
    are kept as sorted pairs (a dict would make the schema unhashable; one may be given) and
    `param` reads one.
    """

    name: str
    kind: str = "TRANSFORM"
    mode: str = "WRITEREAD"
    type: str = ""
    tags: tuple[str, ...] = ()
    params: tuple[tuple[str, str], ...] = ()
    expr: str | None = None
    on_success: str | None = None
    on_failure: str | None = None
    disabled: bool = False
    doc: str | None = None

    def __post_init__(self) -> None:
        """`params` may be given as a dict and `tags` as a list, as one writes them."""
        if isinstance(self.params, Mapping):
            object.__setattr__(self, "params", _pairs(self.params))
        if not isinstance(self.tags, tuple):
            object.__setattr__(self, "tags", _strings(self.tags))

    def param(self, name: str) -> str | None:
        for key, value in self.params:
            if key == name:
                return value
        return None

    def to_json(self) -> dict[str, Any]:
        body: dict[str, Any] = {"name": self.name, "kind": self.kind, "mode": self.mode, "type": self.type}
        if self.doc is not None:
            body["doc"] = self.doc
        if self.tags:
            body["tags"] = list(self.tags)
        if self.params:
            body["params"] = dict(self.params)
        for key, value in (("expr", self.expr), ("onSuccess", self.on_success), ("onFailure", self.on_failure)):
            if value is not None:
                body[key] = value
        if self.disabled:
            body["disabled"] = True
        return body

    @classmethod
    def from_json(cls, body: Mapping[str, Any]) -> Rule:
        def optional(key: str) -> str | None:
            value = body.get(key)
            return None if value is None else str(value)

        return cls(str(body.get("name") or ""), str(body.get("kind") or "TRANSFORM").upper(),
                   str(body.get("mode") or "WRITEREAD").upper(), str(body.get("type") or ""),
                   _strings(body.get("tags")), _pairs(body.get("params")), optional("expr"),
                   optional("onSuccess"), optional("onFailure"), body.get("disabled") is True, optional("doc"))


@dataclass(frozen=True)
class RuleSet:
    """A schema's rules by phase: migrations (UPGRADE/DOWNGRADE), domain rules (WRITE/READ)
    and encoding rules (run on the encoded payload). `enable_at` says where they run
    (absent, ALL or CLIENT: in this client)."""

    migration_rules: tuple[Rule, ...] = ()
    domain_rules: tuple[Rule, ...] = ()
    encoding_rules: tuple[Rule, ...] = ()
    enable_at: str | None = None

    def __bool__(self) -> bool:
        return bool(self.migration_rules or self.domain_rules or self.encoding_rules)

    def to_json(self) -> dict[str, Any]:
        body: dict[str, Any] = {}
        for key, rules in (("migrationRules", self.migration_rules), ("domainRules", self.domain_rules),
                           ("encodingRules", self.encoding_rules)):
            if rules:
                body[key] = [rule.to_json() for rule in rules]
        if self.enable_at is not None:
            body["enableAt"] = self.enable_at
        return body

    @classmethod
    def from_json(cls, body: Any) -> RuleSet | None:
        if not isinstance(body, Mapping):
            return None

        def rules(key: str) -> tuple[Rule, ...]:
            items = body.get(key)
            return tuple(Rule.from_json(item) for item in items if isinstance(item, Mapping)) \
                if isinstance(items, list) else ()

        enable_at = body.get("enableAt")
        found = cls(rules("migrationRules"), rules("domainRules"), rules("encodingRules"),
                    str(enable_at) if enable_at is not None else None)
        return found if found or found.enable_at is not None else None


@dataclass(frozen=True)
class Metadata:
    """A schema's metadata: `tags` maps a field path pattern (`Person.ssn`, `**.ssn`) to tags,
    `properties` are sorted pairs (rule parameters fall back to them), `sensitive` names the
    properties to mask."""

    tags: tuple[tuple[str, tuple[str, ...]], ...] = ()
    properties: tuple[tuple[str, str], ...] = ()
    sensitive: tuple[str, ...] = ()

    def property(self, name: str) -> str | None:
        for key, value in self.properties:
            if key == name:
                return value
        return None

    def to_json(self) -> dict[str, Any]:
        body: dict[str, Any] = {}
        if self.tags:
            body["tags"] = {path: list(tags) for path, tags in self.tags}
        if self.properties:
            body["properties"] = dict(self.properties)
        if self.sensitive:
            body["sensitive"] = list(self.sensitive)
        return body

    @classmethod
    def from_json(cls, body: Any) -> Metadata | None:
        if not isinstance(body, Mapping):
            return None
        tags = body.get("tags")
        found = cls(tuple(sorted((str(path), _strings(items)) for path, items in tags.items()))
                    if isinstance(tags, Mapping) else (),
                    _pairs(body.get("properties")), _strings(body.get("sensitive")))
        return found if (found.tags or found.properties or found.sensitive) else None


@dataclass(frozen=True)
class Schema:
    """A schema as the registry stores it: its text, its type, its references and, when it
    has them, its metadata and rule set (a data contract's rules, run by `app.client.rules`)."""

    text: str
    schema_type: str = AVRO
    references: tuple[SchemaReference, ...] = ()
    metadata: Metadata | None = None
    rule_set: RuleSet | None = None

    def request_body(self) -> dict[str, Any]:
        body: dict[str, Any] = {"schema": self.text, "schemaType": self.schema_type}
        if self.references:
            body["references"] = [reference.to_json() for reference in self.references]
        if self.metadata is not None:
            body["metadata"] = self.metadata.to_json()
        if self.rule_set is not None:
            body["ruleSet"] = self.rule_set.to_json()
        return body

    @classmethod
    def from_json(cls, body: Mapping[str, Any]) -> Schema:
        """Reads both reply shapes: 7.x leaves `schemaType` out for AVRO, 8.x always sends it."""
        references = tuple(SchemaReference.from_json(item) for item in body.get("references") or ())
        return cls(str(body.get("schema", "")), str(body.get("schemaType") or AVRO), references,
                   Metadata.from_json(body.get("metadata")), RuleSet.from_json(body.get("ruleSet")))


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
