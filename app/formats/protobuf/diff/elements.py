"""Messages, oneofs and enums: the structural half of Confluent's Protobuf rules.

At each nesting level messages and enums pair up by name. A message present on one side only
is added or removed; a message on both is compared field by field and then level by level
below it, and one whose index among the level's messages changed is MESSAGE_MOVED (harmless:
a serialized message index always refers to the schema of its own id).

Inside a message fields pair up by number, wherever they sit (top level or any oneof), so
that moving a field in or out of a oneof, or renaming a oneof, cannot hide a change of its
type. Oneof membership is judged separately:

* a oneof whose members come from more than one original group (an original oneof, or each
  original top-level field on its own) makes previously independent fields exclusive:
  MULTIPLE_FIELDS_MOVED_TO_ONEOF when more than one came from the top level, else
  FIELD_MOVED_TO_EXISTING_ONEOF; new fields do not count (old data never set them);
* a oneof's name appearing or disappearing is ONEOF_ADDED / ONEOF_REMOVED;
* a member gone from the message while others of its oneof remain is ONEOF_FIELD_REMOVED;
  removing a whole oneof, members and all, is only ONEOF_REMOVED;
* a member leaving its oneof for the top level is ONEOF_FIELD_MOVED_TO_TOP_LEVEL.

Throughout, `original` is the writer's schema and `update` the reader's.
"""
from __future__ import annotations

from collections.abc import Sequence

from app.formats.protobuf.diff import changes as c
from app.formats.protobuf.diff import fields
from app.formats.protobuf.diff.java_order import union_order
from app.formats.protobuf.diff.symbols import REQUIRED, EnumView, MessageView
from app.formats.protobuf.diff.walk import Walk


def compare_level(
    walk: Walk,
    original_messages: Sequence[MessageView],
    original_enums: Sequence[EnumView],
    update_messages: Sequence[MessageView],
    update_enums: Sequence[EnumView],
) -> None:
    """Compare the messages, then the enums, of one nesting level (a file or a message)."""
    original_by_name = {m.name: (index, m) for index, m in enumerate(original_messages)}
    update_by_name = {m.name: (index, m) for index, m in enumerate(update_messages)}
    for name in union_order(original_by_name, update_by_name):
        with walk.at(name):
            if name not in update_by_name:
                walk.add(c.MESSAGE_REMOVED)
            elif name not in original_by_name:
                walk.add(c.MESSAGE_ADDED)
            else:
                original_index, original = original_by_name[name]
                update_index, update = update_by_name[name]
                compare_message(walk, original, update)
                if original_index != update_index:
                    walk.add(c.MESSAGE_MOVED)
    original_enum_by_name = {e.name: e for e in original_enums}
    update_enum_by_name = {e.name: e for e in update_enums}
    for name in union_order(original_enum_by_name, update_enum_by_name):
        with walk.at(name):
            if name not in update_enum_by_name:
                walk.add(c.ENUM_REMOVED)
            elif name not in original_enum_by_name:
                walk.add(c.ENUM_ADDED)
            else:
                compare_enum(walk, original_enum_by_name[name], update_enum_by_name[name])


def compare_enum(walk: Walk, original: EnumView, update: EnumView) -> None:
    """Values pair up by number; a new name for a number is ENUM_CONST_CHANGED."""
    for number in union_order(original.values, update.values):
        with walk.at(str(number)):
            if number not in update.values:
                walk.add(c.ENUM_CONST_REMOVED)
            elif number not in original.values:
                walk.add(c.ENUM_CONST_ADDED)
            elif original.values[number] != update.values[number]:
                walk.add(c.ENUM_CONST_CHANGED)


def compare_message(walk: Walk, original: MessageView, update: MessageView) -> None:
    """Compare two messages of the same name: oneofs, fields, then the nested level. A message
    already being compared further up (a recursive type) only has its nested level compared."""
    with walk.inside(original) as fresh:
        if fresh:
            _compare_oneofs(walk, original, update)
            _compare_fields(walk, original, update)
        compare_level(walk, original.messages, original.enums, update.messages, update.enums)


def _compare_oneofs(walk: Walk, original: MessageView, update: MessageView) -> None:
    for oneof, numbers in update.oneofs:
        origins: set[str] = set()
        from_top_level = 0
        for number in numbers:
            if number in original.oneof_of:
                origins.add("oneof:" + original.oneof_of[number])
            elif number in original.fields:
                origins.add(f"field:{number}")
                from_top_level += 1
        if len(origins) > 1:
            walk.add(
                c.MULTIPLE_FIELDS_MOVED_TO_ONEOF if from_top_level > 1 else c.FIELD_MOVED_TO_EXISTING_ONEOF,
                oneof,
            )
    original_oneofs = {name for name, _ in original.oneofs}
    update_oneofs = {name for name, _ in update.oneofs}
    for name in sorted(original_oneofs | update_oneofs, key=_java_string_order):
        if name not in update_oneofs:
            walk.add(c.ONEOF_REMOVED, name)
        elif name not in original_oneofs:
            walk.add(c.ONEOF_ADDED, name)


def _compare_fields(walk: Walk, original: MessageView, update: MessageView) -> None:
    # A oneof dropped by name with none of its members left anywhere was deleted whole: its
    # members' removal is not reported one by one.
    deleted_whole = {
        name
        for name, numbers in original.oneofs
        if name not in {n for n, _ in update.oneofs} and not any(n in update.fields for n in numbers)
    }
    for number in sorted(original.fields.keys() | update.fields.keys()):
        original_field = original.fields.get(number)
        update_field = update.fields.get(number)
        original_oneof = original.oneof_of.get(number)
        update_oneof = update.oneof_of.get(number)
        tag = str(number)
        if update_field is None:
            assert original_field is not None
            if original_oneof is None:
                walk.add(c.REQUIRED_FIELD_REMOVED if original_field.label == REQUIRED else c.FIELD_REMOVED, tag)
            elif original_oneof not in deleted_whole:
                walk.add(c.ONEOF_FIELD_REMOVED, original_oneof, tag)
        elif original_field is None:
            if update_oneof is not None:
                walk.add(c.ONEOF_FIELD_ADDED, update_oneof, tag)
            else:
                walk.add(c.REQUIRED_FIELD_ADDED if update_field.label == REQUIRED else c.FIELD_ADDED, tag)
        else:
            if original_oneof is not None and update_oneof is None:
                walk.add(c.ONEOF_FIELD_MOVED_TO_TOP_LEVEL, tag)
            if fields.plainly_unchanged(walk, original_field, update_field):
                continue
            # Reported where the field now is: inside its oneof, or at the top level.
            location = (update_oneof, tag) if update_oneof is not None else (tag,)
            with walk.at(*location):
                fields.compare_field(walk, original_field, update_field)


def _java_string_order(name: str) -> list[int]:
    """Java's `String.compareTo` order (UTF-16 code units), which a `TreeSet` iterates in."""
    encoded = name.encode("utf-16-be", "surrogatepass")
    return [encoded[i] << 8 | encoded[i + 1] for i in range(0, len(encoded), 2)]
