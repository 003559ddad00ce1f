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
from typing import Any

from app.fingerprinting.java_numbers import java_double_text
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


def _number(value: float) -> str:
    """Jackson's double: `Double.toString`, non-finite ones as strings (WRITE_NAN_AS_STRINGS)."""
    return java_double_text(value) if math.isfinite(value) else quote(java_double_text(value))


def dumps(value: Any) -> str:
    """Compact JSON of a parsed JSON value, printed as Jackson prints the same tree."""
    return jackson.dumps(value, _number)
