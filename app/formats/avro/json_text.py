"""JSON text exactly as Java Avro's Jackson generator prints it.

Canonical Avro text is hashed to give schema ids, so the bytes must match what the Java
registry stores: `app.formats.jackson` writes it, with Avro's numbers: doubles as Java's
`Double.toString` (`1.0E20`, where Python prints `1e+20`), non-finite ones as strings.
Reading is Python's decoder with Jackson's refusals, and a nesting bound checked first (the
decoder recurses per level; see `nesting`).
"""
from __future__ import annotations

import json
import math
from decimal import Decimal
from typing import Any

from app.formats import jackson
from app.formats.avro.nesting import check_document

quote = jackson.quote


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


def _number(value: float) -> str:
    """Jackson's double: `Double.toString`, non-finite ones as strings (WRITE_NAN_AS_STRINGS)."""
    return java_double(value) if math.isfinite(value) else quote(java_double(value))


def dumps(value: Any) -> str:
    """Compact JSON of a parsed JSON value, printed as Jackson prints the same tree."""
    return jackson.dumps(value, _number)
