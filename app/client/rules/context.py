"""What an executor sees while a rule runs: the rule, the schema it belongs to, the mode, and
(for field rules) the field being visited.

The facts follow Confluent's `RuleContext`: a parameter is read from the rule's `params`, then
from the target schema's metadata properties; a field's tags are its inline tags
(`confluent:tags` in Avro and JSON Schema, `(confluent.field_meta).tags` in Protobuf) plus the
tags whose metadata path pattern matches its full name. Unlike Confluent's, the rule
configuration (a KMS secret, credentials) travels in the context, not in a process-wide
executor, so two serializers in one process may run the same executor with different secrets.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum
from typing import TYPE_CHECKING, Any, Callable, Mapping

from app.client.records import Rule, Schema
from app.client.rules.wildcards import wildcard_match

if TYPE_CHECKING:
    from app.client.rules.walkers import FieldWalker

# The modes a serde runs rules in; a rule's own mode may also be WRITEREAD or UPDOWN.
WRITE, READ, UPGRADE, DOWNGRADE = "WRITE", "READ", "UPGRADE", "DOWNGRADE"
WRITEREAD, UPDOWN = "WRITEREAD", "UPDOWN"
CONDITION, TRANSFORM = "CONDITION", "TRANSFORM"


class FieldType(str, Enum):
    RECORD = "RECORD"
    ENUM = "ENUM"
    ARRAY = "ARRAY"
    MAP = "MAP"
    COMBINED = "COMBINED"
    FIXED = "FIXED"
    STRING = "STRING"
    BYTES = "BYTES"
    INT = "INT"
    LONG = "LONG"
    FLOAT = "FLOAT"
    DOUBLE = "DOUBLE"
    BOOLEAN = "BOOLEAN"
    NULL = "NULL"


PRIMITIVES = frozenset({FieldType.INT, FieldType.LONG, FieldType.FLOAT, FieldType.DOUBLE, FieldType.BOOLEAN,
                        FieldType.NULL, FieldType.STRING, FieldType.BYTES})


@dataclass
class FieldContext:
    """The field a field rule is applied to; `full_name` is what metadata tag paths match
    (`ns.Person.ssn` in Avro, `$.ssn` in JSON Schema, `pkg.Person.ssn` in Protobuf)."""

    containing: Any
    full_name: str
    name: str
    field_type: FieldType
    tags: frozenset[str]

    def is_primitive(self) -> bool:
        return self.field_type in PRIMITIVES


FieldTransform = Callable[["RuleContext", FieldContext, Any], Any]


@dataclass
class RuleContext:
    """One rule about to run on one record."""

    subject: str
    version: int | None
    mode: str
    rule: Rule
    index: int
    rules: tuple[Rule, ...]
    source: Schema | None
    target: Schema
    config: Mapping[str, str] = field(repr=False)  # secrets: never in a repr
    walker: FieldWalker | None = None
    registry: Any = None  # the serde's RegistryClient, for executors that call the registry (ENCRYPT)
    config_digest: str = ""  # a digest of `config`, for caches keyed by it
    fields: list[FieldContext] = field(default_factory=list)

    def parameter(self, name: str) -> str | None:
        value = self.rule.param(name)
        if value is None and self.target.metadata is not None:
            value = self.target.metadata.property(name)
        return value

    def field_tags(self, full_name: str, inline: frozenset[str]) -> frozenset[str]:
        metadata = self.target.metadata
        if metadata is None or not metadata.tags:
            return inline
        found = set(inline)
        for pattern, tags in metadata.tags:
            if wildcard_match(full_name, pattern):
                found.update(tags)
        return frozenset(found)

    def enter_field(self, containing: Any, full_name: str, name: str, field_type: FieldType,
                    inline: frozenset[str]) -> FieldContext:
        entered = FieldContext(containing, full_name, name, field_type, self.field_tags(full_name, inline))
        self.fields.append(entered)
        return entered

    def exit_field(self) -> None:
        self.fields.pop()

    def current_field(self) -> FieldContext | None:
        return self.fields[-1] if self.fields else None

    def selects(self, field_ctx: FieldContext) -> bool:
        """Whether the rule applies to this field: a rule without tags applies to every field,
        one with tags to the fields sharing one of them."""
        return not self.rule.tags or not field_ctx.tags.isdisjoint(self.rule.tags)


