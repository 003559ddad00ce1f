"""Compiling Protobuf schemas: protoc decides, its messages reach the client with line and
column, references resolve imports by name and the well-known imports need none."""
from __future__ import annotations

import base64

import pytest
from confluent_kafka.schema_registry.confluent.type import decimal_pb2

from app.formats.base import SchemaParseError
from app.formats.protobuf import ProtobufFormat
from app.formats.protobuf.compiler import SCHEMA_FILE

FORMAT = ProtobufFormat()

PROTO3 = 'syntax = "proto3";\npackage shop;\n\nmessage Order {\n  string id = 1;\n  int64 cents = 2;\n}\n'


def refused(text: str, dependencies: dict[str, str] | None = None) -> str:
    with pytest.raises(SchemaParseError) as caught:
        FORMAT.parse(text, dependencies or {})
    return caught.value.message


@pytest.mark.parametrize("text", [
    PROTO3,
    'syntax = "proto2";\nmessage P {\n  required int32 a = 1 [default = 7];\n  optional group G = 2 {\n    optional string s = 3;\n  }\n  extensions 100 to max;\n}\nextend P {\n  optional bytes e = 100;\n}\n',
    'edition = "2023";\npackage ed;\nmessage E {\n  int32 a = 1 [features.field_presence = IMPLICIT];\n  reserved b;\n}\n',
    'syntax = "proto3";\nmessage M {\n  map<string, M> children = 1;\n  optional int32 maybe = 2;\n  oneof pick {\n    string s = 3;\n    bytes b = 4;\n  }\n}\n',
    'syntax = "proto3";\nenum Only {\n  ZERO = 0;\n}\n',
], ids=["proto3", "proto2 groups, defaults, extensions", "edition 2023", "maps, optional, oneof", "enum only"])
def test_valid_schemas_compile(text: str) -> None:
    parsed = FORMAT.parse(text, {})
    assert parsed.schema_type == "PROTOBUF"
    assert parsed.native.file.name == SCHEMA_FILE


@pytest.mark.parametrize("text, expected", [
    ('syntax = "proto3";\nmessage A {\n  string x = 1;\n  int32 x = 2;\n}\n', 'schema.proto:4:9: "x" is already defined in "A".'),
    ('syntax = "proto3";\nmessage A {\n  Missing m = 1;\n}\n', 'schema.proto:3:3: "Missing" is not defined.'),
    ('syntax = "proto3";\nmessage A {\n  string x = 1\n}\n', "schema.proto:4:1: Expected \";\"."),
    ('syntax = "proto3";\nmessage A {\n  string x = 1 [default = "d"];\n}\n', "schema.proto:3:27: Explicit default values are not allowed in proto3."),
    ('syntax = "proto3";\nmessage A {\n  string x = 1;\n  string y = 1;\n}\n', 'schema.proto:4:14: Field number 1 has already been used in "A" by field \"x\". Next available field number is 2.'),
    ('syntax = "proto4";\nmessage A {}\n', 'schema.proto:1:10: Unrecognized syntax identifier "proto4".  This parser only recognizes "proto2" and "proto3".'),
], ids=["duplicate name", "undefined type", "syntax error", "proto3 default", "duplicate number", "unknown syntax"])
def test_protoc_messages_come_through_with_line_and_column(text: str, expected: str) -> None:
    assert refused(text) == f"Invalid schema of type PROTOBUF, details: {expected}"


def test_every_error_is_reported_not_just_the_first() -> None:
    message = refused('syntax = "proto3";\nmessage A {\n  Nope a = 1;\n  Nada b = 2;\n}\n')
    assert '"Nope" is not defined' in message and '"Nada" is not defined' in message


def test_an_import_without_a_reference_is_refused() -> None:
    message = refused('syntax = "proto3";\nimport "other.proto";\nmessage A {}\n')
    assert "other.proto: File not found." in message
    assert 'schema.proto:2:1: Import "other.proto" was not found or had errors.' in message


def test_imports_resolve_by_reference_name() -> None:
    deps = {"com/acme/customer.proto": 'syntax = "proto3";\npackage acme;\nmessage Customer {\n  string name = 1;\n}\n'}
    parsed = FORMAT.parse(
        'syntax = "proto3";\npackage shop;\nimport "com/acme/customer.proto";\nmessage Order {\n  acme.Customer who = 1;\n}\n', deps
    )
    assert parsed.native.file.message_type[0].field[0].type_name == ".acme.Customer"
    assert set(parsed.native.imports) == {"com/acme/customer.proto"}


def test_transitive_references_are_all_visible_to_protoc() -> None:
    deps = {
        "a.proto": 'syntax = "proto3";\npackage a;\nmessage A {\n  int32 x = 1;\n}\n',
        "b.proto": 'syntax = "proto3";\npackage b;\nimport "a.proto";\nmessage B {\n  a.A a = 1;\n}\n',
    }
    parsed = FORMAT.parse('syntax = "proto3";\nimport "b.proto";\nmessage C {\n  b.B b = 1;\n}\n', deps)
    assert set(parsed.native.imports) == {"a.proto", "b.proto"}


def test_a_type_from_an_indirect_import_is_not_visible() -> None:
    deps = {
        "a.proto": 'syntax = "proto3";\npackage a;\nmessage A {\n  int32 x = 1;\n}\n',
        "b.proto": 'syntax = "proto3";\npackage b;\nimport "a.proto";\nmessage B {\n  a.A a = 1;\n}\n',
    }
    message = refused('syntax = "proto3";\nimport "b.proto";\nmessage C {\n  a.A a = 1;\n}\n', deps)
    assert '"a.A" seems to be defined in "a.proto", which is not imported by "schema.proto"' in message


@pytest.mark.parametrize("import_name, type_name", [
    ("google/protobuf/timestamp.proto", "google.protobuf.Timestamp"),
    ("google/protobuf/struct.proto", "google.protobuf.Struct"),
    ("google/protobuf/descriptor.proto", "google.protobuf.FileDescriptorProto"),
    ("google/type/money.proto", "google.type.Money"),
    ("google/type/datetime.proto", "google.type.DateTime"),
    ("google/type/phone_number.proto", "google.type.PhoneNumber"),
    ("confluent/meta.proto", "confluent.Meta"),
    ("confluent/type/decimal.proto", "confluent.type.Decimal"),
    ("confluent/type/variant.proto", "confluent.type.Variant"),
])
def test_well_known_imports_need_no_reference(import_name: str, type_name: str) -> None:
    parsed = FORMAT.parse(f'syntax = "proto3";\nimport "{import_name}";\nmessage A {{\n  {type_name} v = 1;\n}}\n', {})
    assert import_name in parsed.native.imports


def test_a_reference_named_like_a_well_known_import_wins() -> None:
    mine = 'syntax = "proto3";\npackage google.type;\nmessage Money {\n  string all_mine = 1;\n}\n'
    parsed = FORMAT.parse('syntax = "proto3";\nimport "google/type/money.proto";\nmessage A {\n  google.type.Money m = 1;\n}\n',
                          {"google/type/money.proto": mine})
    assert [f.name for f in parsed.native.imports["google/type/money.proto"].message_type[0].field] == ["all_mine"]


def test_confluent_meta_options_are_understood() -> None:
    text = (
        'syntax = "proto3";\nimport "confluent/meta.proto";\nimport "confluent/type/decimal.proto";\n'
        'message Price {\n  option (confluent.message_meta).doc = "a price";\n'
        '  confluent.type.Decimal amount = 1 [(confluent.field_meta) = { params: [{key: "precision", value: "8"}] }];\n}\n'
    )
    assert "(confluent.field_meta)" in FORMAT.parse(text, {}).canonical


def test_a_reference_name_that_escapes_the_scratch_folder_is_never_written() -> None:
    message = refused('syntax = "proto3";\nimport "../../etc/x.proto";\nmessage A {}\n', {"../../etc/x.proto": PROTO3})
    assert "Backslashes, consecutive slashes, \".\", or \"..\" are not allowed in the virtual path" in message


def test_a_base64_file_descriptor_is_accepted_as_input() -> None:
    sent = base64.b64encode(decimal_pb2.DESCRIPTOR.serialized_pb).decode()
    parsed = FORMAT.parse(sent, {})
    assert parsed.canonical.startswith('syntax = "proto3";\npackage confluent.type;\n')
    assert [f.name for f in parsed.native.file.message_type[0].field] == ["value", "precision", "scale"]


def test_a_base64_descriptor_with_imports_uses_the_references() -> None:
    dependency = 'syntax = "proto3";\npackage dep;\nmessage D {\n  int32 x = 1;\n}\n'
    compiled = FORMAT.parse(
        'syntax = "proto3";\nimport "dep.proto";\nimport "google/protobuf/timestamp.proto";\n'
        "message Uses {\n  dep.D d = 1;\n  google.protobuf.Timestamp at = 2;\n}\n", {"dep.proto": dependency}
    )
    sent = base64.b64encode(compiled.native.file.SerializeToString()).decode()
    again = FORMAT.parse(sent, {"dep.proto": dependency})
    assert again.canonical == compiled.canonical
    assert again.native.file == compiled.native.file


def test_garbage_that_is_neither_text_nor_a_descriptor_reports_protocs_error() -> None:
    assert refused("bm90IGEgZGVzY3JpcHRvcg==").startswith("Invalid schema of type PROTOBUF, details: schema.proto:1:1:")


def test_the_schema_file_moves_aside_for_a_reference_of_the_same_name() -> None:
    parsed = FORMAT.parse('syntax = "proto3";\nimport "schema.proto";\nmessage B {\n  shop.Order o = 1;\n}\n',
                          {"schema.proto": PROTO3})
    assert parsed.native.file.name == "schema_1.proto"


def test_top_level_fields_are_the_first_messages() -> None:
    parsed = FORMAT.parse('syntax = "proto3";\nmessage A {\n  int32 a = 1;\n  oneof o {\n    string b = 2;\n  }\n}\nmessage Z {\n  int32 z = 1;\n}\n', {})
    assert FORMAT.field_names(parsed) == {"a", "b"}
    assert FORMAT.field_names(FORMAT.parse('syntax = "proto3";\nenum E {\n  X = 0;\n}\n', {})) == set()


GOOGLE_TYPES = ["calendar_period", "color", "date", "datetime", "dayofweek", "decimal", "expr", "fraction", "interval",
                "latlng", "money", "month", "phone_number", "postal_address", "quaternion", "timeofday"]


@pytest.mark.parametrize("name", GOOGLE_TYPES)
def test_every_google_type_confluent_knows_imports_without_reference(name: str) -> None:
    parsed = FORMAT.parse(f'syntax = "proto3";\nimport "google/type/{name}.proto";\nmessage A {{\n  int32 a = 1;\n}}\n', {})
    assert parsed.native.imports[f"google/type/{name}.proto"].package == "google.type"


def test_the_well_known_files_ship_as_package_data() -> None:
    import fnmatch
    import tomllib
    from pathlib import Path

    root = Path(__file__).resolve().parents[3]
    patterns = tomllib.loads((root / "pyproject.toml").read_text())["tool"]["setuptools"]["package-data"]["app.formats.protobuf"]
    package = root / "app" / "formats" / "protobuf"
    files = [p.relative_to(package).as_posix() for p in (package / "well_known").rglob("*.proto")]
    assert len(files) == len(GOOGLE_TYPES) + 3  # and confluent/meta.proto, confluent/type/{decimal,variant}.proto
    assert all(any(fnmatch.fnmatch(f, pattern) and f.count("/") == pattern.count("/") for pattern in patterns) for f in files)


def test_the_same_text_is_compiled_once_and_its_canonical_text_too() -> None:
    untidy = 'syntax="proto3";message Once{int32 a=1;}'
    parsed = FORMAT.parse(untidy, {})
    assert FORMAT.parse(untidy, {}) is parsed
    # The canonical text's parse shares the compile, but not the sent text (policies read it).
    stored = FORMAT.parse(parsed.canonical, {}, strict=False)
    assert stored.native.file is parsed.native.file and stored.canonical == parsed.canonical
    assert (parsed.native.source, stored.native.source) == (untidy, None)
    assert FORMAT.parse(parsed.canonical, {}) is stored
    assert FORMAT.parse(untidy, {"unused.proto": PROTO3}) is not parsed


def test_a_sent_descriptor_nested_past_protocs_limit_is_refused() -> None:
    from google.protobuf.descriptor_pb2 import FileDescriptorProto

    file = FileDescriptorProto(name="deep.proto", syntax="proto3")
    level = file.message_type.add(name="M0")
    for depth in range(1, 400):
        level = level.nested_type.add(name=f"M{depth}")
    assert refused(base64.b64encode(file.SerializeToString()).decode()).startswith("Invalid schema of type PROTOBUF, details: ")


def test_reference_names_that_cannot_both_be_files_do_not_break_the_compile() -> None:
    deps = {"a.proto": PROTO3, "a.proto/b.proto": PROTO3.replace("shop", "other")}
    parsed = FORMAT.parse('syntax = "proto3";\nimport "a.proto";\nmessage U {\n  shop.Order o = 1;\n}\n', deps)
    assert set(parsed.native.imports) == {"a.proto"}


def test_text_that_is_not_utf8_is_refused_not_crashed() -> None:
    assert refused('syntax = "proto3";\nmessage A { string \ud800 = 1; }\n').endswith("the schema is not valid UTF-8 text")


def test_a_sent_descriptor_with_names_that_are_not_text_is_refused() -> None:
    from google.protobuf.descriptor_pb2 import FileDescriptorProto

    file = FileDescriptorProto(name="x.proto", syntax="proto3")
    file.message_type.add(name="ABC")
    raw = file.SerializeToString().replace(b"ABC", b"A\xffC")
    assert refused(base64.b64encode(raw).decode()).endswith("the FileDescriptorProto sent cannot be read as a schema")
