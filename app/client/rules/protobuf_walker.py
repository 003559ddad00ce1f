"""Field walks over Protobuf messages, as Confluent's walk visits them.

A field's full name is its descriptor's (`pkg.Person.ssn`), its inline tags those of its
`(confluent.field_meta).tags` option. The option is read from the field options' wire bytes
(extension 1088, `confluent.Meta`, whose field 3 holds the tags), so no generated
`confluent/meta_pb2` is needed. A field with presence that is unset is not visited; repeated
fields and maps are visited element by element; nested messages are walked. The walk works
on a copy of the message on the way out (the producer's message stays as it was) and in
place on the way in (the message was just parsed).
"""
from __future__ import annotations

from functools import lru_cache
from typing import Any

from google.protobuf.descriptor import FieldDescriptor
from google.protobuf.message import Message

from app.client.rules.context import CONDITION, WRITE, FieldTransform, FieldType, RuleContext
from app.client.rules.executors import ConditionFailed

_FIELD_META = 1088
_TAGS = 3
_INTS = {FieldDescriptor.TYPE_INT32, FieldDescriptor.TYPE_SINT32, FieldDescriptor.TYPE_UINT32,
         FieldDescriptor.TYPE_FIXED32, FieldDescriptor.TYPE_SFIXED32}
_LONGS = {FieldDescriptor.TYPE_INT64, FieldDescriptor.TYPE_SINT64, FieldDescriptor.TYPE_UINT64,
          FieldDescriptor.TYPE_FIXED64, FieldDescriptor.TYPE_SFIXED64}
_SIMPLE = {FieldDescriptor.TYPE_STRING: FieldType.STRING, FieldDescriptor.TYPE_BYTES: FieldType.BYTES,
           FieldDescriptor.TYPE_FLOAT: FieldType.FLOAT, FieldDescriptor.TYPE_DOUBLE: FieldType.DOUBLE,
           FieldDescriptor.TYPE_BOOL: FieldType.BOOLEAN, FieldDescriptor.TYPE_ENUM: FieldType.ENUM}


def _is_map(fd: FieldDescriptor) -> bool:
    return (fd.type == FieldDescriptor.TYPE_MESSAGE and fd.is_repeated
            and fd.message_type.GetOptions().map_entry)


def type_of(fd: FieldDescriptor) -> FieldType:
    if _is_map(fd):
        return FieldType.MAP
    if fd.type == FieldDescriptor.TYPE_MESSAGE:
        return FieldType.RECORD
    if fd.type in _INTS:
        return FieldType.INT
    if fd.type in _LONGS:
        return FieldType.LONG
    return _SIMPLE.get(fd.type, FieldType.NULL)


def _varint(data: bytes, at: int) -> tuple[int, int]:
    value = shift = 0
    while True:
        if at >= len(data):
            raise ValueError("truncated varint")
        byte = data[at]
        at += 1
        value |= (byte & 0x7F) << shift
        shift += 7
        if not byte & 0x80:
            return value, at


def _fields(data: bytes) -> list[tuple[int, bytes]]:
    """The length-delimited fields of a message's wire bytes, as (number, bytes); others skipped."""
    out: list[tuple[int, bytes]] = []
    at = 0
    while at < len(data):
        key, at = _varint(data, at)
        number, wire = key >> 3, key & 7
        if wire == 0:
            _, at = _varint(data, at)
        elif wire == 1:
            at += 8
        elif wire == 5:
            at += 4
        elif wire == 2:
            size, at = _varint(data, at)
            out.append((number, data[at:at + size]))
            at += size
        else:
            raise ValueError(f"unsupported wire type {wire}")
    return out


@lru_cache(maxsize=4096)
def _tags_of(options: bytes) -> frozenset[str]:
    try:
        return frozenset(tag.decode("utf-8") for number, meta in _fields(options) if number == _FIELD_META
                         for tag_number, tag in _fields(meta) if tag_number == _TAGS)
    except (ValueError, UnicodeDecodeError):
        return frozenset()


def inline_tags(fd: FieldDescriptor) -> frozenset[str]:
    if not fd.has_options:
        return frozenset()
    return _tags_of(fd.GetOptions().SerializeToString())


class ProtobufWalker:
    """Walks messages of any type (each message carries its descriptor)."""

    def walk(self, ctx: RuleContext, message: Any, transform: FieldTransform) -> Any:
        if not isinstance(message, Message):
            return message
        if ctx.mode == WRITE:
            copy = type(message)()
            copy.CopyFrom(message)
            message = copy
        self._message(ctx, message, transform)
        return message

    def _message(self, ctx: RuleContext, message: Message, transform: FieldTransform) -> None:
        for fd in message.DESCRIPTOR.fields:
            if fd.has_presence and not message.HasField(fd.name):
                continue
            ctx.enter_field(message, fd.full_name, fd.name, type_of(fd), inline_tags(fd))
            try:
                self._field(ctx, message, fd, transform)
            finally:
                ctx.exit_field()

    def _field(self, ctx: RuleContext, message: Message, fd: FieldDescriptor, transform: FieldTransform) -> None:
        value = getattr(message, fd.name)
        if _is_map(fd):
            value_fd = fd.message_type.fields_by_name["value"]
            if value_fd.type == FieldDescriptor.TYPE_MESSAGE:
                for item in value.values():
                    self._message(ctx, item, transform)
            else:
                changed = {key: self._leaf(ctx, value[key], transform) for key in value}
                if ctx.rule.kind != CONDITION:
                    value.clear()
                    value.update(changed)
            return
        if fd.type == FieldDescriptor.TYPE_MESSAGE:
            for item in (value if fd.is_repeated else (value,)):
                self._message(ctx, item, transform)
            return
        if fd.is_repeated:
            changed_items = [self._leaf(ctx, item, transform) for item in value]
            if ctx.rule.kind != CONDITION:
                del value[:]
                value.extend(changed_items)
            return
        changed = self._leaf(ctx, value, transform)
        if ctx.rule.kind != CONDITION and changed is not value:
            setattr(message, fd.name, changed)

    def _leaf(self, ctx: RuleContext, value: Any, transform: FieldTransform) -> Any:
        current = ctx.current_field()
        if current is None or not ctx.selects(current):
            return value
        changed = transform(ctx, current, value)
        if ctx.rule.kind == CONDITION and changed is False:
            raise ConditionFailed(f"field {current.full_name}: {ctx.rule.expr}")
        return changed
