"""Turning differences into the registry's incompatibility records and Confluent's wording.

Confluent's verbose reply lists one entry per incompatible difference, shaped
`{errorType:"TYPE", description:"..."}`; the description names the two sides with the
labels of the check being run ("new"/"old"), the reader first wherever the sentence has
two. Types without a sentence of their own (none of them can fail a check) get an empty
description, as there.
"""
from __future__ import annotations

from collections.abc import Iterable

from app.formats.base import Incompatibility
from app.formats.protobuf.diff import changes as c
from app.formats.protobuf.diff.changes import Difference

# {path}: the difference's location; {r}: the reader's label; {w}: the writer's label.
_DESCRIPTIONS = {
    c.PACKAGE_CHANGED: "The package at '{path}' in the {r} schema does not match the package in the {w} schema",
    c.MESSAGE_REMOVED: "The {r} schema is missing a MESSAGE type at path '{path}' in the {w} schema",
    c.FIELD_KIND_CHANGED: "The type of a field at path '{path}' in the {r} schema does not match the {w} schema",
    c.FIELD_SCALAR_KIND_CHANGED: (
        "The kind of a SCALAR field at path '{path}' in the {r} schema does not match its kind in the {w} schema"
    ),
    c.FIELD_NAMED_TYPE_CHANGED: (
        "The type of a MESSAGE field at path '{path}' in the {r} schema does not match its type in the {w} schema"
    ),
    c.FIELD_NUMERIC_LABEL_CHANGED: (
        "The label for a NUMERIC field at path '{path}' in the {r} schema does not match its label in the {w} schema"
    ),
    # Confluent's sentence has the double space; clients matching on it see the same text.
    c.REQUIRED_FIELD_ADDED: "A required field  at path '{path}' in the {r} schema is missing in the {w} schema",
    c.REQUIRED_FIELD_REMOVED: "The {r} schema is missing a required field at path: '{path}' in the {w} schema",
    c.ONEOF_FIELD_REMOVED: "The {r} schema is missing a oneof field at path '{path}' in the {w} schema",
    c.ONEOF_FIELD_MOVED_TO_TOP_LEVEL: (
        "The oneof field at path '{path}' in the {r} schema was moved out of its oneof to a top-level field "
        "in the {w} schema"
    ),
    c.MULTIPLE_FIELDS_MOVED_TO_ONEOF: (
        "Multiple fields in the oneof at path '{path}' in the {r} schema are outside a oneof in the {w} schema"
    ),
    c.FIELD_MOVED_TO_EXISTING_ONEOF: (
        "A field in the oneof at path '{path}' in the {r} schema is outside an existing oneof in the {w} schema"
    ),
}


def description(change_type: str, location: str, reader_label: str, writer_label: str) -> str:
    """Confluent's sentence for a change at `location`, the reader side named `reader_label`."""
    template = _DESCRIPTIONS.get(change_type, "")
    return template.format(path=location, r=reader_label, w=writer_label)


def incompatible(differences: Iterable[Difference]) -> list[Incompatibility]:
    """The differences that fail a check, in their order, as the registry's records.

    `message` holds the sentence with the sides called "reader" and "writer": which schema is
    which is only known to the caller, which asks `describe` for the labelled form.
    """
    return [
        Incompatibility(
            type=difference.type,
            location=difference.location,
            message=description(difference.type, difference.location, "reader", "writer"),
        )
        for difference in differences
        if not difference.compatible
    ]


def describe(incompatibility: Incompatibility, reader_label: str, writer_label: str) -> str:
    """The entry of Confluent's verbose message list for `incompatibility`, the reader side
    named `reader_label` and the writer side `writer_label`."""
    sentence = description(incompatibility.type, incompatibility.location, reader_label, writer_label)
    return f'{{errorType:"{incompatibility.type}", description:"{sentence}"}}'
