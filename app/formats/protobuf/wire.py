"""Protobuf's wire format read without a descriptor: the fields of serialized bytes that
protoc wrote, for the two places that need no more than that (splitting a descriptor set
into its files' bytes, reading an extension a parsed descriptor keeps as unknown bytes).
"""
from __future__ import annotations

from collections.abc import Iterator
from typing import NamedTuple

_VARINT, _FIXED64, _LENGTH_DELIMITED, _FIXED32 = 0, 1, 2, 5


class Malformed(ValueError):
    """Bytes that are not a sequence of fields (cut short, or a wire type not read here)."""


class WireField(NamedTuple):
    """One field: its number, and its bytes when it is length-delimited (else None)."""

    number: int
    payload: bytes | None


def fields(data: bytes) -> Iterator[WireField]:
    """Each field of `data` in order; `Malformed` where the bytes stop making sense."""
    at = 0
    while at < len(data):
        key, at = _varint(data, at)
        number, wire = key >> 3, key & 7
        if wire == _LENGTH_DELIMITED:
            size, at = _varint(data, at)
            if at + size > len(data):
                raise Malformed("a length-delimited field runs past the end")
            yield WireField(number, data[at:at + size])
            at += size
        elif wire == _VARINT:
            _, at = _varint(data, at)
            yield WireField(number, None)
        elif wire in (_FIXED64, _FIXED32):
            at += 8 if wire == _FIXED64 else 4
            yield WireField(number, None)
        else:
            raise Malformed(f"wire type {wire} is not read here")


def _varint(data: bytes, at: int) -> tuple[int, int]:
    value = shift = 0
    while at < len(data):
        byte = data[at]
        at += 1
        value |= (byte & 0x7F) << shift
        if byte < 0x80:
            return value, at
        shift += 7
    raise Malformed("a varint is cut short")
