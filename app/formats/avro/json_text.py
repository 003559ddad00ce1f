"""JSON text exactly as Java Avro's Jackson generator prints it.

Canonical Avro text is hashed to give schema ids, so the bytes must match what the Java
registry stores: Jackson escapes control characters as upper-case `\\u00XX` (Python: lower
case), prints doubles with `Double.toString` (`1.0E20`, where Python prints `1e+20`) and writes
non-finite doubles as strings. Everything else (compact separators, raw non-ASCII) agrees.
Reading is Python's decoder with Jackson's refusals, and a nesting bound checked first (the
decoder recurses per level; see `nesting`).
"""
from __future__ import annotations

import json
import math
from decimal import Decimal
from typing import Any

from app.formats.avro.nesting import check_document

_SHORT_ESCAPES = {'"': '\\"', "\\": "\\\\", "\b": "\\b", "\t": "\\t", "\n": "\\n", "\f": "\\f", "\r": "\\r"}
_ESCAPES = {code: f"\\u{code:04X}" for code in range(0x20)}
_ESCAPES.update({ord(ch): text for ch, text in _SHORT_ESCAPES.items()})


class _RejectConstant(ValueError):
    pass


def _reject_constant(token: str) -> Any:
    """Jackson refuses NaN/Infinity tokens by default; Python's json accepts them."""
    raise _RejectConstant(f"Non-standard token '{token}'")


def loads(text: str) -> Any:
    """Parse strict JSON (no NaN/Infinity literals), keeping object key order; `NestingTooDeep`
    for a text nested deeper than the registry walks."""
    check_document(text)
    return json.loads(text, parse_constant=_reject_constant)


def quote(text: str) -> str:
    return '"' + text.translate(_ESCAPES) + '"'


def java_double(value: float) -> str:
    """`Double.toString`: plain notation in [1e-3, 1e7), else `d.dddE±n`, always a fraction digit."""
    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return "Infinity" if value > 0 else "-Infinity"
    if value == 0.0:
        return "-0.0" if math.copysign(1.0, value) < 0 else "0.0"
    sign, digits, exponent = Decimal(repr(value)).as_tuple()
    text = "".join(map(str, digits)).rstrip("0") or "0"
    point = len(digits) + int(exponent)  # position of the decimal point within `text`
    prefix = "-" if sign else ""
    if 1e-3 <= abs(value) < 1e7:
        if point <= 0:
            return f"{prefix}0.{'0' * -point}{text}"
        if point >= len(text):
            return f"{prefix}{text}{'0' * (point - len(text))}.0"
        return f"{prefix}{text[:point]}.{text[point:]}"
    fraction = text[1:] or "0"
    return f"{prefix}{text[0]}.{fraction}E{point - 1}"


def dumps(value: Any) -> str:
    """Compact JSON of a parsed JSON value, printed as Jackson prints the same tree."""
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, str):
        return quote(value)
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if math.isfinite(value):
            return java_double(value)
        return quote(java_double(value))  # Jackson's WRITE_NAN_AS_STRINGS default
    # loops, not generators, below: one frame per level of nesting, not two (see `nesting`)
    if isinstance(value, list):
        items = []
        for item in value:
            items.append(dumps(item))
        return "[" + ",".join(items) + "]"
    if isinstance(value, dict):
        members = []
        for key, item in value.items():
            members.append(quote(key) + ":" + dumps(item))
        return "{" + ",".join(members) + "}"
    raise TypeError(f"not a JSON value: {value!r}")
