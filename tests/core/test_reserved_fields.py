"""The reserved-field rules and the order of the compatibility message list, without HTTP."""
from __future__ import annotations

import json
from typing import Any

from app.core.compatibility import levels as compatibility
from app.core.compatibility.levels import Previous, reserved_field_violations, reserved_fields
from app.core.types import CompatibilityLevel
from app.formats.avro import AvroFormat
from app.formats.base import ParsedSchema

AVRO = AvroFormat()


def parsed(fields: list[tuple[str, str]]) -> ParsedSchema:
    doc = {"type": "record", "name": "R", "fields": [{"name": n, "type": t} for n, t in fields]}
    return AVRO.parse(json.dumps(doc), {})


def reserving(value: str) -> dict[str, Any]:
    return {"properties": {"confluent:reserved": value}}


def test_reserved_list_is_split_on_commas_and_trimmed() -> None:
    assert reserved_fields(reserving(" a, b ,,c ")) == {"a", "b", "c"}
    assert reserved_fields(reserving("")) == set()
    assert reserved_fields({"properties": {"other": "x"}}) == set()
    assert reserved_fields(None) == set()


def test_avro_top_level_field_names() -> None:
    assert AVRO.field_names(parsed([("a", "int"), ("b", "string")])) == {"a", "b"}
    assert AVRO.field_names(AVRO.parse('"string"', {})) == set()
    assert AVRO.field_names(AVRO.parse('{"type":"enum","name":"E","symbols":["a"]}', {})) == set()


def test_violations_list_removals_then_conflicts_in_name_order() -> None:
    candidate = parsed([("b", "int"), ("a", "int")])
    messages = reserved_field_violations(AVRO, candidate, reserving("a,b"), reserving("z,a,y,b"))
    assert messages == [
        "The new schema has reserved field y removed from its metadata which is present in the old schema's metadata.",
        "The new schema has reserved field z removed from its metadata which is present in the old schema's metadata.",
        "The new schema has field that conflicts with the reserved field a.",
        "The new schema has field that conflicts with the reserved field b.",
    ]


def test_without_a_previous_version_only_conflicts_count() -> None:
    assert reserved_field_violations(AVRO, parsed([("a", "int")]), reserving("b"), None) == []


class FieldlessFormat:
    """A format that does not offer `field_names`: its schemas can never conflict."""

    schema_type = "AVRO"


def test_a_format_without_field_names_never_conflicts() -> None:
    candidate = parsed([("a", "int")])
    assert reserved_field_violations(FieldlessFormat(), candidate, reserving("a"), None) == []  # type: ignore[arg-type]


def test_a_different_schema_type_is_incompatible() -> None:
    other = ParsedSchema("OTHER", "x", None)
    history = [Previous(1, "OTHER", "x", other)]
    messages = compatibility.check({"AVRO": AVRO}, CompatibilityLevel.BACKWARD, parsed([("a", "int")]), history)
    assert messages == [
        "Incompatible because of different schema type",
        "{oldSchemaVersion: 1}",
        "{oldSchema: 'x'}",
        "{validateFields: 'false', compatibility: 'BACKWARD'}",
    ]


def test_reserved_violations_lead_and_one_trailer_closes() -> None:
    old = parsed([("a", "string")])
    history = [Previous(1, "AVRO", old.canonical, old)]
    messages = compatibility.check(
        {"AVRO": AVRO}, CompatibilityLevel.BACKWARD, parsed([("a", "int")]), history,
        validate_fields=True, reserved_violations=["reserved problem"],
    )
    assert messages[0] == "reserved problem"
    assert messages[1].startswith("{errorType:'TYPE_MISMATCH'")
    assert messages[-3:-1] == ["{oldSchemaVersion: 1}", f"{{oldSchema: '{old.canonical}'}}"]
    assert messages[-1] == "{validateFields: 'true', compatibility: 'BACKWARD'}"


def test_level_none_still_reports_reserved_violations() -> None:
    candidate = parsed([("a", "int")])
    assert compatibility.check({"AVRO": AVRO}, CompatibilityLevel.NONE, candidate, [], validate_fields=True) == []
    assert compatibility.check(
        {"AVRO": AVRO}, CompatibilityLevel.NONE, candidate, [], validate_fields=True, reserved_violations=["x"]
    ) == ["x", "{validateFields: 'true', compatibility: 'NONE'}"]
