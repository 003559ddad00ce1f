"""Fields of the same number: their names, kinds, scalar groups, labels and named types.

A field's kind is SCALAR (scalars and enums), MAP or MESSAGE; a change of kind is
FIELD_KIND_CHANGED and ends the comparison. Scalars are grouped by wire compatibility as
Confluent groups them, and a change across groups is FIELD_SCALAR_KIND_CHANGED:

    int32 int64 uint32 uint64 bool (and every enum) | sint32 sint64 | string bytes |
    fixed32 sfixed32 | fixed64 sfixed64 | float | double

Within a group a change of label (only between two written labels) is
FIELD_STRING_OR_BYTES_LABEL_CHANGED for strings and bytes, FIELD_NUMERIC_LABEL_CHANGED for
the rest. Labels of message and map fields are not compared; maps compare their key types,
then their value types.

Message types compare by local name (the full name less its file's package, so a package
renamed in an import does not count). Two types of the schema's own file are left to the
comparison of their own level. Otherwise (a type moved into or out of an import, or an
import that changed) the two messages are compared here, their findings located at the
type's local name; if any of them fails a check, the field itself is
FIELD_NAMED_TYPE_CHANGED too.

Throughout, `original` is the writer's schema and `update` the reader's.
"""
from __future__ import annotations

from app.formats.protobuf.diff import changes as c
from app.formats.protobuf.diff import elements
from app.formats.protobuf.diff.symbols import FieldView, SchemaView, TypeInfo
from app.formats.protobuf.diff.walk import Walk

SCALAR = "SCALAR"
MAP = "MAP"
MESSAGE = "MESSAGE"

GENERAL_NUMBER = "GENERAL_NUMBER"
STRING_OR_BYTES = "STRING_OR_BYTES"
# Confluent's groups (its ScalarKind names); every enum is a GENERAL_NUMBER too.
_GROUPS = {
    GENERAL_NUMBER: ("int32", "int64", "uint32", "uint64", "bool"),
    "SIGNED_NUMBER": ("sint32", "sint64"),
    STRING_OR_BYTES: ("string", "bytes"),
    "FIXED32": ("fixed32", "sfixed32"),
    "FIXED64": ("fixed64", "sfixed64"),
    "FLOAT": ("float",),
    "DOUBLE": ("double",),
}
_SCALAR_GROUPS = {scalar: group for group, scalars in _GROUPS.items() for scalar in scalars}


def compare_field(walk: Walk, original: FieldView, update: FieldView) -> None:
    """Compare two fields of one number; the walk is at the field's location."""
    if original.name != update.name:
        walk.add(c.FIELD_NAME_CHANGED)
    _compare_typed(walk, original, update, original.label, update.label)


def plainly_unchanged(walk: Walk, original: FieldView, update: FieldView) -> bool:
    """True when two fields are written alike and their type cannot hide a change: a scalar,
    an enum on both sides (any enum is a varint), or a message of the schema's own file on
    both sides (compared where it is declared). Most fields of a new version are; this spares
    them the full comparison."""
    if original != update:
        return False
    if original.scalar is not None:
        return True
    original_info = _info(walk.original, original)
    update_info = _info(walk.update, update)
    return (
        original_info is not None
        and update_info is not None
        and original_info.own
        and update_info.own
        and original_info.message is not None
        and update_info.message is not None
    ) or (
        original_info is not None
        and update_info is not None
        and original_info.enum is not None
        and update_info.enum is not None
    )


def _compare_typed(
    walk: Walk, original: FieldView, update: FieldView, original_label: str | None, update_label: str | None
) -> None:
    original_info = _info(walk.original, original)
    update_info = _info(walk.update, update)
    original_kind = _kind(original, original_info)
    if original_kind != _kind(update, update_info):
        walk.add(c.FIELD_KIND_CHANGED)
    elif original_kind == SCALAR:
        _compare_scalars(walk, original, update, original_label, update_label)
    elif original_kind == MAP:
        assert original_info is not None and update_info is not None
        assert original_info.map_key and original_info.map_value and update_info.map_key and update_info.map_value
        _compare_typed(walk, original_info.map_key, update_info.map_key, None, None)
        _compare_typed(walk, original_info.map_value, update_info.map_value, None, None)
    else:
        _compare_message_types(walk, original, update, original_info, update_info)


def _info(side: SchemaView, field: FieldView) -> TypeInfo | None:
    return side.types.get(field.type_name) if field.type_name is not None else None


def _kind(field: FieldView, info: TypeInfo | None) -> str:
    if field.scalar is not None or (info is not None and info.enum is not None):
        return SCALAR
    if info is not None and info.map_key is not None:
        return MAP
    return MESSAGE  # also a type that cannot be resolved, as in Confluent


def _scalar_group(field: FieldView) -> str:
    if field.scalar is None:
        return GENERAL_NUMBER  # an enum: a varint on the wire
    return _SCALAR_GROUPS[field.scalar]


def _compare_scalars(
    walk: Walk,
    original: FieldView,
    update: FieldView,
    original_label: str | None,
    update_label: str | None,
) -> None:
    group = _scalar_group(original)
    if group != _scalar_group(update):
        walk.add(c.FIELD_SCALAR_KIND_CHANGED)
    elif original_label is not None and update_label is not None and original_label != update_label:
        walk.add(c.FIELD_STRING_OR_BYTES_LABEL_CHANGED if group == STRING_OR_BYTES else c.FIELD_NUMERIC_LABEL_CHANGED)


def _compare_message_types(
    walk: Walk,
    original: FieldView,
    update: FieldView,
    original_info: TypeInfo | None,
    update_info: TypeInfo | None,
) -> None:
    if original_info is None or update_info is None:
        # Unresolved on a side: only the names as written can be compared.
        if original.type_name != update.type_name:
            walk.add(c.FIELD_NAMED_TYPE_CHANGED)
        return
    if original_info.local_name != update_info.local_name:
        walk.add(c.FIELD_NAMED_TYPE_CHANGED)
        return
    if original_info.own and update_info.own:
        return  # compared where they are declared
    if not original_info.own and not update_info.own and walk.same_file(original_info.file, update_info.file):
        return  # one and the same import on both sides: nothing can differ
    assert original_info.message is not None and update_info.message is not None
    branch = walk.branch(original_info.local_name)
    elements.compare_message(branch, original_info.message, update_info.message)
    walk.differences.extend(branch.differences)
    if not all(difference.compatible for difference in branch.differences):
        walk.add(c.FIELD_NAMED_TYPE_CHANGED)
