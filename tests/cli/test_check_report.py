"""Confluent's verbose message list taken apart the same way for the three formats, offline:
the entries as each format's checker spells them, and locations resolved to field names by
the formats' outlines."""
from __future__ import annotations

import json

from app.cli.check_report import CheckReport, Incompatibility, name_fields, parse_messages

PROTO_OLD = 'syntax = "proto3";\npackage ex;\n\nmessage Customer {\n  string name = 1;\n  int32 age = 2;\n}\n'
PROTO_NEW = 'syntax = "proto3";\npackage ex;\n\nmessage Customer {\n  string name = 1;\n  string age = 2;\n}\n'
TRAILER = ["{oldSchemaVersion: 4}", "{validateFields: 'false', compatibility: 'BACKWARD'}"]


def test_the_three_formats_entries_give_type_location_and_message():
    report = parse_messages([
        "{errorType:'READER_FIELD_MISSING_DEFAULT_VALUE', description:'The field 'email' at path '/fields/1' in "
        "the new schema has no default value and is missing in the old schema', additionalInfo:'email'}",
        '{errorType:"TYPE_CHANGED", description:"A type at path \'#/properties/a\' is different between the new '
        "schema and the old schema'}",
        '{errorType:"REQUIRED_FIELD_REMOVED", description:"The new schema is missing a required field at path: '
        "'#/M/1' in the old schema\"}",
        *TRAILER,
    ])
    assert [(p.type, p.location) for p in report.problems] == [
        ("READER_FIELD_MISSING_DEFAULT_VALUE", "/fields/1"), ("TYPE_CHANGED", "#/properties/a"),
        ("REQUIRED_FIELD_REMOVED", "#/M/1")]
    assert report.problems[1].message == ("A type at path '#/properties/a' is different between the new schema "
                                          "and the old schema")
    assert (report.old_version, report.level) == (4, "BACKWARD")


def test_the_quoted_old_schema_is_kept_aside_never_as_a_problem():
    report = parse_messages([f"{{oldSchema: '{PROTO_OLD}'}}", *TRAILER])
    assert report.problems == () and report.old_schema == PROTO_OLD


def test_a_protobuf_location_names_the_field_by_the_old_version_and_the_new_file():
    report = parse_messages([
        '{errorType:"FIELD_SCALAR_KIND_CHANGED", description:"The kind of a SCALAR field at path '
        "'#/Customer/2' in the new schema does not match its kind in the old schema\"}",
        f"{{oldSchema: '{PROTO_OLD}'}}", *TRAILER])
    (problem,) = name_fields(report, "PROTOBUF", PROTO_NEW).problems
    assert problem.field == "Customer.age"
    assert problem.line() == (
        "FIELD_SCALAR_KIND_CHANGED at #/Customer/2 (field Customer.age): The kind of a SCALAR field at path "
        "'#/Customer/2' in the new schema does not match its kind in the old schema")


def test_a_json_schema_location_names_the_property_even_one_the_new_file_removed():
    old = json.dumps({"type": "object", "properties": {"a": {"type": "string"}, "b": {"type": "integer"}},
                      "additionalProperties": False})
    new = json.dumps({"type": "object", "properties": {"a": {"type": "integer"}}, "additionalProperties": False})
    report = CheckReport((Incompatibility("TYPE_CHANGED", "#/properties/a", "m"),
                          Incompatibility("PROPERTY_REMOVED_FROM_CLOSED_CONTENT_MODEL", "#/properties/b", "m")),
                         1, "BACKWARD", old)
    assert [p.field for p in name_fields(report, "JSON", new).problems] == ["a", "b"]


def test_naming_leaves_the_report_alone_when_a_side_does_not_parse():
    report = CheckReport((Incompatibility("FIELD_KIND_CHANGED", "#/M/1", "m"),), 1, "BACKWARD",
                         'syntax = "proto3";\nimport "other.proto";\nmessage M { Other o = 1; }\n')
    assert name_fields(report, "PROTOBUF", PROTO_NEW) == report
