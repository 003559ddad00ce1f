"""The verbose compatibility message for one incompatible change, worded as Confluent's.

Confluent's registry sends, per incompatible change,
`{errorType:"TYPE", description:"...'}` (the mismatched closing quote is theirs), where the
description's two `%s` are filled with the reader's and the writer's labels ("new"/"old").
Clients and people compare these strings, so the wording is kept to the letter.
"""
from __future__ import annotations

from .changes import PROPERTY_NAMES_ADDED, UNSUPPORTED_KEYWORD_CHANGED

_KEYWORD_ADDED_OR_REMOVED = frozenset("""
MAXIMUM_ADDED MINIMUM_ADDED EXCLUSIVE_MAXIMUM_ADDED EXCLUSIVE_MINIMUM_ADDED MULTIPLE_OF_ADDED
MAX_LENGTH_ADDED MIN_LENGTH_ADDED PATTERN_ADDED REQUIRED_ATTRIBUTE_ADDED MAX_PROPERTIES_ADDED
MIN_PROPERTIES_ADDED DEPENDENCY_ARRAY_ADDED DEPENDENCY_SCHEMA_ADDED MAX_ITEMS_ADDED
MIN_ITEMS_ADDED MAX_CONTAINS_ADDED MIN_CONTAINS_ADDED UNIQUE_ITEMS_ADDED ADDITIONAL_ITEMS_REMOVED
ADDITIONAL_PROPERTIES_REMOVED UNEVALUATED_PROPERTIES_REMOVED UNEVALUATED_ITEMS_REMOVED
""".split()) | {PROPERTY_NAMES_ADDED}
_VALUE_INCREASED = frozenset("""
MIN_LENGTH_INCREASED MINIMUM_INCREASED EXCLUSIVE_MINIMUM_INCREASED MIN_PROPERTIES_INCREASED
MULTIPLE_OF_EXPANDED MIN_ITEMS_INCREASED MIN_CONTAINS_INCREASED
""".split())
_VALUE_DECREASED = frozenset("""
MAX_LENGTH_DECREASED MAXIMUM_DECREASED MAX_ITEMS_DECREASED MAX_CONTAINS_DECREASED
EXCLUSIVE_MAXIMUM_DECREASED MAX_PROPERTIES_DECREASED
""".split())
_TYPE_NARROWED = frozenset("""
ADDITIONAL_ITEMS_NARROWED ENUM_ARRAY_NARROWED SUM_TYPE_NARROWED ADDITIONAL_PROPERTIES_NARROWED
UNEVALUATED_PROPERTIES_NARROWED UNEVALUATED_ITEMS_NARROWED
""".split())
_VALUE_CHANGED = frozenset(
    ["PATTERN_CHANGED", "MULTIPLE_OF_CHANGED", "DEPENDENCY_ARRAY_CHANGED", UNSUPPORTED_KEYWORD_CHANGED])
_TYPE_CHANGED = frozenset(
    "TYPE_CHANGED TYPE_NARROWED COMBINED_TYPE_CHANGED COMBINED_TYPE_SUBSCHEMAS_CHANGED ENUM_ARRAY_CHANGED".split())
_TYPE_EXTENDED = frozenset(
    "DEPENDENCY_ARRAY_EXTENDED PRODUCT_TYPE_EXTENDED SUM_TYPE_EXTENDED NOT_TYPE_EXTENDED".split())
_ADDED_TO_OPEN = frozenset("""
REQUIRED_PROPERTY_ADDED_TO_OPEN_CONTENT_MODEL REQUIRED_PROPERTY_WITH_DEFAULT_ADDED_TO_OPEN_CONTENT_MODEL
OPTIONAL_PROPERTY_ADDED_TO_OPEN_CONTENT_MODEL ITEM_ADDED_TO_OPEN_CONTENT_MODEL
""".split())


def _template(change: str, path: str) -> str:
    """Confluent's description with `%s` for the reader's label, then the writer's."""
    if change in _KEYWORD_ADDED_OR_REMOVED:
        return f"The keyword at path '{path}' in the %s schema is not present in the %s schema"
    if change in _VALUE_INCREASED:
        return f"The value at path '{path}' in the %s schema is more than its value in the %s schema"
    if change in _VALUE_DECREASED:
        return f"The value at path '{path}' in the %s schema is less than its value in the %s schema"
    if change in _VALUE_CHANGED:
        return f"The value at path '{path}' is different between the %s and %s schema"
    if change in _TYPE_NARROWED:
        return (f"An array or combined type at path '{path}' has fewer elements in the %s schema "
                "than the %s schema")
    if change in _TYPE_EXTENDED:
        return (f"An array or combined type at path '{path}' has more elements in the %s schema "
                "than the %s schema")
    if change in _TYPE_CHANGED:
        return f"A type at path '{path}' is different between the %s schema and the %s schema"
    return _property_or_item_template(change, path)


def _property_or_item_template(change: str, path: str) -> str:
    if change in _ADDED_TO_OPEN:
        return ("The %s schema has an open content model and has a property or item at "
                f"path '{path}' which is missing in the %s schema")
    if change == "REQUIRED_PROPERTY_ADDED_TO_UNOPEN_CONTENT_MODEL":
        return ("The %s schema has an unopen content model and has a required property "
                f"at path '{path}' which is missing in the %s schema")
    if change in ("PROPERTY_REMOVED_FROM_CLOSED_CONTENT_MODEL", "ITEM_REMOVED_FROM_CLOSED_CONTENT_MODEL"):
        return ("The %s has a closed content model and is missing a property or item present at "
                f"path '{path}' in the %s schema")
    if change in ("PROPERTY_REMOVED_NOT_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL",
                  "ITEM_REMOVED_NOT_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL"):
        return (f"A property or item is missing in the %s schema but present at path '{path}' "
                "in the %s schema and is not covered by its partially open content model")
    if change in ("PROPERTY_ADDED_NOT_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL",
                  "ITEM_ADDED_NOT_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL"):
        return (f"The %s schema has a property or item at path '{path}' which is "
                "missing in the %s schema and is not covered by its partially open content model")
    return ""


def verbose_entry(change: str, path: str, reader_label: str, writer_label: str) -> str:
    """The whole entry, labels filled in."""
    return f"{{errorType:\"{change}\", description:\"{description(change, path, reader_label, writer_label)}'}}"


def description(change: str, path: str, reader_label: str, writer_label: str) -> str:
    """The entry's sentence, labels filled in (a `%` in the path is escaped first, so a
    property named `%s` cannot take a label's place)."""
    template = _template(change, path.replace("%", "%%"))
    return template % (reader_label, writer_label) if template else ""
