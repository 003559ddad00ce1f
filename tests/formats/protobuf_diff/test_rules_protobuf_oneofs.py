"""Oneofs: added, removed, renamed, members added, dropped, moved in and out, merged. The old
schema is the writer, the new one the reader (a BACKWARD check of the new schema); the
expected list is every difference, in Confluent's order."""
from __future__ import annotations

import pytest

from .protobuf_diff_support import differences

P3 = 'syntax = "proto3";\n'


def message(body: str) -> str:
    return P3 + f"message M {{ {body} }}"


CASES = [
    pytest.param(message("int32 a = 1;"), message("oneof o { int32 a = 1; }"),
                 ["ONEOF_ADDED #/M/o"], id="reader wraps one top-level field in a new oneof"),
    pytest.param(message("int32 a = 1; int32 b = 2;"), message("oneof o { int32 a = 1; int32 b = 2; }"),
                 ["MULTIPLE_FIELDS_MOVED_TO_ONEOF #/M/o", "ONEOF_ADDED #/M/o"],
                 id="reader makes two independent fields exclusive"),
    pytest.param(message("int32 a = 1; oneof o { int32 b = 2; }"), message("oneof o { int32 a = 1; int32 b = 2; }"),
                 ["FIELD_MOVED_TO_EXISTING_ONEOF #/M/o"], id="reader moves a field into the writer's oneof"),
    pytest.param(message("oneof o { int32 a = 1; }"), message("oneof o { int32 a = 1; string s = 2; }"),
                 ["ONEOF_FIELD_ADDED #/M/o/2"], id="reader adds a member to a oneof"),
    pytest.param(message("int32 a = 1;"), message("int32 a = 1; oneof o { string s = 2; }"),
                 ["ONEOF_ADDED #/M/o", "ONEOF_FIELD_ADDED #/M/o/2"], id="reader adds a oneof with a new field"),
    pytest.param(message("int32 a = 1;"), message("oneof o { int32 a = 1; string s = 2; }"),
                 ["ONEOF_ADDED #/M/o", "ONEOF_FIELD_ADDED #/M/o/2"],
                 id="new fields do not count as moved into a oneof"),
    pytest.param(message("oneof o { int32 a = 1; string s = 2; }"), message("oneof o { int32 a = 1; }"),
                 ["ONEOF_FIELD_REMOVED #/M/o/2"], id="reader drops one member of a oneof"),
    pytest.param(message("int32 x = 9; oneof o { int32 a = 1; string s = 2; }"), message("int32 x = 9;"),
                 ["ONEOF_REMOVED #/M/o"], id="reader drops a whole oneof, members and all"),
    pytest.param(message("oneof o { int32 a = 1; string s = 2; }"), message("oneof p { int32 a = 1; string s = 2; }"),
                 ["ONEOF_REMOVED #/M/o", "ONEOF_ADDED #/M/p"], id="reader renames a oneof"),
    pytest.param(message("oneof o { int32 a = 1; string s = 2; }"), message("oneof p { int32 a = 1; }"),
                 ["ONEOF_REMOVED #/M/o", "ONEOF_ADDED #/M/p", "ONEOF_FIELD_REMOVED #/M/o/2"],
                 id="a member dropped while its oneof is renamed is located in the old oneof"),
    pytest.param(message("oneof o { int32 a = 1; string s = 2; }"), message("oneof p { int32 a = 1; bool s = 2; }"),
                 ["ONEOF_REMOVED #/M/o", "ONEOF_ADDED #/M/p", "FIELD_SCALAR_KIND_CHANGED #/M/p/2"],
                 id="a member's change is located in its new oneof"),
    pytest.param(message("oneof o { int32 a = 1; string s = 2; }"), message("int32 a = 1; oneof o { string s = 2; }"),
                 ["ONEOF_FIELD_MOVED_TO_TOP_LEVEL #/M/1"], id="reader takes a member out to the top level"),
    pytest.param(message("oneof o { int32 a = 1; }"), message("double a = 1;"),
                 ["ONEOF_REMOVED #/M/o", "ONEOF_FIELD_MOVED_TO_TOP_LEVEL #/M/1", "FIELD_SCALAR_KIND_CHANGED #/M/1"],
                 id="a member moved out and changed is located at the top level"),
    pytest.param(message("oneof o { int32 a = 1; } oneof p { int32 b = 2; }"),
                 message("oneof q { int32 a = 1; int32 b = 2; }"),
                 ["FIELD_MOVED_TO_EXISTING_ONEOF #/M/q", "ONEOF_REMOVED #/M/o", "ONEOF_REMOVED #/M/p",
                  "ONEOF_ADDED #/M/q"], id="reader merges two oneofs"),
    pytest.param(message("oneof o { int32 a = 1; int32 b = 2; }"),
                 message("oneof o { int32 a = 1; } oneof p { int32 b = 2; }"),
                 ["ONEOF_ADDED #/M/p"], id="reader splits a oneof: exclusivity only relaxes"),
    pytest.param(message("oneof zeta { int32 a = 1; }"), message("oneof Alpha { int32 a = 1; }"),
                 ["ONEOF_ADDED #/M/Alpha", "ONEOF_REMOVED #/M/zeta"],
                 id="oneofs are reported in Java string order (capitals first)"),
    pytest.param(message("optional int32 a = 1;"), message("int32 a = 1;"),
                 [], id="proto3 optional is no oneof, whatever the descriptor says"),
    pytest.param(message("optional int32 a = 1; optional int32 b = 2;"),
                 message("oneof o { int32 a = 1; int32 b = 2; }"),
                 ["MULTIPLE_FIELDS_MOVED_TO_ONEOF #/M/o", "ONEOF_ADDED #/M/o"],
                 id="proto3 optional fields count as top-level fields"),
]


@pytest.mark.parametrize(("writer", "reader", "expected"), CASES)
def test_oneof_rules(writer: str, reader: str, expected: list[str]) -> None:
    assert differences(writer, reader) == expected
