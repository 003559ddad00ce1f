"""The kinds of change Confluent's Protobuf checker reports, and which of them are safe.

The names are Confluent's (`Difference.Type` in its protobuf diff package): clients and the
conformance corpora match on them, so they are kept letter for letter. A difference names the
change and where it happened, in Confluent's location syntax: `#/` then the path of message
names, oneof names and field or enum-value numbers (`#/Outer/Inner/3`, `#/Msg/my_oneof/2`).
"""
from __future__ import annotations

from dataclasses import dataclass

PACKAGE_CHANGED = "PACKAGE_CHANGED"
MESSAGE_ADDED = "MESSAGE_ADDED"
MESSAGE_REMOVED = "MESSAGE_REMOVED"
MESSAGE_MOVED = "MESSAGE_MOVED"
ENUM_ADDED = "ENUM_ADDED"
ENUM_REMOVED = "ENUM_REMOVED"
ENUM_CONST_ADDED = "ENUM_CONST_ADDED"
ENUM_CONST_CHANGED = "ENUM_CONST_CHANGED"
ENUM_CONST_REMOVED = "ENUM_CONST_REMOVED"
FIELD_ADDED = "FIELD_ADDED"
FIELD_REMOVED = "FIELD_REMOVED"
FIELD_NAME_CHANGED = "FIELD_NAME_CHANGED"
FIELD_KIND_CHANGED = "FIELD_KIND_CHANGED"
FIELD_SCALAR_KIND_CHANGED = "FIELD_SCALAR_KIND_CHANGED"
FIELD_NAMED_TYPE_CHANGED = "FIELD_NAMED_TYPE_CHANGED"
FIELD_NUMERIC_LABEL_CHANGED = "FIELD_NUMERIC_LABEL_CHANGED"
FIELD_STRING_OR_BYTES_LABEL_CHANGED = "FIELD_STRING_OR_BYTES_LABEL_CHANGED"
REQUIRED_FIELD_ADDED = "REQUIRED_FIELD_ADDED"
REQUIRED_FIELD_REMOVED = "REQUIRED_FIELD_REMOVED"
ONEOF_ADDED = "ONEOF_ADDED"
ONEOF_REMOVED = "ONEOF_REMOVED"
ONEOF_FIELD_ADDED = "ONEOF_FIELD_ADDED"
ONEOF_FIELD_REMOVED = "ONEOF_FIELD_REMOVED"
ONEOF_FIELD_MOVED_TO_TOP_LEVEL = "ONEOF_FIELD_MOVED_TO_TOP_LEVEL"
MULTIPLE_FIELDS_MOVED_TO_ONEOF = "MULTIPLE_FIELDS_MOVED_TO_ONEOF"
FIELD_MOVED_TO_EXISTING_ONEOF = "FIELD_MOVED_TO_EXISTING_ONEOF"

# Changes after which a reader with the update still decodes what the original wrote
# (Confluent's `SchemaDiff.COMPATIBLE_CHANGES`); every other change fails a check.
COMPATIBLE_CHANGES = frozenset(
    {
        MESSAGE_ADDED,
        MESSAGE_MOVED,
        ENUM_ADDED,
        ENUM_REMOVED,
        ENUM_CONST_ADDED,
        ENUM_CONST_CHANGED,
        ENUM_CONST_REMOVED,
        FIELD_ADDED,
        FIELD_REMOVED,
        FIELD_NAME_CHANGED,
        FIELD_STRING_OR_BYTES_LABEL_CHANGED,
        ONEOF_ADDED,
        ONEOF_REMOVED,
        ONEOF_FIELD_ADDED,
        ONEOF_FIELD_MOVED_TO_TOP_LEVEL,
    }
)


@dataclass(frozen=True)
class Difference:
    """One change from the original (writer) schema to the update (reader) schema.

    `type` is one of this module's constants, `location` Confluent's path string (`#/Msg/1`).
    """

    type: str
    location: str

    @property
    def compatible(self) -> bool:
        """Whether Confluent lets this change through a BACKWARD check."""
        return self.type in COMPATIBLE_CHANGES
