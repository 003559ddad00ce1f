"""The Protobuf message-index block: which message of the writer's file a record is.

A Protobuf schema is a whole `.proto` file, which may declare many messages, so Confluent's
Protobuf framing puts a path between the schema id and the payload: the index of a top-level
message, then the index of a nested message inside it, and so on (`Order.Line.Discount` in a
file whose second top-level message is `Order` is `[1, 0, 0]` when `Line` and `Discount` are
the first nested types). It is written as zig-zag varints, the count first; the path `[0]`,
by far the most common, is the single byte `0x00` (a count of zero means `[0]`).

Zig-zag for indexes that are never negative is what the Java and Python clients do, so the
bytes must follow it even though plain varints would be a byte shorter at times.
"""
from __future__ import annotations

from typing import Sequence

from google.protobuf.descriptor import Descriptor
from google.protobuf.descriptor_pb2 import FileDescriptorProto

from app.client.errors import SerializationError

FIRST_MESSAGE = b"\x00"


def _zigzag_varint(value: int) -> bytes:
    encoded = (value << 1) ^ (value >> 63)
    out = bytearray()
    while encoded > 0x7F:
        out.append((encoded & 0x7F) | 0x80)
        encoded >>= 7
    out.append(encoded)
    return bytes(out)


def encode_indexes(path: Sequence[int]) -> bytes:
    """The block for a message path; `[0]` (and the empty path, which readers take as `[0]`)
    is the one-byte shortcut."""
    if any(index < 0 for index in path):
        raise ValueError(f"message indexes are never negative: {list(path)}")
    if len(path) == 0 or list(path) == [0]:
        return FIRST_MESSAGE
    return _zigzag_varint(len(path)) + b"".join(_zigzag_varint(index) for index in path)


def _read_zigzag(data: bytes, offset: int) -> tuple[int, int]:
    """One zig-zag varint at `offset`: its value and the offset after it."""
    result = shift = 0
    while True:
        if offset >= len(data):
            raise SerializationError("the message-index block is cut short")
        byte = data[offset]
        offset += 1
        result |= (byte & 0x7F) << shift
        if not byte & 0x80:
            return (result >> 1) ^ -(result & 1), offset
        shift += 7
        if shift > 63:
            raise SerializationError("a message index is not a valid varint (more than 10 bytes)")


def decode_indexes(data: bytes, offset: int) -> tuple[tuple[int, ...], int]:
    """The message path written at `offset` and where the payload starts after it."""
    if offset < len(data) and data[offset] == 0:
        return (0,), offset + 1
    count, offset = _read_zigzag(data, offset)
    # Each index takes at least one byte: a count beyond what is left is corrupt data, and
    # refusing it here keeps a garbage count from allocating a huge path.
    if count < 0 or count > len(data) - offset:
        raise SerializationError(f"the message-index block announces {count} indexes, which the record cannot hold")
    path = []
    for _ in range(count):
        index, offset = _read_zigzag(data, offset)
        if index < 0:
            raise SerializationError(f"message index {index} is negative")
        path.append(index)
    return tuple(path), offset


def message_path(descriptor: Descriptor) -> tuple[int, ...]:
    """The index path of a message type in its file: its position among its parent's nested
    types at each level, ending with the top-level message's position in the file."""
    path: list[int] = []
    current = descriptor
    while current.containing_type is not None:
        parent = current.containing_type
        path.append(parent.nested_types.index(current))
        current = parent
    # The file's own declaration order, read from its descriptor proto: the order of a
    # `message_types_by_name` mapping is the runtime's business, not a documented promise.
    top_level = [message.name for message in FileDescriptorProto.FromString(current.file.serialized_pb).message_type]
    path.append(top_level.index(current.name))
    return tuple(reversed(path))
