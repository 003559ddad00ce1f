"""`FieldTags` for Protobuf: the `tags` of a field's `(confluent.field_meta)` option.

The option is an extension of `FieldOptions` (number 1088, a `confluent.Meta` whose field 3
is `repeated string tags`) that the parsed descriptor keeps as extension bytes; they are read
from the option's wire form here rather than through a pool that knows the extension.
"""
from __future__ import annotations

from collections import deque
from collections.abc import Iterator

from google.protobuf.descriptor_pb2 import DescriptorProto, FileDescriptorProto

_FIELD_META = 1088
_META_TAGS = 3
_LENGTH_DELIMITED, _VARINT, _FIXED64, _FIXED32 = 2, 0, 1, 5


def field_tags(file: FileDescriptorProto) -> dict[str, tuple[str, ...]]:
    """`message full name.field` -> tags, messages in declaration order, nested ones after."""
    found: dict[str, tuple[str, ...]] = {}
    prefix = f"{file.package}." if file.package else ""
    pending: deque[tuple[str, DescriptorProto]] = deque((prefix + m.name, m) for m in file.message_type)
    while pending:
        name, message = pending.popleft()
        for field in message.field:
            tags = _tags(field.options.SerializeToString()) if field.HasField("options") else ()
            if tags:
                found[f"{name}.{field.name}"] = tags
        pending.extend((f"{name}.{nested.name}", nested) for nested in message.nested_type)
    return found


def _tags(options: bytes) -> tuple[str, ...]:
    tags: list[str] = []
    for number, payload in _fields(options):
        if number == _FIELD_META and payload is not None:
            tags.extend(value.decode("utf-8", "replace") for tag, value in _fields(payload)
                        if tag == _META_TAGS and value is not None)
    return tuple(dict.fromkeys(tags))


def _fields(data: bytes) -> Iterator[tuple[int, bytes | None]]:
    """(field number, bytes of a length-delimited value or None) for each field in `data`;
    stops at anything malformed (the options came from protoc, so only a bug would see it)."""
    position = 0
    while position < len(data):
        key, position = _varint(data, position)
        number, wire = key >> 3, key & 7
        if wire == _LENGTH_DELIMITED:
            size, position = _varint(data, position)
            yield number, data[position:position + size]
            position += size
        elif wire == _VARINT:
            _, position = _varint(data, position)
            yield number, None
        elif wire in (_FIXED64, _FIXED32):
            position += 8 if wire == _FIXED64 else 4
            yield number, None
        else:
            return


def _varint(data: bytes, position: int) -> tuple[int, int]:
    value, shift = 0, 0
    while position < len(data):
        byte = data[position]
        position += 1
        value |= (byte & 0x7F) << shift
        if not byte & 0x80:
            break
        shift += 7
    return value, position
