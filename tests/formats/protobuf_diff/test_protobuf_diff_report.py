"""What the registry shows for Protobuf incompatibilities: which differences fail a check,
and Confluent's verbose entry for each (reader and writer named by the caller's labels)."""
from __future__ import annotations

import re

import pytest

from app.formats.base import Incompatibility
from app.formats.protobuf.diff import COMPATIBLE_CHANGES, Difference, compare, describe, incompatible
from app.formats.protobuf.diff import changes as c

from .protobuf_diff_support import compile_native

ERROR_TYPE = re.compile(r"errorType:[\"']([A-Z_]+)")  # the conformance runner's pattern

ALL_TYPES = sorted(value for name, value in vars(c).items() if name.isupper() and isinstance(value, str))


def test_compatible_set_is_confluents() -> None:
    assert COMPATIBLE_CHANGES == {
        "MESSAGE_ADDED", "MESSAGE_MOVED", "ENUM_ADDED", "ENUM_REMOVED", "ENUM_CONST_ADDED", "ENUM_CONST_CHANGED",
        "ENUM_CONST_REMOVED", "FIELD_ADDED", "FIELD_REMOVED", "FIELD_NAME_CHANGED",
        "FIELD_STRING_OR_BYTES_LABEL_CHANGED", "ONEOF_ADDED", "ONEOF_REMOVED", "ONEOF_FIELD_ADDED",
        "ONEOF_FIELD_MOVED_TO_TOP_LEVEL",
    }
    assert len(ALL_TYPES) == 26


def test_incompatible_keeps_failing_differences_in_order() -> None:
    found = [
        Difference("FIELD_ADDED", "#/A/2"),
        Difference("FIELD_KIND_CHANGED", "#/A/1"),
        Difference("MESSAGE_MOVED", "#/A"),
        Difference("PACKAGE_CHANGED", "#/"),
    ]
    assert [(i.type, i.location) for i in incompatible(found)] == [
        ("FIELD_KIND_CHANGED", "#/A/1"),
        ("PACKAGE_CHANGED", "#/"),
    ]


DESCRIBED = [
    ("PACKAGE_CHANGED", "#/",
     "The package at '#/' in the new schema does not match the package in the old schema"),
    ("MESSAGE_REMOVED", "#/B", "The new schema is missing a MESSAGE type at path '#/B' in the old schema"),
    ("FIELD_KIND_CHANGED", "#/A/1",
     "The type of a field at path '#/A/1' in the new schema does not match the old schema"),
    ("FIELD_SCALAR_KIND_CHANGED", "#/A/1",
     "The kind of a SCALAR field at path '#/A/1' in the new schema does not match its kind in the old schema"),
    ("FIELD_NAMED_TYPE_CHANGED", "#/A/1",
     "The type of a MESSAGE field at path '#/A/1' in the new schema does not match its type in the old schema"),
    ("FIELD_NUMERIC_LABEL_CHANGED", "#/A/1",
     "The label for a NUMERIC field at path '#/A/1' in the new schema does not match its label in the old schema"),
    ("REQUIRED_FIELD_ADDED", "#/A/2",
     "A required field  at path '#/A/2' in the new schema is missing in the old schema"),
    ("REQUIRED_FIELD_REMOVED", "#/A/2",
     "The new schema is missing a required field at path: '#/A/2' in the old schema"),
    ("ONEOF_FIELD_REMOVED", "#/A/o/2", "The new schema is missing a oneof field at path '#/A/o/2' in the old schema"),
    ("MULTIPLE_FIELDS_MOVED_TO_ONEOF", "#/A/o",
     "Multiple fields in the oneof at path '#/A/o' in the new schema are outside a oneof in the old schema"),
    ("FIELD_MOVED_TO_EXISTING_ONEOF", "#/A/o",
     "A field in the oneof at path '#/A/o' in the new schema is outside an existing oneof in the old schema"),
]


@pytest.mark.parametrize(("change_type", "location", "sentence"), DESCRIBED, ids=[d[0] for d in DESCRIBED])
def test_describe_words_each_failing_change_as_confluent(change_type: str, location: str, sentence: str) -> None:
    """BACKWARD: the new schema reads, the old one wrote; the sentence names the reader first."""
    [failure] = incompatible([Difference(change_type, location)])
    entry = describe(failure, "new", "old")
    assert entry == f'{{errorType:"{change_type}", description:"{sentence}"}}'
    assert ERROR_TYPE.findall(entry) == [change_type]


def test_every_failing_type_has_a_sentence() -> None:
    failing = [t for t in ALL_TYPES if t not in COMPATIBLE_CHANGES]
    assert sorted(t for t, _, _ in DESCRIBED) == failing


def test_describe_puts_the_caller_labels_where_reader_and_writer_go() -> None:
    """FORWARD checks ask with the labels swapped: the old schema reads the new one's data."""
    failure = Incompatibility("MESSAGE_REMOVED", "#/B", "")
    assert describe(failure, "old", "new") == (
        "{errorType:\"MESSAGE_REMOVED\", description:\"The old schema is missing a MESSAGE type at path '#/B' "
        "in the new schema\"}"
    )


def test_a_compatible_change_is_described_without_a_sentence() -> None:
    entry = describe(Incompatibility("ENUM_ADDED", "#/E", ""), "new", "old")
    assert entry == '{errorType:"ENUM_ADDED", description:""}'


def test_incompatibility_message_names_the_sides_neutrally() -> None:
    writer = compile_native('syntax = "proto3"; message A { int32 x = 1; }')
    reader = compile_native('syntax = "proto3"; message A { string x = 1; }')
    [failure] = incompatible(compare(writer, reader))
    assert failure == Incompatibility(
        "FIELD_SCALAR_KIND_CHANGED",
        "#/A/1",
        "The kind of a SCALAR field at path '#/A/1' in the reader schema does not match its kind in the writer schema",
    )
