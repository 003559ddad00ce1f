"""Fields: numbers, names, kinds, scalar groups, labels, proto2 required fields, maps and
named types. Each row: the old schema is the writer, the new one the reader (a BACKWARD
check of the new schema); the expected list is every difference, in Confluent's order."""
from __future__ import annotations

import itertools

import pytest

from app.formats.protobuf.diff import COMPATIBLE_CHANGES

from .protobuf_diff_support import differences

P2 = 'syntax = "proto2";\n'
P3 = 'syntax = "proto3";\n'


def one_field(syntax: str, field: str, extra: str = "") -> str:
    return f"{syntax}message A {{ {field} }} {extra}"


CASES = [
    pytest.param(one_field(P3, "int32 x = 1;"), one_field(P3, "int32 x = 1; string y = 2;"),
                 ["FIELD_ADDED #/A/2"], id="reader adds a field"),
    pytest.param(one_field(P3, "int32 x = 1; string y = 2;"), one_field(P3, "int32 x = 1;"),
                 ["FIELD_REMOVED #/A/2"], id="reader drops a field"),
    pytest.param(one_field(P3, "int32 x = 1;"), one_field(P3, "int32 renamed = 1;"),
                 ["FIELD_NAME_CHANGED #/A/1"], id="reader renames a field, same number"),
    pytest.param(one_field(P3, "int32 x = 1;"), one_field(P3, "int32 x = 2;"),
                 ["FIELD_REMOVED #/A/1", "FIELD_ADDED #/A/2"], id="reader renumbers a field"),
    pytest.param(one_field(P3, "int32 x = 1;"), one_field(P3, "sint32 y = 1;"),
                 ["FIELD_NAME_CHANGED #/A/1", "FIELD_SCALAR_KIND_CHANGED #/A/1"],
                 id="rename and group change are both reported"),
    # kinds: scalar (enums included), map, message
    pytest.param(one_field(P3, "int32 x = 1;", "message B {}"), one_field(P3, "B x = 1;", "message B {}"),
                 ["FIELD_KIND_CHANGED #/A/1"], id="reader turns a scalar into a message"),
    pytest.param(one_field(P3, "B x = 1;", "message B {}"), one_field(P3, "map<string, int32> x = 1;", "message B {}"),
                 ["FIELD_KIND_CHANGED #/A/1"], id="reader turns a message into a map"),
    pytest.param(one_field(P3, "map<string, int32> x = 1;"), one_field(P3, "repeated int32 x = 1;"),
                 ["FIELD_KIND_CHANGED #/A/1"], id="reader turns a map into a repeated scalar"),
    pytest.param(one_field(P3, "int32 x = 1;", "enum E { E0 = 0; }"), one_field(P3, "E x = 1;", "enum E { E0 = 0; }"),
                 [], id="an int32 read as an enum: both varints"),
    pytest.param(one_field(P3, "E x = 1;", "enum E { E0 = 0; }"), one_field(P3, "uint64 x = 1;", "enum E { E0 = 0; }"),
                 [], id="an enum read as uint64"),
    pytest.param(one_field(P3, "E x = 1;", "enum E { E0 = 0; }"), one_field(P3, "string x = 1;", "enum E { E0 = 0; }"),
                 ["FIELD_SCALAR_KIND_CHANGED #/A/1"], id="an enum read as a string"),
    pytest.param(one_field(P3, "E x = 1;", "enum E { E0 = 0; } enum F { F0 = 0; }"),
                 one_field(P3, "F x = 1;", "enum E { E0 = 0; } enum F { F0 = 0; }"),
                 [], id="one enum type read as another: only the varint counts, as in Confluent"),
    pytest.param(one_field(P3, "E x = 1;", "enum E { E0 = 0; }"), one_field(P3, "E x = 1;", "message E {}"),
                 ["FIELD_KIND_CHANGED #/A/1", "MESSAGE_ADDED #/E", "ENUM_REMOVED #/E"],
                 id="an enum type replaced by a message of the same name"),
    # labels: compared for scalars only, and only between two labels the text writes
    pytest.param(one_field(P3, "int32 x = 1;"), one_field(P3, "repeated int32 x = 1;"),
                 [], id="proto3 unlabelled scalar made repeated: no written label to compare"),
    pytest.param(one_field(P3, "optional int32 x = 1;"), one_field(P3, "repeated int32 x = 1;"),
                 ["FIELD_NUMERIC_LABEL_CHANGED #/A/1"], id="proto3 optional number made repeated"),
    pytest.param(one_field(P3, "optional bytes x = 1;"), one_field(P3, "repeated string x = 1;"),
                 ["FIELD_STRING_OR_BYTES_LABEL_CHANGED #/A/1"], id="proto3 optional bytes read as repeated string"),
    pytest.param(one_field(P3, "int32 x = 1;"), one_field(P3, "optional int32 x = 1;"),
                 [], id="proto3 field gains explicit presence"),
    pytest.param(one_field(P2, "optional int64 x = 1;"), one_field(P2, "repeated int64 x = 1;"),
                 ["FIELD_NUMERIC_LABEL_CHANGED #/A/1"], id="proto2 optional number made repeated"),
    pytest.param(one_field(P2, "optional E x = 1;", "enum E { E0 = 0; }"),
                 one_field(P2, "repeated E x = 1;", "enum E { E0 = 0; }"),
                 ["FIELD_NUMERIC_LABEL_CHANGED #/A/1"], id="proto2 enum made repeated counts as a number"),
    pytest.param(one_field(P2, "optional float x = 1;"), one_field(P2, "repeated double x = 1;"),
                 ["FIELD_SCALAR_KIND_CHANGED #/A/1"], id="group change hides the label change"),
    pytest.param(one_field(P3, "optional B x = 1;", "message B {}"), one_field(P3, "repeated B x = 1;", "message B {}"),
                 [], id="labels of message fields are not compared"),
    pytest.param(one_field(P2, "optional int32 x = 1;"), one_field(P3, "int32 x = 1;"),
                 [], id="proto2 optional read by proto3 unlabelled"),
    # proto2 required
    pytest.param(one_field(P2, "optional int32 x = 1;"), one_field(P2, "optional int32 x = 1; required string y = 2;"),
                 ["REQUIRED_FIELD_ADDED #/A/2"], id="reader adds a required field"),
    pytest.param(one_field(P2, "optional int32 x = 1; required string y = 2;"), one_field(P2, "optional int32 x = 1;"),
                 ["REQUIRED_FIELD_REMOVED #/A/2"], id="reader drops a required field"),
    pytest.param(one_field(P2, "required int32 x = 1;"), one_field(P2, "optional int32 x = 1;"),
                 ["FIELD_NUMERIC_LABEL_CHANGED #/A/1"], id="required number made optional"),
    pytest.param(one_field(P2, "required string x = 1;"), one_field(P2, "optional string x = 1;"),
                 ["FIELD_STRING_OR_BYTES_LABEL_CHANGED #/A/1"], id="required string made optional"),
    pytest.param(one_field(P2, "required B x = 1;", "message B {}"), one_field(P2, "optional B x = 1;", "message B {}"),
                 [], id="required message made optional"),
    # maps: key types, then value types
    pytest.param(one_field(P3, "map<string, int32> m = 1;"), one_field(P3, "map<string, int64> m = 1;"),
                 [], id="map values widened within their group"),
    pytest.param(one_field(P3, "map<string, int32> m = 1;"), one_field(P3, "map<string, string> m = 1;"),
                 ["FIELD_SCALAR_KIND_CHANGED #/A/1"], id="map values change group"),
    pytest.param(one_field(P3, "map<int32, string> m = 1;"), one_field(P3, "map<string, string> m = 1;"),
                 ["FIELD_SCALAR_KIND_CHANGED #/A/1"], id="map keys change group"),
    pytest.param(one_field(P3, "map<int32, int32> m = 1;"), one_field(P3, "map<string, double> m = 1;"),
                 ["FIELD_SCALAR_KIND_CHANGED #/A/1", "FIELD_SCALAR_KIND_CHANGED #/A/1"],
                 id="map keys and values both change group"),
    pytest.param(one_field(P3, "map<string, B> m = 1;", "message B {} message C {}"),
                 one_field(P3, "map<string, C> m = 1;", "message B {} message C {}"),
                 ["FIELD_NAMED_TYPE_CHANGED #/A/1"], id="map values of another message type"),
    pytest.param(one_field(P3, "map<string, int32> m = 1;", "message B {}"),
                 one_field(P3, "map<string, B> m = 1;", "message B {}"),
                 ["FIELD_KIND_CHANGED #/A/1"], id="map values change kind"),
    pytest.param(P3 + "message A { message MEntry { string key = 1; int32 value = 2; } repeated MEntry m = 1; }",
                 P3 + "message A { map<string, int32> m = 1; }",
                 ["FIELD_KIND_CHANGED #/A/1", "MESSAGE_REMOVED #/A/MEntry"],
                 id="a hand-written entry list read as a map"),
    # named types
    pytest.param(one_field(P3, "B x = 1;", "message B {} message C {}"),
                 one_field(P3, "C x = 1;", "message B {} message C {}"),
                 ["FIELD_NAMED_TYPE_CHANGED #/A/1"], id="reader reads a field as another message"),
    pytest.param(P3 + "message A { In x = 1; message In {} } message B { message In {} }",
                 P3 + "message A { B.In x = 1; message In {} } message B { message In {} }",
                 ["FIELD_NAMED_TYPE_CHANGED #/A/1"], id="same simple name, other parent"),
    pytest.param(P3 + "package p; message A { In x = 1; message In {} }",
                 P3 + "package p; message A { .p.A.In x = 1; message In {} }",
                 [], id="the same type however qualified"),
    pytest.param(one_field(P3, "B x = 1;", "message B { int32 v = 1; }"),
                 one_field(P3, "B x = 1;", "message B { string v = 1; }"),
                 ["FIELD_SCALAR_KIND_CHANGED #/B/1"],
                 id="a local message type is compared where it is declared, not through the field"),
    # proto2 groups are not fields in Confluent's model
    pytest.param(P2 + "message A { optional int32 x = 1; optional group G = 2 { optional int32 y = 3; } }",
                 P2 + "message A { optional int32 x = 1; }",
                 [], id="groups are not compared"),
]


@pytest.mark.parametrize(("writer", "reader", "expected"), CASES)
def test_field_rules(writer: str, reader: str, expected: list[str]) -> None:
    assert differences(writer, reader) == expected


# Wire-compatible groups in the protobuf language guide's sense, as Confluent draws them.
SCALAR_GROUPS = [
    {"int32", "int64", "uint32", "uint64", "bool"},
    {"sint32", "sint64"},
    {"string", "bytes"},
    {"fixed32", "sfixed32"},
    {"fixed64", "sfixed64"},
    {"float"},
    {"double"},
]
SCALARS = sorted(set().union(*SCALAR_GROUPS))


@pytest.mark.parametrize(("written", "read"), list(itertools.product(SCALARS, SCALARS)))
def test_scalar_read_as_another_scalar(written: str, read: str) -> None:
    """A writer's scalar read as another: fine within a wire-compatible group, an
    incompatible FIELD_SCALAR_KIND_CHANGED across groups."""
    same_group = any(written in group and read in group for group in SCALAR_GROUPS)
    found = differences(one_field(P3, f"{written} x = 1;"), one_field(P3, f"{read} x = 1;"))
    assert found == ([] if same_group else ["FIELD_SCALAR_KIND_CHANGED #/A/1"])
    assert ("FIELD_SCALAR_KIND_CHANGED" in COMPATIBLE_CHANGES) is False


EDITIONS = 'edition = "2023";\n'


@pytest.mark.parametrize(
    ("writer", "reader", "expected"),
    [
        pytest.param(one_field(EDITIONS, "int32 x = 1;"), one_field(EDITIONS, "repeated int32 x = 1;"), [],
                     id="editions write no label but repeated"),
        pytest.param(one_field(EDITIONS, "int32 x = 1;"),
                     one_field(EDITIONS, "int32 x = 1; int32 y = 2 [features.field_presence = LEGACY_REQUIRED];"),
                     ["FIELD_ADDED #/A/2"], id="an editions legacy-required field is no written required label"),
    ],
)
def test_editions_labels(writer: str, reader: str, expected: list[str]) -> None:
    assert differences(writer, reader) == expected
