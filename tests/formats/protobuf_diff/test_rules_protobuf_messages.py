"""Messages, nesting, enums and the package: one row per rule, old schema = writer, new
schema = reader (a BACKWARD check of the new schema), every difference in Confluent's order."""
from __future__ import annotations

import pytest

from .protobuf_diff_support import differences

P3 = 'syntax = "proto3";\n'

CASES = [
    pytest.param(
        P3 + "message A { int32 x = 1; }",
        P3 + "message A { int32 x = 1; }",
        [],
        id="a schema read by itself: nothing",
    ),
    pytest.param(
        P3 + "package shop.v1; message A { int32 x = 1; }",
        P3 + "package shop.v2; message A { int32 x = 1; }",
        ["PACKAGE_CHANGED #/"],
        id="reader in another package than the writer",
    ),
    pytest.param(
        P3 + "message A { int32 x = 1; }",
        P3 + "package shop; message A { int32 x = 1; }",
        ["PACKAGE_CHANGED #/"],
        id="reader gains a package the writer had not",
    ),
    pytest.param(
        P3 + "message A { int32 x = 1; }",
        P3 + "message A { int32 x = 1; } message B { string s = 1; }",
        ["MESSAGE_ADDED #/B"],
        id="reader adds a message after the writer's",
    ),
    pytest.param(
        P3 + "message A { int32 x = 1; } message B { string s = 1; }",
        P3 + "message A { int32 x = 1; }",
        ["MESSAGE_REMOVED #/B"],
        id="reader drops a message of the writer",
    ),
    pytest.param(
        P3 + "message A { int32 x = 1; }",
        P3 + "message B { string s = 1; } message A { int32 x = 1; }",
        ["MESSAGE_MOVED #/A", "MESSAGE_ADDED #/B"],
        id="reader adds a message before the writer's, which moves it",
    ),
    pytest.param(
        P3 + "message A {} message B {}",
        P3 + "message B {} message A {}",
        ["MESSAGE_MOVED #/A", "MESSAGE_MOVED #/B"],
        id="reader swaps the writer's two messages",
    ),
    pytest.param(
        P3 + "message A {} enum E { E0 = 0; } message B {}",
        P3 + "enum E { E0 = 0; } message A {} message B {}",
        [],
        id="enums do not count in message indexes",
    ),
    pytest.param(
        P3 + "message A { message In { int32 x = 1; } }",
        P3 + "message A { message In { int32 x = 1; string y = 2; } }",
        ["FIELD_ADDED #/A/In/2"],
        id="reader adds a field to a nested message",
    ),
    pytest.param(
        P3 + "message A { message In { int32 x = 1; } }",
        P3 + "message A { message In { string x = 1; } }",
        ["FIELD_SCALAR_KIND_CHANGED #/A/In/1"],
        id="a nested message's field changes group",
    ),
    pytest.param(
        P3 + "message A { message In {} }",
        P3 + "message A { message Other {} message In {} }",
        ["MESSAGE_MOVED #/A/In", "MESSAGE_ADDED #/A/Other"],
        id="nested messages move and are added like top-level ones",
    ),
    pytest.param(
        P3 + "message A { message In {} }",
        P3 + "message A {} message In {}",
        ["MESSAGE_REMOVED #/A/In", "MESSAGE_ADDED #/In"],
        id="a message taken out of its parent is removed there and added at the top",
    ),
    pytest.param(
        P3 + "message A { map<string, int32> m = 1; }",
        P3 + "message A { map<string, int32> m = 1; map<int64, string> n = 2; }",
        ["FIELD_ADDED #/A/2"],
        id="map entries protoc generates are no messages of their own",
    ),
    pytest.param(
        P3 + "message A { map<string, int32> m = 1; message Z {} }",
        P3 + "message A { message Z {} map<string, int32> m = 1; }",
        [],
        id="map entries do not shift message indexes",
    ),
    pytest.param(
        P3 + "message A { E e = 1; } enum E { E0 = 0; }",
        P3 + "message A { E e = 1; } enum E { E0 = 0; E1 = 1; }",
        ["ENUM_CONST_ADDED #/E/1"],
        id="reader adds an enum value",
    ),
    pytest.param(
        P3 + "enum E { E0 = 0; E1 = 1; }",
        P3 + "enum E { E0 = 0; }",
        ["ENUM_CONST_REMOVED #/E/1"],
        id="reader drops an enum value",
    ),
    pytest.param(
        P3 + "enum E { E0 = 0; E1 = 1; }",
        P3 + "enum E { E0 = 0; ONE = 1; }",
        ["ENUM_CONST_CHANGED #/E/1"],
        id="reader renames an enum value",
    ),
    pytest.param(
        P3 + "enum E { option allow_alias = true; E0 = 0; E1 = 1; UNO = 1; }",
        P3 + "enum E { option allow_alias = true; E0 = 0; E1 = 1; UNO = 1; }",
        [],
        id="aliased enum values compare by number",
    ),
    pytest.param(
        P3 + "message A {}",
        P3 + "message A {} enum E { E0 = 0; }",
        ["ENUM_ADDED #/E"],
        id="reader adds an enum",
    ),
    pytest.param(
        P3 + "message A { enum Color { RED = 0; } }",
        P3 + "message A {}",
        ["ENUM_REMOVED #/A/Color"],
        id="reader drops a nested enum",
    ),
    pytest.param(
        P3 + "message Node { Node next = 1; int32 v = 2; }",
        P3 + "message Node { Node next = 1; int64 v = 2; string tag = 3; }",
        ["FIELD_ADDED #/Node/3"],
        id="a recursive message compares once",
    ),
]


@pytest.mark.parametrize(("writer", "reader", "expected"), CASES)
def test_message_rules(writer: str, reader: str, expected: list[str]) -> None:
    assert differences(writer, reader) == expected


def test_enum_values_come_in_java_hash_order() -> None:
    """Enum values are visited as Java's HashSet of numbers iterates (Confluent's reply order):
    by hash bucket, so 16 (bucket 0 of a 16-slot table) comes before 1."""
    writer = P3 + "enum E { Z = 0; }"
    reader = P3 + "enum E { Z = 0; A = 1; B = 16; }"
    assert differences(writer, reader) == ["ENUM_CONST_ADDED #/E/16", "ENUM_CONST_ADDED #/E/1"]


def test_messages_of_a_level_come_in_java_hash_order() -> None:
    """The messages of one level are visited in the order Java's HashSet of their names
    iterates (the order a JVM gives for these names), not in declaration or sorted order."""
    writer = P3 + "message Zeta {} message Alpha {}"
    reader = P3 + "message Zeta {} message Alpha {} message Mid {} message Beta {}"
    assert differences(writer, reader) == ["MESSAGE_ADDED #/Mid", "MESSAGE_ADDED #/Beta"]
