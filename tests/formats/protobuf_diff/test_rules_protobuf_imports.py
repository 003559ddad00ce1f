"""Types reached through imports: moved into or out of an import, an import that changed,
another package, well-known types, recursion through imports, and the walk's depth bound.
The old schema is the writer, the new one the reader (a BACKWARD check of the new schema)."""
from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

import pytest

from app.formats.base import SchemaParseError
from app.formats.protobuf.diff import MAX_COMPARE_DEPTH, MAX_COMPARED_MESSAGES, compare
from app.formats.protobuf.model import ProtobufNative

from .protobuf_diff_support import compile_native, differences

T = TypeVar("T")
P3 = 'syntax = "proto3";\n'
HOME_V1 = P3 + "package home; message Home { int32 id = 1; bool on = 2; }"
HOME_V2_STRING_ID = P3 + "package home; message Home { string id = 1; bool on = 2; }"
HOME_V2_MORE = P3 + "package home; message Home { int32 id = 1; bool on = 2; string name = 3; }"
HOME_OTHER_PACKAGE = P3 + "package house; message Home { int32 id = 1; bool on = 2; }"
USES_HOME = P3 + 'package home; import "home.proto"; message A { Home h = 1; }'
USES_QUALIFIED_HOME = P3 + 'package app; import "home.proto"; message A { home.Home h = 1; }'
USES_HOUSE = P3 + 'package app; import "home.proto"; message A { house.Home h = 1; }'

CASES = [
    pytest.param(P3 + "package home; message A { Home h = 1; } message Home { int32 id = 1; bool on = 2; }",
                 {}, USES_HOME, {"home.proto": HOME_V1},
                 ["MESSAGE_REMOVED #/Home"], id="reader moves a message into an import"),
    pytest.param(USES_HOME, {"home.proto": HOME_V1},
                 P3 + "package home; message A { Home h = 1; } message Home { int32 id = 1; bool on = 2; }", {},
                 ["MESSAGE_ADDED #/Home"], id="reader takes a message out of an import"),
    pytest.param(USES_HOME, {"home.proto": HOME_V1}, USES_HOME, {"home.proto": HOME_V2_STRING_ID},
                 ["FIELD_SCALAR_KIND_CHANGED #/Home/1", "FIELD_NAMED_TYPE_CHANGED #/A/1"],
                 id="reader's import changed incompatibly: found in the import and at the field"),
    pytest.param(USES_HOME, {"home.proto": HOME_V1}, USES_HOME, {"home.proto": HOME_V2_MORE},
                 ["FIELD_ADDED #/Home/3"], id="reader's import changed compatibly: no named-type change"),
    pytest.param(USES_QUALIFIED_HOME, {"home.proto": HOME_V1}, USES_HOUSE, {"home.proto": HOME_OTHER_PACKAGE},
                 [], id="an import's package renamed: types compare by local name"),
    pytest.param(USES_HOME, {"home.proto": HOME_V1}, USES_HOME, {"home.proto": HOME_V1},
                 [], id="the same import on both sides"),
    pytest.param(USES_QUALIFIED_HOME, {"home.proto": HOME_V1},
                 P3 + 'package app; import "other.proto"; message A { home.Home h = 1; }', {"other.proto": HOME_V1},
                 [], id="the same type imported under another import name"),
    pytest.param(USES_QUALIFIED_HOME, {"home.proto": HOME_V1},
                 P3 + 'package app; import "home.proto"; message A { home.Place h = 1; }',
                 {"home.proto": P3 + "package home; message Place { int32 id = 1; bool on = 2; }"},
                 ["FIELD_NAMED_TYPE_CHANGED #/A/1"], id="the imported type renamed"),
    pytest.param(P3 + 'import "google/protobuf/timestamp.proto"; message A { google.protobuf.Timestamp t = 1; }', {},
                 P3 + 'import "google/protobuf/timestamp.proto"; message A { google.protobuf.Timestamp t = 1; }', {},
                 [], id="a well-known type on both sides"),
    pytest.param(P3 + 'import "google/protobuf/timestamp.proto"; message A { google.protobuf.Timestamp t = 1; }', {},
                 P3 + 'import "google/protobuf/duration.proto"; message A { google.protobuf.Duration t = 1; }', {},
                 ["FIELD_NAMED_TYPE_CHANGED #/A/1"], id="one well-known type read as another"),
    pytest.param(P3 + 'import "confluent/type/decimal.proto"; message A { confluent.type.Decimal d = 1; }', {},
                 P3 + 'import "confluent/type/decimal.proto"; import "confluent/meta.proto";'
                 " message A { confluent.type.Decimal d = 1 [(confluent.field_meta).doc = \"price\"]; }", {},
                 [], id="Confluent's decimal and meta options"),
    pytest.param(P3 + 'import "nested.proto"; message A { outer.In x = 1; }',
                 {"nested.proto": P3 + "message outer { message In { int32 v = 1; } }"},
                 P3 + 'import "nested.proto"; message A { outer.In x = 1; }',
                 {"nested.proto": P3 + "message outer { message In { sint32 v = 1; } }"},
                 ["FIELD_SCALAR_KIND_CHANGED #/outer/In/1", "FIELD_NAMED_TYPE_CHANGED #/A/1"],
                 id="a nested imported type is located at its local name"),
    pytest.param(P3 + 'import "tree.proto"; message A { Tree t = 1; }',
                 {"tree.proto": P3 + "message Tree { repeated Tree kids = 1; int32 v = 2; }"},
                 P3 + 'import "tree.proto"; message A { Tree t = 1; }',
                 {"tree.proto": P3 + "message Tree { repeated Tree kids = 1; string v = 2; }"},
                 ["FIELD_SCALAR_KIND_CHANGED #/Tree/2", "FIELD_NAMED_TYPE_CHANGED #/A/1"],
                 id="a recursive imported type is compared once"),
    pytest.param(P3 + 'import "pair.proto"; message A { Ping p = 1; }',
                 {"pair.proto": P3 + "message Ping { Pong next = 1; } message Pong { Ping back = 1; int32 n = 2; }"},
                 P3 + 'import "pair.proto"; message A { Ping p = 1; }',
                 {"pair.proto": P3 + "message Ping { Pong next = 1; } message Pong { Ping back = 1; float n = 2; }"},
                 ["FIELD_SCALAR_KIND_CHANGED #/Pong/2", "FIELD_NAMED_TYPE_CHANGED #/Ping/1",
                  "FIELD_NAMED_TYPE_CHANGED #/A/1"],
                 id="mutually recursive imported types end"),
]


@pytest.mark.parametrize(("writer", "writer_imports", "reader", "reader_imports", "expected"), CASES)
def test_import_rules(writer: str, writer_imports: dict[str, str], reader: str, reader_imports: dict[str, str],
                      expected: list[str]) -> None:
    assert differences(writer, reader, writer_imports, reader_imports) == expected


def _chain(length: int, last_type: str) -> str:
    """An import whose messages each hold the next one, `length` deep."""
    links = " ".join(f"message L{i} {{ L{i + 1} next = 1; }}" for i in range(length - 1))
    return P3 + f"{links} message L{length - 1} {{ {last_type} v = 1; }}"


def _chain_pair(length: int) -> tuple[ProtobufNative, ProtobufNative]:
    root = P3 + 'import "chain.proto"; message Root { L0 first = 1; }'
    return (compile_native(root, {"chain.proto": _chain(length, "int32")}),
            compile_native(root, {"chain.proto": _chain(length, "string")}))


def _with_frames_taken(frames: int, call: Callable[[], T]) -> T:
    """Run `call` below `frames` extra Python frames, as a web stack would."""
    if frames == 0:
        return call()
    return _with_frames_taken(frames - 1, call)


def test_an_import_chain_as_deep_as_the_bound_compares_with_a_web_stack_beneath() -> None:
    writer, reader = _chain_pair(MAX_COMPARE_DEPTH - 1)  # Root plus the chain
    found = _with_frames_taken(200, lambda: compare(writer, reader))
    assert found[0].type == "FIELD_SCALAR_KIND_CHANGED"
    assert [d.type for d in found].count("FIELD_NAMED_TYPE_CHANGED") == MAX_COMPARE_DEPTH - 1


def test_an_import_chain_past_the_bound_is_refused_not_crashed() -> None:
    writer, reader = _chain_pair(MAX_COMPARE_DEPTH + 5)
    with pytest.raises(SchemaParseError, match="nest more than"):
        compare(writer, reader)


def _diamonds(levels: int, last_type: str) -> str:
    """An import whose messages each use the next one twice, `levels` deep."""
    links = " ".join(f"message T{i} {{ T{i + 1} a = 1; T{i + 1} b = 2; }}" for i in range(levels))
    return P3 + f"{links} message T{levels} {{ {last_type} v = 1; }}"


def _diamond_pair(levels: int) -> tuple[ProtobufNative, ProtobufNative]:
    root = P3 + 'import "dag.proto"; message Root { T0 first = 1; }'
    return (compile_native(root, {"dag.proto": _diamonds(levels, "int32")}),
            compile_native(root, {"dag.proto": _diamonds(levels, "string")}))


def test_a_change_reached_by_many_paths_is_reported_once_per_path() -> None:
    """As Confluent: every field into a changed import is followed anew, so a change deep in
    shared types is found once for each path that leads to it."""
    writer, reader = _diamond_pair(8)
    found = [f"{d.type} {d.location}" for d in compare(writer, reader)]
    assert found.count("FIELD_SCALAR_KIND_CHANGED #/T8/1") == 2**8
    assert found.count("FIELD_NAMED_TYPE_CHANGED #/T7/1") == 2**7
    assert found[-1] == "FIELD_NAMED_TYPE_CHANGED #/Root/1"


def test_an_exponential_pair_is_refused_once_past_the_budget() -> None:
    levels = 1
    while 2**levels <= MAX_COMPARED_MESSAGES:
        levels += 1
    writer, reader = _diamond_pair(levels)
    with pytest.raises(SchemaParseError, match="too intricate"):
        compare(writer, reader)
