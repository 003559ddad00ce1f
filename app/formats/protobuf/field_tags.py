"""`FieldTags` for Protobuf: the `tags` of a field's `(confluent.field_meta)` option.

The option is an extension of `FieldOptions` (number 1088, a `confluent.Meta` whose field 3
is `repeated string tags`) that the parsed descriptor keeps as extension bytes; they are read
from the option's wire form here rather than through a pool that knows the extension.
"""
from __future__ import annotations

from collections import deque

from google.protobuf.descriptor_pb2 import DescriptorProto, FileDescriptorProto

from app.formats.protobuf import wire

_FIELD_META = 1088
_META_TAGS = 3


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
    try:
        for option in wire.fields(options):
            if option.number == _FIELD_META and option.payload is not None:
                tags.extend(tag.payload.decode("utf-8", "replace") for tag in wire.fields(option.payload)
                            if tag.number == _META_TAGS and tag.payload is not None)
    except wire.Malformed:
        pass  # the options came from protoc, so only a bug gets here: the tags read so far stand
    return tuple(dict.fromkeys(tags))
