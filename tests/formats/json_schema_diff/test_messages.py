"""The verbose entries, worded to the letter as Confluent's registry sends them for JSON Schema
(`{errorType:"TYPE", description:"...'}`, the labels filled in reader first)."""
from __future__ import annotations

import re

import pytest

from app.formats.base import Incompatibility
from app.formats.json_schema.diff import compare, describe, incompatible
from app.formats.json_schema.model import build_native

# The conformance runner's pattern for the change type in a verbose message.
ERROR_TYPE = re.compile(r"errorType:[\"']([A-Z_]+)")

ENTRIES = [
    ("MAX_LENGTH_DECREASED", "#/maxLength",
     "{errorType:\"MAX_LENGTH_DECREASED\", description:\"The value at path '#/maxLength' in the new schema is "
     "less than its value in the old schema'}"),
    ("MIN_LENGTH_INCREASED", "#/minLength",
     "{errorType:\"MIN_LENGTH_INCREASED\", description:\"The value at path '#/minLength' in the new schema is "
     "more than its value in the old schema'}"),
    ("PATTERN_ADDED", "#/pattern",
     "{errorType:\"PATTERN_ADDED\", description:\"The keyword at path '#/pattern' in the new schema is not "
     "present in the old schema'}"),
    ("PATTERN_CHANGED", "#/pattern",
     "{errorType:\"PATTERN_CHANGED\", description:\"The value at path '#/pattern' is different between the "
     "new and old schema'}"),
    ("ENUM_ARRAY_NARROWED", "#/enum",
     "{errorType:\"ENUM_ARRAY_NARROWED\", description:\"An array or combined type at path '#/enum' has fewer "
     "elements in the new schema than the old schema'}"),
    ("NOT_TYPE_EXTENDED", "#/not",
     "{errorType:\"NOT_TYPE_EXTENDED\", description:\"An array or combined type at path '#/not' has more "
     "elements in the new schema than the old schema'}"),
    ("TYPE_CHANGED", "#/properties/a",
     "{errorType:\"TYPE_CHANGED\", description:\"A type at path '#/properties/a' is different between the new "
     "schema and the old schema'}"),
    ("OPTIONAL_PROPERTY_ADDED_TO_OPEN_CONTENT_MODEL", "#/properties/b",
     "{errorType:\"OPTIONAL_PROPERTY_ADDED_TO_OPEN_CONTENT_MODEL\", description:\"The new schema has an open "
     "content model and has a property or item at path '#/properties/b' which is missing in the old schema'}"),
    ("REQUIRED_PROPERTY_ADDED_TO_UNOPEN_CONTENT_MODEL", "#/properties/b",
     "{errorType:\"REQUIRED_PROPERTY_ADDED_TO_UNOPEN_CONTENT_MODEL\", description:\"The new schema has an "
     "unopen content model and has a required property at path '#/properties/b' which is missing in the old "
     "schema'}"),
    ("PROPERTY_REMOVED_FROM_CLOSED_CONTENT_MODEL", "#/properties/b",
     "{errorType:\"PROPERTY_REMOVED_FROM_CLOSED_CONTENT_MODEL\", description:\"The new has a closed content "
     "model and is missing a property or item present at path '#/properties/b' in the old schema'}"),
    ("ITEM_REMOVED_NOT_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL", "#/items/2",
     "{errorType:\"ITEM_REMOVED_NOT_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL\", description:\"A property or "
     "item is missing in the new schema but present at path '#/items/2' in the old schema and is not covered "
     "by its partially open content model'}"),
    ("PROPERTY_ADDED_NOT_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL", "#/properties/c",
     "{errorType:\"PROPERTY_ADDED_NOT_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL\", description:\"The new schema "
     "has a property or item at path '#/properties/c' which is missing in the old schema and is not covered "
     "by its partially open content model'}"),
    ("REQUIRED_PROPERTY_ADDED_TO_OPEN_CONTENT_MODEL", "#/properties/x",
     "{errorType:\"REQUIRED_PROPERTY_ADDED_TO_OPEN_CONTENT_MODEL\", description:\"The new schema has an open "
     "content model and has a property or item at path '#/properties/x' which is missing in the old schema'}"),
    # Confluent has no wording for this one; its description is then empty.
    ("SCHEMA_ADDED", "#/items", "{errorType:\"SCHEMA_ADDED\", description:\"'}"),
]


@pytest.mark.parametrize(("change", "path", "expected"), ENTRIES, ids=[e[0] for e in ENTRIES])
def test_backward_entry_names_the_new_schema_as_reader(change: str, path: str, expected: str) -> None:
    entry = describe(Incompatibility(change, path, change), "new", "old")
    assert entry == expected
    assert ERROR_TYPE.findall(entry) == [change]


def test_forward_entry_swaps_the_labels() -> None:
    entry = describe(Incompatibility("MAX_LENGTH_DECREASED", "#/maxLength", "MAX_LENGTH_DECREASED"), "old", "new")
    assert "in the old schema is less than its value in the new schema" in entry


def test_a_percent_sign_in_a_property_name_is_kept_verbatim() -> None:
    entry = describe(Incompatibility("TYPE_CHANGED", "#/properties/100%s", "TYPE_CHANGED"), "new", "old")
    assert "'#/properties/100%s' is different between the new schema and the old schema" in entry


def test_the_fail_closed_change_reads_as_a_changed_value() -> None:
    entry = describe(Incompatibility("UNSUPPORTED_KEYWORD_CHANGED", "#/format", "UNSUPPORTED_KEYWORD_CHANGED"),
                     "new", "old")
    assert entry == ("{errorType:\"UNSUPPORTED_KEYWORD_CHANGED\", description:\"The value at path '#/format' "
                     "is different between the new and old schema'}")


def test_each_incompatibility_carries_its_pointer_and_type() -> None:
    writer = build_native({"properties": {"a": {"type": "string"}}}, {})
    reader = build_native({"properties": {"a": {"type": "string", "maxLength": 2}}}, {})
    assert incompatible(compare(writer, reader), "STRICT") == [
        Incompatibility("MAX_LENGTH_ADDED", "#/properties/a/maxLength", "MAX_LENGTH_ADDED")
    ]
