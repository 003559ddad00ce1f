"""The Variant binary encoding (Parquet's and Spark's semi-structured type): a metadata
dictionary of the object keys, and a self-describing value whose objects name their keys by
dictionary id. Confluent's data contracts carry it as `confluent.type.Variant` (Protobuf) and
as an Avro record `{metadata: bytes, value: bytes}` of logical type `variant`; CEL rules read it
through `app.client.rules.cel_variants`.

Written from the published encoding, not from another implementation. What it writes from
JSON is what Spark's `parse_json` writes (smallest integer width, field data in the order
written, keys in first-seen order), except that a JSON number with a fraction or an exponent
is a DOUBLE, as in Confluent's clients (Spark may write a decimal), so that
`variants.type(variants.parseJson("1.5"))` is `"double"` in every client. Its JSON is
Confluent's canonical form: compact, keys in the stored (sorted) order, doubles as Java prints
them, decimals in plain notation, temporal values in ISO-8601 with the seconds always there.

A value read from elsewhere is checked as it is read: every offset within its buffer, and no
byte read as a value twice when a whole value is walked (offsets that share data could make a
few kilobytes render as gigabytes), so that a walk costs time in proportion to the bytes.
"""
from __future__ import annotations

import base64
import datetime
import json
import math
import struct
import uuid
from decimal import Decimal
from enum import Enum
from typing import Any, Iterator

from app.fingerprinting.java_numbers import java_double_text

# Basic types (the header's low two bits) and primitive type ids (its upper six bits).
_PRIMITIVE, _SHORT_STRING, _OBJECT, _ARRAY = 0, 1, 2, 3
_NULL, _TRUE, _FALSE, _INT8, _INT16, _INT32, _INT64, _DOUBLE = 0, 1, 2, 3, 4, 5, 6, 7
_DECIMAL4, _DECIMAL8, _DECIMAL16, _DATE, _TIMESTAMP, _TIMESTAMP_NTZ, _FLOAT = 8, 9, 10, 11, 12, 13, 14
_BINARY, _LONG_STRING, _TIME, _TIMESTAMP_NANOS, _TIMESTAMP_NANOS_NTZ, _UUID = 15, 16, 17, 18, 19, 20
_VERSION = 1
_MAX_SHORT_STRING = 63
_MAX_DECIMAL_DIGITS = 38
# What one encoded value or metadata may weigh (Spark's limit for a variant).
SIZE_LIMIT = 16 * 1024 * 1024
_EPOCH_DAY = datetime.date(1970, 1, 1).toordinal()
_EPOCH = datetime.datetime(1970, 1, 1)


class VariantError(ValueError):
    """A value that is not a well-formed variant, or JSON that cannot become one."""


class VariantKind(str, Enum):
    """A value's exact type (the widths apart, as the encoding keeps them)."""

    OBJECT = "OBJECT"
    ARRAY = "ARRAY"
    NULL = "NULL"
    BOOLEAN = "BOOLEAN"
    BYTE = "BYTE"
    SHORT = "SHORT"
    INT = "INT"
    LONG = "LONG"
    STRING = "STRING"
    DOUBLE = "DOUBLE"
    DECIMAL4 = "DECIMAL4"
    DECIMAL8 = "DECIMAL8"
    DECIMAL16 = "DECIMAL16"
    DATE = "DATE"
    TIMESTAMP_TZ = "TIMESTAMP_TZ"
    TIMESTAMP_NTZ = "TIMESTAMP_NTZ"
    FLOAT = "FLOAT"
    BINARY = "BINARY"
    TIME = "TIME"
    TIMESTAMP_NANOS_TZ = "TIMESTAMP_NANOS_TZ"
    TIMESTAMP_NANOS_NTZ = "TIMESTAMP_NANOS_NTZ"
    UUID = "UUID"


_PRIMITIVE_KINDS = {
    _NULL: VariantKind.NULL, _TRUE: VariantKind.BOOLEAN, _FALSE: VariantKind.BOOLEAN, _INT8: VariantKind.BYTE,
    _INT16: VariantKind.SHORT, _INT32: VariantKind.INT, _INT64: VariantKind.LONG, _DOUBLE: VariantKind.DOUBLE,
    _DECIMAL4: VariantKind.DECIMAL4, _DECIMAL8: VariantKind.DECIMAL8, _DECIMAL16: VariantKind.DECIMAL16,
    _DATE: VariantKind.DATE, _TIMESTAMP: VariantKind.TIMESTAMP_TZ, _TIMESTAMP_NTZ: VariantKind.TIMESTAMP_NTZ,
    _FLOAT: VariantKind.FLOAT, _BINARY: VariantKind.BINARY, _LONG_STRING: VariantKind.STRING,
    _TIME: VariantKind.TIME, _TIMESTAMP_NANOS: VariantKind.TIMESTAMP_NANOS_TZ,
    _TIMESTAMP_NANOS_NTZ: VariantKind.TIMESTAMP_NANOS_NTZ, _UUID: VariantKind.UUID,
}
# The widths of the signed little-endian integers that follow a header.
_FIXED = {_INT8: 1, _INT16: 2, _INT32: 4, _INT64: 8, _DATE: 4, _TIMESTAMP: 8, _TIMESTAMP_NTZ: 8, _TIME: 8,
          _TIMESTAMP_NANOS: 8, _TIMESTAMP_NANOS_NTZ: 8}
_DECIMAL_WIDTHS = {_DECIMAL4: 4, _DECIMAL8: 8, _DECIMAL16: 16}


def _uint(buffer: bytes, at: int, size: int, what: str) -> int:
    if at < 0 or at + size > len(buffer):
        raise VariantError(f"malformed variant: {what} at byte {at} is past the end ({len(buffer)} bytes)")
    return int.from_bytes(buffer[at:at + size], "little")


def _int(buffer: bytes, at: int, size: int, what: str) -> int:
    raw = _uint(buffer, at, size, what)
    return raw - (1 << (8 * size)) if raw >> (8 * size - 1) else raw


class Variant:
    """One value of a variant: the encoded value (`value`, read from `pos`) and the metadata
    that names its object keys. Navigation gives sub-variants over the same buffers."""

    __slots__ = ("value", "metadata", "pos")

    def __init__(self, value: bytes, metadata: bytes, pos: int = 0) -> None:
        self.value, self.metadata, self.pos = bytes(value), bytes(metadata), pos
        if not self.metadata:
            raise VariantError("malformed variant: the metadata is empty")
        if self.metadata[0] & 0x0F != _VERSION:
            raise VariantError(f"unsupported variant metadata version {self.metadata[0] & 0x0F}")
        if not 0 <= pos < len(self.value):
            raise VariantError("malformed variant: the value is empty")

    def __eq__(self, other: object) -> bool:
        """The same metadata and value bytes (what a writer would write for each)."""
        if not isinstance(other, Variant):
            return NotImplemented
        return self.metadata == other.metadata and self.value_bytes() == other.value_bytes()

    def __hash__(self) -> int:
        return hash((self.metadata, self.value_bytes()))

    def __repr__(self) -> str:
        return f"Variant({self.kind().value}, {len(self.value) - self.pos} value bytes)"

    def value_bytes(self) -> bytes:
        """The value's bytes from its start to the end of the buffer, as Confluent's clients
        write a navigated value back (its later siblings' bytes ride along, unread)."""
        return self.value[self.pos:] if self.pos else self.value

    # ------------------------------------------------------------------ types
    def _header(self) -> tuple[int, int]:
        header = self.value[self.pos]
        return header & 0x03, header >> 2

    def kind(self) -> VariantKind:
        basic, info = self._header()
        if basic == _SHORT_STRING:
            return VariantKind.STRING
        if basic == _OBJECT:
            return VariantKind.OBJECT
        if basic == _ARRAY:
            return VariantKind.ARRAY
        found = _PRIMITIVE_KINDS.get(info)
        if found is None:
            raise VariantError(f"malformed variant: unknown primitive type {info}")
        return found

    # ------------------------------------------------------------------ scalars
    def scalar(self) -> Any:
        """A scalar's value: None, bool, int (also for DATE in days, TIME in micros, and
        timestamps in micros or nanos since the epoch), float, Decimal, str, bytes or UUID."""
        basic, info = self._header()
        at = self.pos + 1
        if basic == _SHORT_STRING:
            return self._text(at, info)
        if basic != _PRIMITIVE:
            raise VariantError(f"a variant {self.kind().value} is not a scalar")
        if info == _NULL:
            return None
        if info in (_TRUE, _FALSE):
            return info == _TRUE
        if info in _FIXED:
            return _int(self.value, at, _FIXED[info], "an integer")
        if info == _DOUBLE:
            return struct.unpack("<d", self._bytes(at, 8))[0]
        if info == _FLOAT:
            return struct.unpack("<f", self._bytes(at, 4))[0]
        if info in _DECIMAL_WIDTHS:
            scale = _uint(self.value, at, 1, "a decimal's scale")
            unscaled = _int(self.value, at + 1, _DECIMAL_WIDTHS[info], "a decimal")
            if scale > _MAX_DECIMAL_DIGITS or len(str(abs(unscaled))) > _MAX_DECIMAL_DIGITS:
                raise VariantError(f"malformed variant: decimal {unscaled}e-{scale} is past 38 digits")
            return Decimal(f"{unscaled}E-{scale}")
        if info in (_BINARY, _LONG_STRING):
            size = _uint(self.value, at, 4, "a length")
            return self._text(at + 4, size) if info == _LONG_STRING else self._bytes(at + 4, size)
        if info == _UUID:
            return uuid.UUID(bytes=self._bytes(at, 16))
        raise VariantError(f"malformed variant: unknown primitive type {info}")

    def _bytes(self, at: int, size: int) -> bytes:
        if at + size > len(self.value):
            raise VariantError(f"malformed variant: {size} bytes at byte {at} run past the end")
        return self.value[at:at + size]

    def _text(self, at: int, size: int) -> str:
        try:
            return self._bytes(at, size).decode("utf-8")
        except UnicodeDecodeError:
            raise VariantError("malformed variant: a string is not UTF-8") from None

    # ------------------------------------------------------------------ containers
    def _layout(self) -> tuple[int, int, int, int, int]:
        """An object's or array's (count, id list start, id size, offset list start, offset size);
        also where its data starts: offset list start + (count + 1) * offset size."""
        basic, info = self._header()
        offset_size = (info & 0x03) + 1
        if basic == _OBJECT:
            id_size, large = ((info >> 2) & 0x03) + 1, (info >> 4) & 1
        else:
            id_size, large = 0, (info >> 2) & 1
        count_size = 4 if large else 1
        count = _uint(self.value, self.pos + 1, count_size, "an element count")
        ids = self.pos + 1 + count_size
        offsets = ids + count * id_size
        if offsets + (count + 1) * offset_size > len(self.value):
            raise VariantError(f"malformed variant: {count} elements do not fit in {len(self.value)} bytes")
        return count, ids, id_size, offsets, offset_size

    def _child(self, offsets: int, offset_size: int, count: int, index: int) -> Variant:
        start = offsets + (count + 1) * offset_size
        at = start + _uint(self.value, offsets + index * offset_size, offset_size, "an offset")
        if at >= len(self.value):
            raise VariantError(f"malformed variant: an element at byte {at} is past the end")
        child = Variant.__new__(Variant)
        child.value, child.metadata, child.pos = self.value, self.metadata, at
        return child

    def _key(self, key_id: int) -> str:
        metadata = self.metadata
        offset_size = ((metadata[0] >> 6) & 0x03) + 1
        size = _uint(metadata, 1, offset_size, "the dictionary size")
        if key_id >= size:
            raise VariantError(f"malformed variant: key id {key_id} is not in a dictionary of {size}")
        table = 1 + offset_size
        strings = table + (size + 1) * offset_size
        start = strings + _uint(metadata, table + key_id * offset_size, offset_size, "a key offset")
        end = strings + _uint(metadata, table + (key_id + 1) * offset_size, offset_size, "a key offset")
        if not start <= end <= len(metadata):
            raise VariantError(f"malformed variant: key {key_id} lies outside the metadata")
        try:
            return metadata[start:end].decode("utf-8")
        except UnicodeDecodeError:
            raise VariantError("malformed variant: a key is not UTF-8") from None

    def fields(self) -> Iterator[tuple[str, Variant]]:
        """An object's fields in stored order (sorted by key, as the encoding requires)."""
        if self.kind() != VariantKind.OBJECT:
            raise VariantError(f"a variant {self.kind().value} has no fields")
        count, ids, id_size, offsets, offset_size = self._layout()
        for index in range(count):
            key = self._key(_uint(self.value, ids + index * id_size, id_size, "a key id"))
            yield key, self._child(offsets, offset_size, count, index)

    def field(self, key: str) -> Variant | None:
        """An object's field, None when it has none of that name or is no object (by binary
        search over the sorted keys)."""
        if self.kind() != VariantKind.OBJECT:
            return None
        count, ids, id_size, offsets, offset_size = self._layout()
        wanted = key.encode("utf-8", "surrogatepass")
        low, high = 0, count - 1
        while low <= high:
            middle = (low + high) // 2
            found = self._key(_uint(self.value, ids + middle * id_size, id_size, "a key id"))
            encoded = found.encode("utf-8")
            if encoded == wanted:
                return self._child(offsets, offset_size, count, middle)
            if encoded < wanted:
                low = middle + 1
            else:
                high = middle - 1
        return None

    def elements(self) -> Iterator[Variant]:
        if self.kind() != VariantKind.ARRAY:
            raise VariantError(f"a variant {self.kind().value} has no elements")
        count, _, _, offsets, offset_size = self._layout()
        for index in range(count):
            yield self._child(offsets, offset_size, count, index)

    def element(self, index: int) -> Variant | None:
        """An array's element, None when the index is out of its bounds or it is no array."""
        if self.kind() != VariantKind.ARRAY:
            return None
        count, _, _, offsets, offset_size = self._layout()
        if not 0 <= index < count:
            return None
        return self._child(offsets, offset_size, count, index)

    # ------------------------------------------------------------------ JSON
    def to_json(self) -> str:
        """Confluent's canonical JSON of the value."""
        out: list[str] = []
        budget = [len(self.value) - self.pos]
        try:
            _render(self, out, budget)
        except RecursionError:
            raise VariantError("variant nested too deeply to render") from None
        return "".join(out)


def _render(variant: Variant, out: list[str], budget: list[int]) -> None:
    budget[0] -= 1
    if budget[0] < 0:  # more values than bytes: offsets that share data
        raise VariantError("malformed variant: its offsets read the same bytes more than once")
    kind = variant.kind()
    if kind == VariantKind.OBJECT:
        out.append("{")
        for index, (key, child) in enumerate(variant.fields()):
            out.append(("," if index else "") + _quote(key) + ":")
            _render(child, out, budget)
        out.append("}")
    elif kind == VariantKind.ARRAY:
        out.append("[")
        for index, child in enumerate(variant.elements()):
            if index:
                out.append(",")
            _render(child, out, budget)
        out.append("]")
    else:
        out.append(_scalar_json(kind, variant.scalar()))


def _scalar_json(kind: VariantKind, value: Any) -> str:
    if kind == VariantKind.NULL:
        return "null"
    if kind == VariantKind.BOOLEAN:
        return "true" if value else "false"
    if kind in (VariantKind.BYTE, VariantKind.SHORT, VariantKind.INT, VariantKind.LONG):
        return str(value)
    if kind in (VariantKind.DOUBLE, VariantKind.FLOAT):
        if math.isnan(value) or math.isinf(value):  # Jackson quotes what JSON has no number for
            return '"NaN"' if math.isnan(value) else ('"Infinity"' if value > 0 else '"-Infinity"')
        return java_double_text(value, single=kind == VariantKind.FLOAT)
    if kind in (VariantKind.DECIMAL4, VariantKind.DECIMAL8, VariantKind.DECIMAL16):
        return format(value, "f")
    if kind == VariantKind.STRING:
        return _quote(value)
    if kind == VariantKind.BINARY:
        return _quote(base64.b64encode(value).decode("ascii"))
    if kind == VariantKind.UUID:
        return _quote(str(value))
    return _quote(_temporal_text(kind, value))


def _temporal_text(kind: VariantKind, value: int) -> str:
    """ISO-8601 as java.time prints it, the seconds always present and the fraction in groups
    of three digits (none, millis, micros or nanos)."""
    try:
        if kind == VariantKind.DATE:
            return datetime.date.fromordinal(_EPOCH_DAY + value).isoformat()
        nanos = value if kind in (VariantKind.TIMESTAMP_NANOS_TZ, VariantKind.TIMESTAMP_NANOS_NTZ) else value * 1000
        seconds, fraction = divmod(nanos, 1_000_000_000)
        if kind == VariantKind.TIME:
            if not 0 <= seconds < 86_400:
                raise VariantError(f"malformed variant: time of day {value} micros")
            return f"{seconds // 3600:02d}:{seconds // 60 % 60:02d}:{seconds % 60:02d}{_fraction(fraction)}"
        moment = _EPOCH + datetime.timedelta(seconds=seconds)
    except (OverflowError, ValueError):
        raise VariantError(f"variant {kind.value} {value} is outside the years 1 to 9999") from None
    zone = "Z" if kind in (VariantKind.TIMESTAMP_TZ, VariantKind.TIMESTAMP_NANOS_TZ) else ""
    return f"{moment.year:04d}-{moment:%m-%dT%H:%M:%S}{_fraction(fraction)}{zone}"


def _fraction(nanos: int) -> str:
    if not nanos:
        return ""
    if nanos % 1_000_000 == 0:
        return f".{nanos // 1_000_000:03d}"
    if nanos % 1_000 == 0:
        return f".{nanos // 1_000:06d}"
    return f".{nanos:09d}"


_ESCAPES = {'"': '\\"', "\\": "\\\\", "\b": "\\b", "\f": "\\f", "\n": "\\n", "\r": "\\r", "\t": "\\t"}


def _quote(text: str) -> str:
    """A JSON string as Jackson writes it: other control characters as uppercase \\u00XX."""
    return '"' + "".join(_ESCAPES.get(char) or (f"\\u{ord(char):04X}" if char < " " else char) for char in text) + '"'


# ---------------------------------------------------------------------- writing
def parse_json(text: str) -> Variant:
    """The variant of a JSON text: strict JSON (no NaN, no trailing data); a duplicate key
    keeps its last value."""
    try:
        parsed = json.loads(text, parse_constant=_refuse_constant)
    except RecursionError:
        raise VariantError("cannot parse JSON for variant: nested too deeply") from None
    except ValueError as exc:
        raise VariantError(f"cannot parse JSON for variant: {exc}") from None
    return _Writer().build(parsed)


def _refuse_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


class _Writer:
    """Writes one value and the dictionary of its keys."""

    def __init__(self) -> None:
        self.out = bytearray()
        self.keys: dict[str, int] = {}

    def build(self, parsed: Any) -> Variant:
        try:
            self._write(parsed)
        except RecursionError:
            raise VariantError("cannot encode a variant nested this deeply") from None
        return Variant(bytes(self.out), self._metadata())

    def _metadata(self) -> bytes:
        try:
            encoded = [key.encode("utf-8") for key in self.keys]
        except UnicodeEncodeError:
            raise VariantError("cannot encode a key with a lone surrogate in a variant") from None
        total = sum(len(key) for key in encoded)
        _check_size(total)
        size = _width(max(total, len(encoded)))
        out = bytearray([_VERSION | ((size - 1) << 6)])
        out += len(encoded).to_bytes(size, "little")
        at = 0
        for key in encoded:
            out += at.to_bytes(size, "little")
            at += len(key)
        out += at.to_bytes(size, "little")
        for key in encoded:
            out += key
        _check_size(len(out))
        return bytes(out)

    def _write(self, node: Any) -> None:
        out = self.out
        _check_size(len(out))
        if node is None:
            out.append(_NULL << 2)
        elif node is True or node is False:
            out.append((_TRUE if node else _FALSE) << 2)
        elif isinstance(node, int):
            self._integer(node)
        elif isinstance(node, float):
            out.append(_DOUBLE << 2)
            out += struct.pack("<d", node)
        elif isinstance(node, str):
            try:
                text = node.encode("utf-8")
            except UnicodeEncodeError:
                raise VariantError("cannot encode a string with a lone surrogate in a variant") from None
            if len(text) <= _MAX_SHORT_STRING:
                out.append(len(text) << 2 | _SHORT_STRING)
            else:
                out.append(_LONG_STRING << 2)
                out += len(text).to_bytes(4, "little")
            out += text
        elif isinstance(node, list):
            start, offsets = len(out), []
            for item in node:
                offsets.append(len(out) - start)
                self._write(item)
            self._close(start, offsets, None)
        elif isinstance(node, dict):
            start, entries = len(out), []
            for key, item in node.items():
                key_id = self.keys.setdefault(key, len(self.keys))
                entries.append((key, key_id, len(out) - start))
                self._write(item)
            entries.sort()
            self._close(start, [offset for _, _, offset in entries], [key_id for _, key_id, _ in entries])
        else:
            raise VariantError(f"cannot encode a {type(node).__name__} in a variant")

    def _integer(self, number: int) -> None:
        for kind, width in ((_INT8, 1), (_INT16, 2), (_INT32, 4), (_INT64, 8)):
            if -(1 << (8 * width - 1)) <= number < 1 << (8 * width - 1):
                self.out.append(kind << 2)
                self.out += number.to_bytes(width, "little", signed=True)
                return
        if len(str(abs(number))) <= _MAX_DECIMAL_DIGITS:  # past 64 bits: a decimal of scale 0
            self.out += bytes([_DECIMAL16 << 2, 0]) + number.to_bytes(16, "little", signed=True)
        else:
            self.out.append(_DOUBLE << 2)
            self.out += struct.pack("<d", float(number))

    def _close(self, start: int, offsets: list[int], key_ids: list[int] | None) -> None:
        """An array's or object's header, put before the data written since `start`."""
        out = self.out
        count, data_size = len(offsets), len(out) - start
        large = count > 0xFF
        offset_size = _width(data_size)
        header = bytearray()
        if key_ids is None:
            header.append((int(large) << 4) | ((offset_size - 1) << 2) | _ARRAY)
        else:
            id_size = _width(max(key_ids, default=0))
            header.append((int(large) << 6) | ((id_size - 1) << 4) | ((offset_size - 1) << 2) | _OBJECT)
        header += count.to_bytes(4 if large else 1, "little")
        if key_ids is not None:
            for key_id in key_ids:
                header += key_id.to_bytes(id_size, "little")
        for offset in offsets + [data_size]:
            header += offset.to_bytes(offset_size, "little")
        out[start:start] = header


def _width(value: int) -> int:
    """Bytes for an unsigned offset or id up to `value` (1, 2 or 3)."""
    return 1 if value <= 0xFF else (2 if value <= 0xFFFF else 3)


def _check_size(size: int) -> None:
    if size > SIZE_LIMIT:
        raise VariantError(f"a variant may not exceed {SIZE_LIMIT} bytes")
