"""The stored text of a Protobuf schema: printed from protoc's descriptor, stable, compiling
back to the same descriptor; normalized as Confluent normalizes; served as a base64
`FileDescriptorProto` for `format=serialized`."""
from __future__ import annotations

import base64

import pytest
from google.protobuf.descriptor_pb2 import FileDescriptorProto

from app.formats.protobuf import ProtobufFormat

FORMAT = ProtobufFormat()

# One schema per feature the printer has to get right, each written untidily.
SCHEMAS = {
    "proto3 with nesting and short names": """syntax="proto3"; package shop.v1;
        message Order { message Line { string sku = 1; Status status = 2; } enum Status { NEW = 0; PAID = 1; }
        repeated Line lines = 1; Status status = 2; map<string, Line> by_sku = 3; optional string note = 4; }""",
    "oneof in the middle keeps its place": """syntax = "proto3";
        message M { int32 a = 1; oneof choice { string s = 2; M m = 3; } int32 z = 9; }""",
    "proto2 group, defaults, required, extension range and extend": r"""syntax = "proto2"; package p2;
        message P { required int32 r = 1 [default = -3]; optional string s = 2 [default = "a\"b\n"];
        optional bytes b = 3 [default = "\001\377"]; optional double d = 4 [default = inf];
        optional group Grp = 5 { optional int32 x = 6; } extensions 100 to 199, 300 to max; }
        extend P { optional int32 more = 100; repeated string tags = 101; }""",
    "edition 2023 with features and reserved identifiers": """edition = "2023"; package ed;
        option features.field_presence = IMPLICIT;
        message E { int32 a = 1 [features.field_presence = EXPLICIT]; E child = 2 [features.message_encoding = DELIMITED];
        reserved 5 to 7; reserved old_name; }""",
    "options of every kind": """syntax = "proto3"; package o;
        option java_package = "com.example.o"; option java_multiple_files = true; option optimize_for = CODE_SIZE;
        message M { option deprecated = true; repeated int32 v = 1 [packed = false, json_name = "values"];
        reserved 3, 10 to 12; reserved "gone"; }
        enum E { option allow_alias = true; A = 0; B = 0 [deprecated = true]; C = 2; }""",
    "services and streaming": """syntax = "proto3"; package svc; import "google/protobuf/empty.proto";
        message Req { string q = 1; }
        service Search { rpc Find (Req) returns (stream Req); rpc Ping (google.protobuf.Empty) returns (google.protobuf.Empty) { option deprecated = true; } }""",
    "confluent meta options and well-known types": """syntax = "proto3"; package money;
        import "confluent/meta.proto"; import "confluent/type/decimal.proto"; import "google/protobuf/timestamp.proto";
        option (confluent.file_meta).doc = "file doc";
        message Price { option (confluent.message_meta) = { doc: "a price", tags: ["PII"] };
        confluent.type.Decimal amount = 1 [(confluent.field_meta) = { params: [{key: "precision", value: "8"}, {key: "scale", value: "2"}] }];
        google.protobuf.Timestamp at = 2; string label = 3 [(confluent.field_meta).doc = "caf\\303\\251"]; }""",
    "a nested name that shadows an outer one": """syntax = "proto3"; package a;
        message Status { int32 code = 1; }
        message Outer { message Status { string text = 1; } Status inner = 1; .a.Status outer = 2; }""",
    "custom options declared in the schema itself": """syntax = "proto2"; package c;
        import "google/protobuf/descriptor.proto";
        extend google.protobuf.FieldOptions { optional string label = 50001; optional int32 weight = 50002; }
        message M { optional string s = 1 [(weight) = 3, (label) = "x"]; }""",
    "repeated and aggregate custom options with an extension inside": """syntax = "proto2"; package r;
        import "google/protobuf/descriptor.proto";
        extend google.protobuf.MessageOptions { repeated int32 rep = 50010; optional Sub sub = 50011; }
        message Sub { optional string a = 1; repeated int32 n = 2; extensions 100 to 200; }
        extend Sub { optional string in_sub = 100; }
        message M { option (rep) = 1; option (rep) = 2; option (sub) = { a: "x" n: [1, 2] [r.in_sub]: "y" }; optional int32 f = 1; }""",
    "custom options on a method and a oneof": """syntax = "proto3"; package m; import "google/protobuf/descriptor.proto";
        extend google.protobuf.MethodOptions { string http = 50020; }
        extend google.protobuf.OneofOptions { bool strict = 50021; }
        message Q { oneof o { option (strict) = true; string s = 1; int32 i = 2; } }
        service S { rpc Get (Q) returns (Q) { option (http) = "GET /q"; } }""",
    "a group declared by an extension inside a message": """syntax = "proto2"; package g;
        message Base { extensions 10 to 20; }
        message Holder { extend Base { optional group Ext = 10 { optional int32 v = 1; } optional int32 plain = 11; } }""",
    "a proto2 group inside a oneof": """syntax = "proto2";
        message O { oneof choice { group G = 1 { optional int32 x = 2; } string s = 3; } }""",
    "enum reserved ranges and names, negative values": """syntax = "proto3";
        enum E { reserved 2, 5 to 9, 40 to max; reserved "OLD", "GONE"; A = 0; C = 1; B = -1; }""",
    "defaults that need escaping": r"""syntax = "proto2";
        message D { optional float f = 1 [default = -inf]; optional double d = 2 [default = nan];
        optional int64 big = 3 [default = -9223372036854775808]; optional uint64 u = 4 [default = 18446744073709551615];
        optional bytes b = 5 [default = "\x00\xffa'\"\\"]; optional string s = 6 [default = "h\303\251llo \"w\" \t"]; }""",
    "an enum value that shadows a type": """syntax = "proto3"; package sh;
        message Foo { int32 x = 1; } message Outer { enum Kind { Foo = 0; } Kind k = 1; sh.Foo f = 2; }""",
    "edition 2024": """edition = "2024"; package e24; message M { int32 a = 1; string s = 2; }""",
    "explicit json names and custom options out of number order": """syntax = "proto3"; package j;
        import "google/protobuf/descriptor.proto";
        extend google.protobuf.FieldOptions { string b_opt = 50002; string a_opt = 50001; }
        message J { int32 foo_bar = 1 [json_name = "fooBar", (b_opt) = "b", (a_opt) = "a"]; int32 baz = 2 [json_name = "BAZ"]; }""",
}


@pytest.fixture(params=list(SCHEMAS), ids=list(SCHEMAS))
def parsed(request: pytest.FixtureRequest):
    return FORMAT.parse(SCHEMAS[request.param], {})


# Re-parses go through a fresh format: the one that printed a text remembers its parse.
def test_the_canonical_text_is_a_fixed_point(parsed) -> None:
    assert ProtobufFormat().parse(parsed.canonical, {}).canonical == parsed.canonical


def test_the_canonical_text_compiles_to_the_same_descriptor(parsed) -> None:
    assert ProtobufFormat().parse(parsed.canonical, {}).native.file == parsed.native.file


def test_normalizing_is_idempotent_and_stored_normalized_text_parses_to_itself(parsed) -> None:
    normalized = FORMAT.normalize(parsed)
    assert ProtobufFormat().normalize(normalized).canonical == normalized.canonical
    assert ProtobufFormat().parse(normalized.canonical, {}, strict=False).canonical == normalized.canonical


def test_the_serialized_form_is_the_compiled_descriptor(parsed) -> None:
    served = FileDescriptorProto.FromString(base64.b64decode(FORMAT.formatted(parsed, "serialized")))
    assert served == parsed.native.file


def test_short_names_are_printed_where_they_resolve_to_the_same_type() -> None:
    text = FORMAT.parse(SCHEMAS["proto3 with nesting and short names"], {}).canonical
    assert "  repeated Line lines = 1;\n" in text and "  map<string, Line> by_sku = 3;\n" in text
    assert "    Status status = 2;\n" in text


def test_a_shadowed_outer_type_keeps_its_qualification() -> None:
    text = FORMAT.parse(SCHEMAS["a nested name that shadows an outer one"], {}).canonical
    assert "  Status inner = 1;\n" in text and "  a.Status outer = 2;\n" in text


def test_layout_follows_confluents_formatted_text() -> None:
    text = FORMAT.parse('syntax="proto3";package foo;message TestMessage{string test_string=1;message Status{string s=1;}}', {}).canonical
    assert text == (
        'syntax = "proto3";\npackage foo;\n\nmessage TestMessage {\n  string test_string = 1;\n\n'
        "  message Status {\n    string s = 1;\n  }\n}\n"
    )


def test_texts_that_differ_only_in_spelling_share_a_canonical_text() -> None:
    a = FORMAT.parse('syntax = "proto3";\npackage x;\nmessage A { B b = 1; }\nmessage B {}', {})
    b = FORMAT.parse('syntax = "proto3";   package x;\n// a comment\nmessage A {\n  .x.B b = 1;\n}\nmessage B {\n}\n', {})
    assert a.canonical == b.canonical


def test_normalize_sorts_options_fields_and_constants_and_qualifies_names() -> None:
    one = FORMAT.normalize(FORMAT.parse(
        'syntax = "proto3"; package n; option java_package = "j"; option go_package = "g";'
        " message M { int32 b = 2; oneof o { string y = 9; string x = 5; } int32 a = 1; E e = 3; }"
        " enum E { Z = 0; Y = 2; X = 1; }", {}))
    other = FORMAT.normalize(FORMAT.parse(
        'syntax = "proto3"; package n; option go_package = "g"; option java_package = "j";'
        " message M { int32 a = 1; int32 b = 2; .n.E e = 3; oneof o { string x = 5; string y = 9; } }"
        " enum E { Z = 0; X = 1; Y = 2; }", {}))
    assert one.canonical == other.canonical
    assert one.canonical == (
        'syntax = "proto3";\npackage n;\n\noption go_package = "g";\noption java_package = "j";\n\n'
        "message M {\n  int32 a = 1;\n  int32 b = 2;\n  .n.E e = 3;\n  oneof o {\n    string x = 5;\n"
        "    string y = 9;\n  }\n}\nenum E {\n  Z = 0;\n  X = 1;\n  Y = 2;\n}\n"
    )


def test_nested_types_keep_their_order_around_map_entries() -> None:
    """Message indexes count nested types, map entries included, so a map field declared
    between two nested messages must create its entry there again."""
    parsed = FORMAT.parse('syntax = "proto3"; message O { message A {} map<string, A> m = 1; message B {} int32 x = 2; }', {})
    assert [m.name for m in parsed.native.file.message_type[0].nested_type] == ["A", "MEntry", "B"]
    assert [m.name for m in ProtobufFormat().parse(parsed.canonical, {}).native.file.message_type[0].nested_type] == ["A", "MEntry", "B"]


def test_normalize_sorts_enum_constants_after_the_first_which_is_the_default() -> None:
    parsed = FORMAT.normalize(FORMAT.parse('syntax = "proto2"; enum E { B = 2; C = 3; A = 1; }', {}))
    assert [v.name for v in parsed.native.file.enum_type[0].value] == ["B", "A", "C"]


def test_normalize_keeps_message_order_since_message_indexes_depend_on_it() -> None:
    parsed = FORMAT.normalize(FORMAT.parse('syntax = "proto3"; message Z { int32 a = 1; } message A { int32 a = 1; }', {}))
    assert [m.name for m in parsed.native.file.message_type] == ["Z", "A"]


def test_ignore_extensions_leaves_out_custom_options_and_extend_blocks() -> None:
    parsed = FORMAT.parse(SCHEMAS["custom options declared in the schema itself"], {})
    assert "(c.label) = " in parsed.canonical and "extend google.protobuf.FieldOptions" in parsed.canonical
    plain = FORMAT.formatted(parsed, "ignore_extensions")
    assert "(c.label)" not in plain and "extend " not in plain
    assert FORMAT.parse(plain, {}).native.file.message_type[0].field[0].name == "s"


def test_an_unknown_format_value_gives_none_so_the_canonical_text_is_served() -> None:
    assert FORMAT.formatted(FORMAT.parse(SCHEMAS["services and streaming"], {}), "resolved") is None


def test_format_values_are_case_insensitive() -> None:
    parsed = FORMAT.parse(SCHEMAS["services and streaming"], {})
    assert FORMAT.formatted(parsed, "SERIALIZED") == FORMAT.formatted(parsed, "serialized")


def test_a_fifty_message_file_round_trips() -> None:
    text = 'syntax = "proto3";\npackage big;\n' + "".join(
        f"message M{i} {{ string a = 1; repeated M{max(i - 1, 0)} prev = 2; map<string, int64> m = 3; }}\n" for i in range(50)
    )
    parsed = FORMAT.parse(text, {})
    assert len(parsed.native.file.message_type) == 50
    assert ProtobufFormat().parse(parsed.canonical, {}).native.file == parsed.native.file
