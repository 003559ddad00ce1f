"""Whether the printed text of a schema compiles back to the schema that was sent.

Usually the two descriptors are equal as messages. They may differ in bytes without differing
in meaning in two ways only: custom options are unknown fields, kept in the order they were
written, and a `json_name` given explicitly is kept even when it is the derived one. So the
fallback compares the descriptors without options and json names, and the options through
their printed form (which lists them in field-number order).
"""
from __future__ import annotations

from google.protobuf.descriptor_pb2 import (
    DescriptorProto,
    EnumDescriptorProto,
    FieldDescriptorProto,
    FileDescriptorProto,
)

from app.formats import work_budget
from app.formats.protobuf.model import ProtobufNative
from app.formats.protobuf.printer import default_json_name, render


def _without_options(file: FileDescriptorProto) -> FileDescriptorProto:
    """A copy without options, and without json names protoc would derive anyway: what is
    left must be equal byte for byte; options are compared through their printed form."""
    copy = FileDescriptorProto()
    copy.CopyFrom(file)
    copy.ClearField("options")

    def message(m: DescriptorProto) -> None:
        work_budget.check()
        m.ClearField("options")
        for f in (*m.field, *m.extension):
            _clear_field(f)
        for o in m.oneof_decl:
            o.ClearField("options")
        for r in m.extension_range:
            r.ClearField("options")
        for n in m.nested_type:
            message(n)
        for e in m.enum_type:
            _clear_enum(e)

    for m in copy.message_type:
        message(m)
    for e in copy.enum_type:
        _clear_enum(e)
    for f in copy.extension:
        _clear_field(f)
    for s in copy.service:
        s.ClearField("options")
        for method in s.method:
            method.ClearField("options")
    return copy


def _clear_field(field: FieldDescriptorProto) -> None:
    field.ClearField("options")
    if field.json_name == default_json_name(field.name):
        field.ClearField("json_name")


def _clear_enum(enum: EnumDescriptorProto) -> None:
    enum.ClearField("options")
    for value in enum.value:
        value.ClearField("options")


def same_schema(a: ProtobufNative, b: ProtobufNative) -> bool:
    """Whether two compilations describe the same schema, byte-identical or not."""
    if a.unlinked != b.unlinked:
        return False
    if a.file == b.file:
        return True
    return _without_options(a.file) == _without_options(b.file) and render(a, qualify=True) == render(b, qualify=True)
