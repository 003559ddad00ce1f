"""Confluent's Protobuf compatibility rules over parsed schemas (`ProtobufNative`).

`compare(original, update)` lists every difference Confluent's checker reports from the
original (writer) schema to the update (reader) schema, compatible ones included, each with
Confluent's change type and location; `incompatible` keeps those that fail a check, as the
registry's `Incompatibility` records; `describe` words one as Confluent's verbose reply does.
A BACKWARD check of a new schema against an old one is `compare(old, new)`.

The comparison is pure and reads only the descriptors: what the schemas import is compared
where a field's type leads into it, and each schema's view is built once and cached.

Modules: `symbols` (a schema as Confluent's text model sees it, from descriptors), `walk`
(location, findings, cycle guard and bounds), `elements` (messages, oneofs, enums), `fields`
(kinds, scalar groups, labels, maps, named types), `java_order` (the order Confluent visits
names and numbers in), `changes` (change types, the compatible set), `report` (wording).
"""
from __future__ import annotations

from app.formats.protobuf.diff import changes
from app.formats.protobuf.diff.changes import COMPATIBLE_CHANGES, Difference
from app.formats.protobuf.diff.elements import compare_level
from app.formats.protobuf.diff.report import describe, incompatible
from app.formats.protobuf.diff.symbols import view_of
from app.formats.protobuf.diff.walk import MAX_COMPARE_DEPTH, MAX_COMPARED_MESSAGES, Walk
from app.formats.protobuf.model import ProtobufNative


def compare(original: ProtobufNative, update: ProtobufNative) -> list[Difference]:
    """Every change from `original` (the writer's schema) to `update` (the reader's), in
    Confluent's order. `SchemaParseError` when the two nest too deeply to compare."""
    original_view = view_of(original)
    update_view = view_of(update)
    walk = Walk(original_view, update_view)
    if original_view.package != update_view.package:
        walk.add(changes.PACKAGE_CHANGED)
    compare_level(walk, original_view.messages, original_view.enums, update_view.messages, update_view.enums)
    return walk.differences


__all__ = [
    "COMPATIBLE_CHANGES",
    "MAX_COMPARED_MESSAGES",
    "MAX_COMPARE_DEPTH",
    "Difference",
    "compare",
    "describe",
    "incompatible",
]
