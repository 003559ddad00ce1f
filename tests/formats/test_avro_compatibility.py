"""The reader/writer checker: each rule of Java's SchemaCompatibility, with Java's output.

Every row is (reader, writer, expected incompatibilities as (type, location, message)); the
expectations are what Java Avro 1.12 `SchemaCompatibility.checkReaderWriterCompatibility`
returns for the same pair.
"""
from __future__ import annotations

import json
from typing import Any

import pytest

from app.formats.avro import AvroFormat
from app.formats.base import Incompatibility

AVRO = AvroFormat()


def rec(name: str, fields: list[dict[str, Any]], **extra: Any) -> dict[str, Any]:
    return {"type": "record", "name": name, "fields": fields, **extra}


def enum(name: str, symbols: list[str], **extra: Any) -> dict[str, Any]:
    return {"type": "enum", "name": name, "symbols": symbols, **extra}


def field(name: str, type_: Any, **extra: Any) -> dict[str, Any]:
    return {"name": name, "type": type_, **extra}


LINKED_LONG = rec("L", [field("v", "long"), field("next", ["null", "L"])])
LINKED_INT = rec("L", [field("v", "int"), field("next", ["null", "L"])])

CASES: list[tuple[str, Any, Any, list[tuple[str, str, str]]]] = [
    # promotions, and what is not one
    ("int_to_long", "long", "int", []),
    ("int_to_float", "float", "int", []),
    ("long_to_double", "double", "long", []),
    ("float_to_double", "double", "float", []),
    ("string_to_bytes", "bytes", "string", []),
    ("bytes_to_string", "string", "bytes", []),
    ("double_to_float", "float", "double", [("TYPE_MISMATCH", "/", "reader type: FLOAT not compatible with writer type: DOUBLE")]),
    ("long_to_int", "int", "long", [("TYPE_MISMATCH", "/", "reader type: INT not compatible with writer type: LONG")]),
    ("record_from_int", rec("R", []), "int", [("TYPE_MISMATCH", "/", "reader type: RECORD not compatible with writer type: INT")]),
    # logical types: the underlying type decides
    ("date_to_timestamp", {"type": "long", "logicalType": "timestamp-millis"}, {"type": "int", "logicalType": "date"}, []),
    ("timestamp_to_date", {"type": "int", "logicalType": "date"}, {"type": "long", "logicalType": "timestamp-millis"},
     [("TYPE_MISMATCH", "/", "reader type: INT not compatible with writer type: LONG")]),
    ("uuid_to_decimal", {"type": "bytes", "logicalType": "decimal", "precision": 4}, {"type": "string", "logicalType": "uuid"}, []),
    # records
    ("field_added_with_default", rec("R", [field("x", "int", default=1), field("z", ["null", "int"], default=None)]), rec("R", []), []),
    ("field_added_without_default", rec("R", [field("x", "int", default=1), field("y", "int")]), rec("R", []),
     [("READER_FIELD_MISSING_DEFAULT_VALUE", "/fields/1", "y")]),
    ("field_removed", rec("R", []), rec("R", [field("gone", "string")]), []),
    ("field_renamed_behind_alias", rec("R", [field("new", "int", aliases=["old"])]), rec("R", [field("old", "long")]),
     [("TYPE_MISMATCH", "/fields/0/type", "reader type: INT not compatible with writer type: LONG")]),
    ("missing_enum_field_with_enum_default_is_checked_against_the_record",
     rec("R", [field("e", enum("E", ["A", "B"], default="A"))]), rec("R", []),
     [("TYPE_MISMATCH", "/fields/0/type", "reader type: ENUM not compatible with writer type: RECORD")]),
    ("error_reads_record", {"type": "error", "name": "R", "fields": []}, rec("R", []), []),
    # names and namespaces
    ("namespaces_ignored", rec("R", [], namespace="x"), rec("R", [], namespace="y"), []),
    ("name_changed", rec("S", []), rec("R", [], namespace="y"), [("NAME_MISMATCH", "/name", "expected: y.R")]),
    ("relative_alias_in_reader_namespace", rec("S", [], namespace="x", aliases=["R"]), rec("R", [], namespace="x"), []),
    ("relative_alias_other_namespace", rec("S", [], namespace="x", aliases=["R"]), rec("R", [], namespace="y"),
     [("NAME_MISMATCH", "/name", "expected: y.R")]),
    ("qualified_alias", rec("S", [], namespace="x", aliases=["y.R"]), rec("R", [], namespace="y"), []),
    ("nested_fixed_alias_then_size",
     rec("R", [field("f", {"type": "fixed", "name": "G", "size": 3, "aliases": ["F"]})], namespace="n"),
     rec("R", [field("f", {"type": "fixed", "name": "F", "size": 4})], namespace="n"),
     [("FIXED_SIZE_MISMATCH", "/fields/0/type/size", "expected: 4, found: 3")]),
    # enums
    ("enum_symbols_missing_sorted", {"type": "map", "values": enum("E", ["A"])}, {"type": "map", "values": enum("E", ["A", "C", "B"])},
     [("MISSING_ENUM_SYMBOLS", "/values/symbols", "[B, C]")]),
    ("enum_default_absorbs_missing_symbols", enum("E", ["A"], default="A"), enum("E", ["A", "B"]), []),
    # unions on either side, and the empty union
    ("writer_union_into_reader_union",
     ["null", rec("A", [field("x", "int")])], ["null", rec("A", [field("x", "long")]), "string"],
     [("MISSING_UNION_BRANCH", "/1", "reader union lacking writer type: RECORD"),
      ("MISSING_UNION_BRANCH", "/2", "reader union lacking writer type: STRING")]),
    ("writer_union_into_plain_reader", rec("R", [field("age", "int")]), rec("R", [field("age", ["null", "int"], default=None)]),
     [("TYPE_MISMATCH", "/fields/0/type/0", "reader type: INT not compatible with writer type: NULL")]),
    ("reader_union_picks_promoted_branch", [rec("A", [field("x", "long")]), "bytes"], rec("A", [field("x", "int")]), []),
    ("reader_union_lacks_type", rec("R", [field("f", ["boolean"])]), rec("R", [field("f", "long")]),
     [("MISSING_UNION_BRANCH", "/fields/0/type", "reader union lacking writer type: LONG")]),
    ("string_reads_bytes_or_string", "string", ["bytes", "string"], []),
    ("union_inside_array", {"type": "array", "items": ["null", "int"]}, {"type": "array", "items": ["null", "int", "string"]},
     [("MISSING_UNION_BRANCH", "/items/2", "reader union lacking writer type: STRING")]),
    ("empty_writer_union", "int", [], []),
    ("empty_reader_union", [], ["int"], [("MISSING_UNION_BRANCH", "/0", "reader union lacking writer type: INT")]),
    # recursion, and a named pair met twice (Java lists the first result again; listed once here)
    ("recursive_promotion", LINKED_LONG, LINKED_INT, []),
    ("recursive_demotion", LINKED_INT, LINKED_LONG, [("TYPE_MISMATCH", "/fields/0/type", "reader type: INT not compatible with writer type: LONG")]),
    ("repeated_named_pair_is_listed_once_at_its_first_location",
     rec("R", [field("a", enum("E", ["A"])), field("b", "E")]), rec("R", [field("a", enum("E", ["A", "B"])), field("b", "E")]),
     [("MISSING_ENUM_SYMBOLS", "/fields/0/type/symbols", "[B]")]),
]


def _check(reader: Any, writer: Any) -> list[Incompatibility]:
    return AVRO.can_read(AVRO.parse(json.dumps(reader), {}), AVRO.parse(json.dumps(writer), {}))


@pytest.mark.parametrize("reader, writer, expected", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_checker_reports_javas_incompatibilities(reader: Any, writer: Any, expected: list[tuple[str, str, str]]) -> None:
    assert [(i.type, i.location, i.message) for i in _check(reader, writer)] == expected


@pytest.mark.parametrize(
    "reader_field",
    [field("a", "int", aliases=["b"]), field("a", "int", aliases=["a"])],
    ids=["alias_matches_another_field", "alias_repeats_own_name"],
)
def test_ambiguous_field_match_is_the_single_unexpected_exception(reader_field: dict[str, Any]) -> None:
    writer = rec("R", [field("a", "int"), field("b", "int")])
    found = _check(rec("R", [reader_field, field("c", "int")]), writer)
    assert found == [
        Incompatibility(
            "UNEXPECTED_EXCEPTION",
            "/fields/0",
            "Reader record field a type:INT pos:0 matches multiple fields in writer record schema "
            '{"type":"record","name":"R","fields":[{"name":"a","type":"int"},{"name":"b","type":"int"}]}',
        )
    ]
    assert AVRO.describe(found[0], "new", "old").startswith("Unexpected exception during compatibility check: Reader record field a")


DESCRIBE = [
    (Incompatibility("TYPE_MISMATCH", "/fields/0/type", "reader type: INT not compatible with writer type: LONG"), "new", "old",
     "{errorType:'TYPE_MISMATCH', description:'The type (path '/fields/0/type') of a field in the new schema does not match "
     "with the old schema', additionalInfo:'reader type: INT not compatible with writer type: LONG'}"),
    (Incompatibility("READER_FIELD_MISSING_DEFAULT_VALUE", "/fields/1", "y"), "old", "new",
     "{errorType:'READER_FIELD_MISSING_DEFAULT_VALUE', description:'The field 'y' at path '/fields/1' in the old schema has "
     "no default value and is missing in the new schema', additionalInfo:'y'}"),
    (Incompatibility("MISSING_ENUM_SYMBOLS", "/symbols", "[B, D]"), "new", "old",
     "{errorType:'MISSING_ENUM_SYMBOLS', description:'The new schema is missing enum symbols '[B, D]' at path '/symbols' in "
     "the old schema', additionalInfo:'[B, D]'}"),
    (Incompatibility("NAME_MISMATCH", "/name", "expected: y.R"), "new", "old",
     "{errorType:'NAME_MISMATCH', description:'The name of the schema has changed (path '/name')', additionalInfo:'expected: y.R'}"),
    (Incompatibility("FIXED_SIZE_MISMATCH", "/size", "expected: 4, found: 3"), "new", "old",
     "{errorType:'FIXED_SIZE_MISMATCH', description:'The size of FIXED type field at path '/size' in the new schema does not "
     "match with the old schema', additionalInfo:'expected: 4, found: 3'}"),
    (Incompatibility("MISSING_UNION_BRANCH", "/1", "reader union lacking writer type: STRING"), "old", "new",
     "{errorType:'MISSING_UNION_BRANCH', description:'The old schema is missing a type inside a union field at path '/1' in "
     "the new schema', additionalInfo:'reader union lacking writer type: STRING'}"),
]


@pytest.mark.parametrize("incompatibility, reader_label, writer_label, expected", DESCRIBE, ids=[d[0].type for d in DESCRIBE])
def test_describe_uses_confluents_difference_entry(
    incompatibility: Incompatibility, reader_label: str, writer_label: str, expected: str
) -> None:
    assert AVRO.describe(incompatibility, reader_label, writer_label) == expected
