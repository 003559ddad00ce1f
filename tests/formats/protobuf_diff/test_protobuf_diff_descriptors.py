"""Descriptors not written by protoc (a client may send a base64 `FileDescriptorProto`):
relative type names, a missing field type, malformed map entries or oneof indexes. The
checker resolves what protobuf's scoping resolves and never fails on the rest."""
from __future__ import annotations

from google.protobuf.descriptor_pb2 import FieldDescriptorProto, FileDescriptorProto

from app.formats.protobuf.diff import compare
from app.formats.protobuf.model import ProtobufNative

from .protobuf_diff_support import compile_native

F = FieldDescriptorProto


def native(file: FileDescriptorProto) -> ProtobufNative:
    return ProtobufNative(file=file, imports={})


def hand_written(type_name: str, field_type: int = 0) -> ProtobufNative:
    """`package p; message A { B b = 1; message B {} }`, the field's type named `type_name`."""
    file = FileDescriptorProto(name="hand.proto", package="p", syntax="proto3")
    a = file.message_type.add(name="A")
    field = a.field.add(name="b", number=1, label=F.LABEL_OPTIONAL, type_name=type_name)
    if field_type:
        field.type = field_type
    a.nested_type.add(name="B")
    return native(file)


PROTOC = 'syntax = "proto3"; package p; message A { B b = 1; message B {} }'


def test_relative_type_names_resolve_like_protoc() -> None:
    compiled = compile_native(PROTOC)
    for name in ("B", "A.B", "p.A.B", ".p.A.B"):
        assert compare(compiled, hand_written(name)) == []
        assert compare(hand_written(name, F.TYPE_MESSAGE), compiled) == []


def test_an_unresolvable_type_compares_by_its_written_name() -> None:
    assert [d.type for d in compare(hand_written("Nowhere"), hand_written("Elsewhere"))] == ["FIELD_NAMED_TYPE_CHANGED"]
    assert compare(hand_written("Nowhere"), hand_written("Nowhere")) == []


def test_a_map_entry_without_key_and_value_is_a_plain_message() -> None:
    file = FileDescriptorProto(name="odd.proto", syntax="proto3")
    a = file.message_type.add(name="A")
    entry = a.nested_type.add(name="MEntry")
    entry.options.map_entry = True
    entry.field.add(name="key", number=1, type=F.TYPE_STRING, label=F.LABEL_OPTIONAL)
    a.field.add(name="m", number=1, label=F.LABEL_REPEATED, type=F.TYPE_MESSAGE, type_name=".A.MEntry")
    proper = compile_native('syntax = "proto3"; message A { map<string, int32> m = 1; }')
    assert [(d.type, d.location) for d in compare(native(file), proper)] == [
        ("FIELD_KIND_CHANGED", "#/A/1"),
        ("MESSAGE_REMOVED", "#/A/MEntry"),
    ]


def test_a_oneof_index_past_the_declared_oneofs_is_ignored() -> None:
    file = FileDescriptorProto(name="odd.proto", syntax="proto3")
    a = file.message_type.add(name="A")
    a.field.add(name="x", number=1, label=F.LABEL_OPTIONAL, type=F.TYPE_INT32, oneof_index=3)
    plain = compile_native('syntax = "proto3"; message A { int32 x = 1; }')
    assert compare(native(file), plain) == []
