"""Value types shared by the core, the formats, storage and the API.

They are plain data: nothing here talks to a database or to HTTP.
"""
from __future__ import annotations

import enum
import json
from dataclasses import dataclass, field
from typing import Any

from app.core.errors import InvalidCompatibilityLevel, InvalidMode, InvalidSchema
# Defined with the records storage shares; most of the core imports them from here.
from app.core.records import DEFAULT_CONTEXT, SchemaReference  # noqa: F401
from app.formats.base import DEFAULT_SCHEMA_TYPE
GLOBAL_CONTEXT = ".__GLOBAL"
WILDCARD_CONTEXT = "*"


class CompatibilityLevel(str, enum.Enum):
    """A level is data: which directions to check and over which history.

    BACKWARD: the new schema is the reader of data written with an old one.
    FORWARD: an old schema is the reader of data written with the new one.
    TRANSITIVE: every live version instead of only the latest.
    """

    NONE = "NONE"
    BACKWARD = "BACKWARD"
    BACKWARD_TRANSITIVE = "BACKWARD_TRANSITIVE"
    FORWARD = "FORWARD"
    FORWARD_TRANSITIVE = "FORWARD_TRANSITIVE"
    FULL = "FULL"
    FULL_TRANSITIVE = "FULL_TRANSITIVE"

    @property
    def backward(self) -> bool:
        return self.value.startswith(("BACKWARD", "FULL"))

    @property
    def forward(self) -> bool:
        return self.value.startswith(("FORWARD", "FULL"))

    @property
    def transitive(self) -> bool:
        return self.value.endswith("_TRANSITIVE")

    @classmethod
    def parse(cls, value: object) -> CompatibilityLevel:
        """Case-insensitive, as Confluent upper-cases the value before checking it."""
        if isinstance(value, str):
            try:
                return cls(value.strip().upper())
            except ValueError:
                pass
        raise InvalidCompatibilityLevel(
            "Invalid compatibility level. Valid values are none, backward, forward, full, "
            "backward_transitive, forward_transitive, and full_transitive"
        )


class Mode(str, enum.Enum):
    READWRITE = "READWRITE"
    READONLY = "READONLY"
    READONLY_OVERRIDE = "READONLY_OVERRIDE"
    IMPORT = "IMPORT"

    @property
    def read_only(self) -> bool:
        return self in (Mode.READONLY, Mode.READONLY_OVERRIDE)

    @classmethod
    def parse(cls, value: object) -> Mode:
        if isinstance(value, str):
            try:
                return cls(value.strip().upper())
            except ValueError:
                pass
        raise InvalidMode("Invalid mode. Valid values are READWRITE, READONLY, READONLY_OVERRIDE, IMPORT")


@dataclass(frozen=True)
class QualifiedSubject:
    """A subject inside a context: `:.ctx:name` on the wire, `name` in the default context.

    `name == ""` addresses the context itself (its config and mode).
    """

    context: str
    name: str

    @classmethod
    def parse(cls, text: str) -> QualifiedSubject:
        if text.startswith(":") and text.count(":") >= 2:
            ctx, _, name = text[1:].partition(":")
            if ctx == WILDCARD_CONTEXT:
                return cls(WILDCARD_CONTEXT, name)
            if not ctx.startswith("."):
                ctx = "." + ctx
            return cls(ctx or DEFAULT_CONTEXT, name)
        return cls(DEFAULT_CONTEXT, text)

    @property
    def context_qualifier(self) -> str:
        """The context as Confluent prints it in messages: `:.ctx:`, empty for the default one."""
        return "" if self.context == DEFAULT_CONTEXT else f":{self.context}:"

    def qualified(self) -> str:
        """The form Confluent prints in replies: plain in the default context."""
        if self.context == DEFAULT_CONTEXT:
            return self.name
        return f":{self.context}:{self.name}"

    def __str__(self) -> str:  # pragma: no cover - convenience for messages
        return self.qualified()


@dataclass
class SchemaRequest:
    """A register / lookup / compatibility request body after JSON-level validation.

    `None` means "absent" for every field. References keep whatever the client sent;
    the core reports incomplete ones as 42201 "Invalid reference".
    """

    schema: str | None = None
    schema_type: str = DEFAULT_SCHEMA_TYPE
    references: list[dict[str, Any]] = field(default_factory=list)
    metadata: dict[str, Any] | None = None
    rule_set: dict[str, Any] | None = None
    id: int | None = None
    version: int | None = None
    # The body's keys as sent, for the "Empty schema" refusal (which shows SENT_KEYS of them):
    # the most common first mistake is a body without `schema`. None: not from a request body
    # (a web form), which gets Confluent's words alone.
    sent_keys: tuple[str, ...] | None = None

    def required_text(self) -> str:
        """The schema text; 42201 "Empty schema" when there is none, saying what the body must
        look like and which keys it had."""
        if self.schema is not None and self.schema.strip():
            return self.schema
        raise empty_schema(self.sent_keys)


SENT_KEYS, SENT_KEY_CHARS = 10, 40
ENVELOPE = '{"schema": "<the schema as a string>"}'
# Keys a schema document itself has at its top (Avro, JSON Schema): a body holding them and no
# `schema` is the schema posted raw.
_SCHEMA_DOCUMENT_KEYS = frozenset({"type", "fields", "name", "namespace", "properties", "$schema", "$id", "items"})


def empty_schema(sent_keys: tuple[str, ...] | None) -> InvalidSchema:
    """Confluent's "Empty schema" (42201), followed by the envelope the body must have and
    the keys it had: `{"shema": ...}` and a raw `.avsc` posted as the body both land here."""
    if sent_keys is None:
        return InvalidSchema("Empty schema")
    if not sent_keys:
        return InvalidSchema(f"Empty schema: the request body must be {ENVELOPE}")
    keys = ", ".join(json.dumps(key[:SENT_KEY_CHARS]) for key in sent_keys[:SENT_KEYS])
    more = f" and {len(sent_keys) - SENT_KEYS} more" if len(sent_keys) > SENT_KEYS else ""
    if "schema" in sent_keys:
        return InvalidSchema(f"Empty schema: \"schema\" is empty; the request body must be {ENVELOPE}")
    if _SCHEMA_DOCUMENT_KEYS & set(sent_keys):
        return InvalidSchema(f"Empty schema: the request body looks like a schema itself (keys {keys}{more}); "
                             f"send it as a string: {ENVELOPE}, with \"schemaType\" for JSON or PROTOBUF")
    return InvalidSchema(f"Empty schema: the request body has no \"schema\" (keys {keys}{more}); "
                         f"it must be {ENVELOPE}")
