"""Options as `.proto` text: `option java_package = "x";`, `[packed = true]`,
`option (confluent.message_meta) = { doc: "m" };`.

protoc keeps a custom option (an extension of `google.protobuf.*Options`) as an unknown field
of the options message, since the generated `descriptor_pb2` classes know no extensions. To
print it by name we parse the options again with classes from a pool that holds the schema's
own files, where the extensions are known. That pool is built only for schemas that carry
custom options.
"""
from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass

from google.protobuf import descriptor_pb2, message_factory, text_encoding, text_format
from google.protobuf.descriptor import FieldDescriptor
from google.protobuf.descriptor_pool import DescriptorPool
from google.protobuf.descriptor_pb2 import FileDescriptorProto
from google.protobuf.message import Message
from google.protobuf.unknown_fields import UnknownFieldSet

from app.formats.base import SchemaParseError
from app.formats.protobuf.compiler import REFUSAL

_DESCRIPTOR_PROTO = "google/protobuf/descriptor.proto"


@dataclass(frozen=True)
class OptionValue:
    """One assignment: `name` as written inside `option ... =` or `[...]` (an extension's
    name is its full name, to be wrapped in parentheses by the caller), and `value` as text."""

    name: str
    value: str
    is_extension: bool


class OptionReader:
    """Lists the options set on any `*Options` message of one schema's descriptors."""

    def __init__(self, file: FileDescriptorProto, imports: Mapping[str, FileDescriptorProto]) -> None:
        self._file = file
        self._imports = imports
        self._pool: DescriptorPool | None = None

    def extended(self, options: Message) -> Message:
        """`options` parsed again with its extensions known (a custom option is an unknown
        field of the generated class)."""
        if self._pool is None:
            self._pool = _pool_of(self._file, self._imports)
        cls = message_factory.GetMessageClass(self._pool.FindMessageTypeByName(options.DESCRIPTOR.full_name))
        return cls.FromString(options.SerializeToString())

    def values(self, options: Message, *, ignore_extensions: bool = False) -> list[OptionValue]:
        """Known options in field-number order, then custom ones; a repeated option gives
        one assignment per element, as protoc accepts it."""
        if len(UnknownFieldSet(options)):
            options = self.extended(options)
        out = []
        for field, value in options.ListFields():
            if field.is_extension and ignore_extensions:
                continue
            name = field.full_name if field.is_extension else field.name
            elements = value if field.is_repeated else [value]
            out.extend(OptionValue(name, render_value(field, element), field.is_extension) for element in elements)
        return out


def _pool_of(file: FileDescriptorProto, imports: Mapping[str, FileDescriptorProto]) -> DescriptorPool:
    pool = DescriptorPool()
    added: set[str] = set()

    def add(proto: FileDescriptorProto) -> None:
        if proto.name in added:
            return
        added.add(proto.name)
        for dep in proto.dependency:
            if dep in imports:
                add(imports[dep])
        pool.Add(proto)

    if _DESCRIPTOR_PROTO not in imports:
        reference = FileDescriptorProto()
        descriptor_pb2.DESCRIPTOR.CopyToProto(reference)
        add(reference)
    for proto in imports.values():
        add(proto)
    try:
        add(file)
    except (TypeError, ValueError) as exc:  # the pool refuses what protoc accepted: should not happen
        raise SchemaParseError(REFUSAL.format(f"cannot read the custom options: {exc}")) from None
    return pool


def render_value(field: FieldDescriptor, value: object) -> str:
    """One option value as `.proto` source: a message as an aggregate `{ ... }` in protobuf
    text format, an enum by name, a string quoted with C escapes."""
    if field.type in (FieldDescriptor.TYPE_MESSAGE, FieldDescriptor.TYPE_GROUP):
        body = text_format.MessageToString(value, as_one_line=True, as_utf8=True)
        return f"{{ {body} }}" if body else "{}"
    if field.type == FieldDescriptor.TYPE_ENUM:
        enum_value = field.enum_type.values_by_number.get(value)
        return enum_value.name if enum_value is not None else str(value)
    if field.type == FieldDescriptor.TYPE_BOOL:
        return "true" if value else "false"
    if field.type == FieldDescriptor.TYPE_STRING:
        return quote(value)
    if field.type == FieldDescriptor.TYPE_BYTES:
        return quote(value)
    if field.type in (FieldDescriptor.TYPE_DOUBLE, FieldDescriptor.TYPE_FLOAT):
        return float_text(value)
    return str(value)


def float_text(value: float) -> str:
    if math.isnan(value):
        return "nan"
    if math.isinf(value):
        return "inf" if value > 0 else "-inf"
    return repr(value)


def quote(value: str | bytes) -> str:
    """A protobuf string literal that protoc reads back as the same value: text keeps its
    UTF-8 characters, bytes get octal escapes for everything not printable ASCII."""
    return '"' + text_encoding.CEscape(value, as_utf8=isinstance(value, str)) + '"'
