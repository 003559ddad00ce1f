"""`FieldTags` for Protobuf: the `tags` of a field's `(confluent.field_meta)` option; and
`TaggedEntities`: those and a message's `(confluent.message_meta)` tags.

Both options are extensions (of `FieldOptions` and `MessageOptions`, number 1088 each, a
`confluent.Meta` whose field 3 is `repeated string tags`) that the parsed descriptor keeps as
extension bytes; they are read from the option's wire form here rather than through a pool
that knows the extension.
"""
from __future__ import annotations

from collections import deque

from google.protobuf.descriptor_pb2 import DescriptorProto, FileDescriptorProto

from app.formats.base import FIELD_ENTITY, RECORD_ENTITY, EntityTags
from app.formats.protobuf import wire

_FIELD_META = 1088  # and `message_meta`'s number too
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


def tagged_entities(file: FileDescriptorProto) -> list[EntityTags]:
    """Messages and fields named as Confluent names them here: by the message's name in its
    file (nested ones `Outer.Inner`), without the package, depth-first in declaration order."""
    found: list[EntityTags] = []
    pending: list[tuple[str, DescriptorProto]] = [(m.name, m) for m in reversed(file.message_type)]
    while pending:  # iterative: messages may nest deeply
        name, message = pending.pop()
        tags = _tags(message.options.SerializeToString()) if message.HasField("options") else ()
        if tags:
            found.append(EntityTags(name, RECORD_ENTITY, tags))
        for field in message.field:
            tags = _tags(field.options.SerializeToString()) if field.HasField("options") else ()
            if tags:
                found.append(EntityTags(f"{name}.{field.name}", FIELD_ENTITY, tags))
        pending.extend((f"{name}.{nested.name}", nested) for nested in reversed(message.nested_type))
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
