"""Whatever a client sends as a Protobuf schema, the format answers with a parsed schema or
a `SchemaParseError` (the core's 42201), never another exception (a 500): token soups as
`.proto` text, and structurally inconsistent `FileDescriptorProto`s in base64."""
from __future__ import annotations

import base64

from google.protobuf.descriptor_pb2 import FileDescriptorProto
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from app.formats.base import SchemaParseError
from app.formats.protobuf import ProtobufFormat

FORMAT = ProtobufFormat()
DEPENDENCIES = {"x.proto": 'syntax = "proto3";\nmessage X {}\n'}
SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck))

TOKENS = st.sampled_from([
    'syntax = "proto3";', 'syntax = "proto2";', 'edition = "2023";', "message", "enum", "A", "B", "{", "}", "=",
    "1", "2", ";", "int32", "map<string, A>", "oneof", "repeated", "optional", "import", '"x.proto"', "option",
    "(a)", "[", "]", "reserved", "extensions", "to", "max", "extend", "group", "service", "rpc", "(", ")",
    "returns", "stream", "package", "a.b", ".", "\n", "default", '"s"', "-", "inf",
])
NAMES = st.text(alphabet='abAB_.1 "\\\n', max_size=5)


@st.composite
def descriptors(draw: st.DrawFn) -> FileDescriptorProto:
    file = FileDescriptorProto(name=draw(NAMES), package=draw(NAMES),
                               syntax=draw(st.sampled_from(["", "proto2", "proto3", "editions", "other"])))
    if file.syntax == "editions":
        file.edition = draw(st.sampled_from([0, 1000, 1001, 99997]))
    for _ in range(draw(st.integers(0, 2))):
        message = file.message_type.add(name=draw(NAMES))
        for _ in range(draw(st.integers(0, 3))):
            field = message.field.add(name=draw(NAMES), number=draw(st.integers(-1, 600_000_000)),
                                      label=draw(st.integers(1, 3)), type=draw(st.integers(1, 18)))
            if draw(st.booleans()):
                field.type_name = draw(NAMES)
            if draw(st.booleans()):
                field.default_value = draw(NAMES)
            if draw(st.booleans()):
                field.oneof_index = draw(st.integers(-1, 2))
            field.proto3_optional = draw(st.booleans())
        for _ in range(draw(st.integers(0, 1))):
            message.oneof_decl.add(name=draw(NAMES))
        for _ in range(draw(st.integers(0, 1))):
            nested = message.nested_type.add(name=draw(NAMES))
            nested.options.map_entry = draw(st.booleans())
        for _ in range(draw(st.integers(0, 1))):
            message.extension_range.add(start=draw(st.integers(-2, 5)), end=draw(st.integers(-2, 5)))
            message.reserved_range.add(start=draw(st.integers(-2, 5)), end=draw(st.integers(-2, 5)))
    for _ in range(draw(st.integers(0, 1))):
        enum = file.enum_type.add(name=draw(NAMES))
        for _ in range(draw(st.integers(0, 2))):
            enum.value.add(name=draw(NAMES), number=draw(st.integers(-2, 2)))
    file.dependency.extend(draw(st.lists(st.sampled_from(["google/protobuf/timestamp.proto", "x.proto", 'a"b']), max_size=2)))
    file.public_dependency.extend(draw(st.lists(st.integers(-1, 2), max_size=1)))
    return file


@SETTINGS
@given(st.lists(TOKENS, max_size=30))
def test_any_token_soup_parses_or_is_refused(tokens: list[str]) -> None:
    try:
        FORMAT.parse(" ".join(tokens), DEPENDENCIES)
    except SchemaParseError:
        pass


@SETTINGS
@given(descriptors())
def test_any_sent_descriptor_parses_or_is_refused(file: FileDescriptorProto) -> None:
    try:
        parsed = FORMAT.parse(base64.b64encode(file.SerializeToString()).decode(), DEPENDENCIES)
    except SchemaParseError:
        return
    assert ProtobufFormat().parse(parsed.canonical, DEPENDENCIES).canonical == parsed.canonical
