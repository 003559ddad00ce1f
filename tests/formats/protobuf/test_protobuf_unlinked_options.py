"""Custom options nothing defines are accepted, as Confluent and Karapace accept them: kept in
the canonical text on the element that declares them, left out of the descriptor; protoc
still refuses real errors with line and column."""
from __future__ import annotations

import base64

import pytest
from google.protobuf import descriptor_pool
from google.protobuf.descriptor_pb2 import FileDescriptorProto
from support.protoc_calls import CountingProtoc, counting_protoc

from app.formats.base import SchemaParseError
from app.formats.protobuf import ProtobufFormat

FORMAT = ProtobufFormat()

EVERY_KIND = '''syntax = "proto3";
package shop;
option (file_opt) = "x";
option java_package = "com.shop";
message Order {
  option (msg_opt) = true;
  option (msg_opt2).sub.x = 5;
  int64 id = 1 [(field_opt) = 1, deprecated = true, (f2) = -2.5];
  oneof pay {
    option (oneof_opt) = CARD;
    string card = 2;
  }
}
enum Status {
  option (enum_opt) = 1;
  NEW = 0 [(value_opt) = "v"];
}
service Orders {
  option (svc_opt) = { a: 1
    b: "c d" };
  rpc Place (Order) returns (Order) { option (method_opt) = { x: 1 }; }
}
'''

EVERY_KIND_CANONICAL = '''syntax = "proto3";
package shop;

option java_package = "com.shop";
option (file_opt) = "x";

message Order {
  option (msg_opt) = true;
  option (msg_opt2).sub.x = 5;

  int64 id = 1 [deprecated = true, (field_opt) = 1, (f2) = -2.5];
  oneof pay {
    option (oneof_opt) = CARD;
    string card = 2;
  }
}
enum Status {
  option (enum_opt) = 1;
  NEW = 0 [(value_opt) = "v"];
}

service Orders {
  option (svc_opt) = { a: 1 b: "c d" };
  rpc Place (Order) returns (Order) {
    option (method_opt) = { x: 1 };
  }
}
'''


def test_options_of_every_kind_are_kept_in_the_canonical_text() -> None:
    parsed = FORMAT.parse(EVERY_KIND, {})
    assert parsed.canonical == EVERY_KIND_CANONICAL
    stored = FORMAT.parse(parsed.canonical, {}, strict=False)
    assert stored.canonical == EVERY_KIND_CANONICAL
    assert stored.native.unlinked == parsed.native.unlinked


@pytest.mark.parametrize("declaration, printed", [
    ("message M {\n  option (m) = 1;\n  int32 a = 1;\n}", "message M {\n  option (m) = 1;\n\n  int32 a = 1;\n}"),
    ("message M {\n  int32 a = 1 [(f) = 1];\n}", "message M {\n  int32 a = 1 [(f) = 1];\n}"),
    ("message M {\n  oneof o {\n    option (o) = 1;\n    int32 a = 1;\n  }\n}",
     "message M {\n  oneof o {\n    option (o) = 1;\n    int32 a = 1;\n  }\n}"),
    ("enum E {\n  option (e) = 1;\n  Z = 0;\n}", "enum E {\n  option (e) = 1;\n  Z = 0;\n}"),
    ("enum E {\n  Z = 0 [(v) = 1];\n}", "enum E {\n  Z = 0 [(v) = 1];\n}"),
    ("message M {\n  int32 a = 1;\n}\nservice S {\n  option (s) = 1;\n  rpc R (M) returns (M);\n}",
     "message M {\n  int32 a = 1;\n}\n\nservice S {\n  option (s) = 1;\n  rpc R (M) returns (M);\n}"),
    ("message M {\n  int32 a = 1;\n}\nservice S {\n  rpc R (M) returns (M) { option (r) = 1; }\n}",
     "message M {\n  int32 a = 1;\n}\n\nservice S {\n  rpc R (M) returns (M) {\n    option (r) = 1;\n  }\n}"),
], ids=["message", "field", "oneof", "enum", "enum value", "service", "method"])
def test_an_undefined_option_of_each_kind_is_accepted_and_printed_back(declaration: str, printed: str) -> None:
    parsed = FORMAT.parse(f'syntax = "proto3";\n{declaration}\n', {})
    assert parsed.canonical == f'syntax = "proto3";\n\n{printed}\n'


def test_an_extension_range_keeps_its_undefined_option() -> None:
    parsed = FORMAT.parse('syntax = "proto2";\nmessage M {\n  extensions 100 to 200, 300 [(r) = 1];\n}\n', {})
    assert "  extensions 100 to 200 [(r) = 1];\n  extensions 300 [(r) = 1];\n" in parsed.canonical


@pytest.mark.parametrize("entries, kept", [
    ("(a) = 1", ""),
    ("(a) = 1, (b) = 2", " [(a) = 1, (b) = 2]"),
    ("(a) = 1, deprecated = true", " [deprecated = true, (a) = 1]"),
    ("deprecated = true, (a) = 1", " [deprecated = true, (a) = 1]"),
    ("(a) = 1, deprecated = true, (b) = { x: [1, 2] }", " [deprecated = true, (a) = 1, (b) = { x: [1, 2] }]"),
    ("json_name = \"A\", (a) = 1, (b) = 2, deprecated = true", " [json_name = \"A\", deprecated = true, (a) = 1, (b) = 2]"),
])
def test_a_list_keeps_its_other_entries_wherever_the_undefined_ones_stand(entries: str, kept: str) -> None:
    parsed = FORMAT.parse(f'syntax = "proto3";\nmessage M {{\n  int32 a = 1 [{entries}];\n}}\n', {})
    assert f"  int32 a = 1{kept or ' [(a) = 1]'};\n" in parsed.canonical


def test_columns_after_tabs_and_non_ascii_text_still_find_the_field() -> None:
    text = 'syntax = "proto3";\nmessage M {\n\tstring a = 1\t[(x) = "é€", (y) = 2]; string b = 2 [(z) = 3];\n}\n'
    parsed = FORMAT.parse(text, {})
    assert '  string a = 1 [(x) = "é€", (y) = 2];\n  string b = 2 [(z) = 3];\n' in parsed.canonical


def test_defined_custom_options_are_linked_and_undefined_ones_kept_beside() -> None:
    text = ('syntax = "proto3";\nimport "confluent/meta.proto";\nmessage M {\n'
            '  option (confluent.message_meta) = { doc: "hi" };\n  option (unknown) = 1;\n'
            '  int32 a = 1 [(confluent.field_meta) = { doc: "f" }, (nope) = 2];\n}\n')
    parsed = FORMAT.parse(text, {})
    assert '  int32 a = 1 [(confluent.field_meta) = { doc: "f" }, (nope) = 2];\n' in parsed.canonical
    assert '  option (confluent.message_meta) = { doc: "hi" };\n  option (unknown) = 1;\n' in parsed.canonical
    message = parsed.native.file.message_type[0]
    assert message.options.ByteSize() > 0 and message.field[0].options.ByteSize() > 0  # the meta, linked


def test_an_option_defined_in_the_schema_itself_is_linked() -> None:
    text = ('syntax = "proto2";\nimport "google/protobuf/descriptor.proto";\n'
            "extend google.protobuf.MessageOptions {\n  optional int32 mine = 50001;\n}\n"
            "message M {\n  option (mine) = 3;\n  option (theirs) = 4;\n  optional int32 a = 1;\n}\n")
    parsed = FORMAT.parse(text, {})
    assert "  option (mine) = 3;\n  option (theirs) = 4;\n" in parsed.canonical
    assert [o.name for options in parsed.native.unlinked.values() for o in options] == ["(theirs)"]


def test_the_serialized_descriptor_leaves_them_out_and_loads_in_pythons_pool() -> None:
    parsed = FORMAT.parse(EVERY_KIND, {})
    file = FileDescriptorProto.FromString(base64.b64decode(FORMAT.formatted(parsed, "serialized")))
    assert file.options.java_package == "com.shop"
    pool = descriptor_pool.DescriptorPool()
    pool.Add(file)
    assert [f.name for f in pool.FindMessageTypeByName("shop.Order").fields] == ["id", "card"]


def test_ignoring_extensions_leaves_them_out_and_normalizing_sorts_them() -> None:
    parsed = FORMAT.parse(EVERY_KIND, {})
    assert "(" not in FORMAT.formatted(parsed, "ignore_extensions").replace("(Order)", "")
    normalized = FORMAT.normalize(parsed).canonical
    assert 'option (file_opt) = "x";\noption java_package = "com.shop";\n' in normalized
    assert "[deprecated = true, (f2) = -2.5, (field_opt) = 1]" in normalized


def test_a_reference_that_sets_undefined_options_imports_without_them() -> None:
    dependency = 'syntax = "proto3";\nmessage D {\n  option (x) = 1;\n  int32 a = 1 [(y) = 2];\n}\n'
    parsed = FORMAT.parse('syntax = "proto3";\nimport "dep.proto";\nmessage M {\n  D d = 1;\n}\n',
                          {"dep.proto": dependency})
    assert parsed.native.imports["dep.proto"].message_type[0].name == "D"


def test_compatibility_reads_through_them() -> None:
    old = FORMAT.parse('syntax = "proto3";\nmessage M {\n  option (m) = 1;\n  int32 a = 1 [(f) = 1];\n}\n', {})
    new = FORMAT.parse('syntax = "proto3";\nmessage M {\n  option (m) = 2;\n  int32 a = 1;\n  string b = 2 [(f) = 1];\n}\n', {})
    assert FORMAT.can_read(new, old) == []
    changed = FORMAT.parse('syntax = "proto3";\nmessage M {\n  option (m) = 1;\n  string a = 1 [(f) = 1];\n}\n', {})
    assert [i.type for i in FORMAT.can_read(changed, old)] == ["FIELD_SCALAR_KIND_CHANGED"]


@pytest.mark.parametrize("text, expected", [
    ('syntax = "proto3";\nmessage M {\n  option (x) = ;\n}\n', "schema.proto:3:16: Expected option value."),
    ('syntax = "proto3";\nmessage M {\n  int32 a = 1 [(x) = 1;\n}\n', 'schema.proto:3:23: Expected "]".'),
    ('syntax = "proto3";\nmessage M {\n  option (x) = 1;\n  Nope a = 1;\n}\n', 'schema.proto:4:3: "Nope" is not defined.'),
    ('syntax = "proto3";\nimport "confluent/meta.proto";\nmessage M {\n  option (x) = 1;\n'
     '  option (confluent.message_meta) = { nope: 1 };\n}\n', "schema.proto:5:37: Error while parsing option value for \"message_meta\""),
], ids=["syntax error in the value", "unclosed list", "undefined type beside", "a defined option misused"])
def test_real_errors_are_still_protocs_with_line_and_column(text: str, expected: str) -> None:
    with pytest.raises(SchemaParseError) as caught:
        FORMAT.parse(text, {})
    assert expected in caught.value.message
    assert "unknown" not in caught.value.message


@pytest.fixture
def protoc(monkeypatch: pytest.MonkeyPatch) -> CountingProtoc:
    return counting_protoc(monkeypatch)


@pytest.mark.parametrize("count", [1, 1000])
def test_protoc_runs_a_fixed_number_of_times_however_many_options(protoc: CountingProtoc, count: int) -> None:
    """protoc names one unknown option per element; all go in one round, not one per option."""
    options = "".join(f"  option (m{i}) = {i};\n" for i in range(count))
    fields = "".join(f"  int32 f{i} = {i + 1} [(a) = 1, (b{i}) = 2];\n" for i in range(count))
    FORMAT.parse(f'syntax = "proto3";\nmessage M {{\n{options}{fields}}}\n', {})
    assert protoc.calls == {"run_main": 2, "get_protos": 1}


@pytest.mark.parametrize("declaration, linked", [
    ("message M {\n  extend google.protobuf.MessageOptions {\n    optional int32 e = 50001;\n  }\n"
     "  option (e) = 1;\n  optional int32 a = 1;\n}", False),
    ("message M {\n  extend google.protobuf.FieldOptions {\n    optional int32 e = 50001;\n  }\n"
     "  optional int32 a = 1 [(e) = 1];\n}", True),
    ("message M {\n  extend google.protobuf.ExtensionRangeOptions {\n    optional int32 e = 50001;\n  }\n"
     "  extensions 100 to 200 [(e) = 1];\n}", False),
    ("message M {\n  extend google.protobuf.EnumValueOptions {\n    optional int32 e = 50001;\n  }\n"
     "  enum E {\n    Z = 0 [(e) = 1];\n  }\n}", True),
], ids=["a message's own extension", "a field's", "an extension range's", "an enum value's"])
def test_an_option_is_linked_exactly_where_protoc_finds_its_name(declaration: str, linked: bool) -> None:
    """protoc looks a message's option names up from outside the message: its own nested
    extension is out of reach there, and such an option is kept unlinked, not refused."""
    text = f'syntax = "proto2";\nimport "google/protobuf/descriptor.proto";\n{declaration}\n'
    parsed = FORMAT.parse(text, {})
    assert (parsed.native.unlinked == {}) is linked
    assert "e) = 1" in parsed.canonical  # linked ones as the printer names them: (M.e)
