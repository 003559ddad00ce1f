"""Schema text in and out, byte for byte as Confluent's JSON Schema provider reads and prints it.

The canonical text is hashed into the schema's identity, so it must be what Confluent stores:
Jackson's compact output of the parsed tree, with object keys in the order given (duplicates:
the last value, at the first key's place). Confluent's mapper keeps numbers with a fraction or
an exponent as exact `BigDecimal`s, so `1.50` stays `1.50` and `1e5` prints as `1E+5`
(`BigDecimal.toString`, the same rules as Python's `Decimal.__str__`, except that a decimal
zero has no sign); `NaN` and `Infinity` are accepted and printed as strings. Strings are escaped
as Jackson does (control characters as upper-case `\\u00XX`, nothing else).

Reading keeps each such number's spelling (`JsonFloat`, a float that remembers its literal),
so the parsed document serves the checker as plain numbers and the writer as Jackson's text.
Every walk here recurses once per JSON level; `check_depth` bounds the levels first.
"""
from __future__ import annotations

import json
import math
from decimal import Decimal
from typing import Any

from app.formats import jackson, work_budget
from app.formats.json_schema.errors import InvalidJsonSchema

MAX_DOCUMENT_DEPTH = jackson.MAX_DOCUMENT_DEPTH
quote = jackson.quote


class JsonTextError(InvalidJsonSchema):
    """A text that is not a JSON document this module reads (malformed, or nested too deeply)."""


class JsonFloat(float):
    """A JSON number written with a fraction or an exponent: a float to compute with, and the
    literal it was written as, which the canonical text keeps."""

    __slots__ = ("literal",)

    def __new__(cls, literal: str) -> JsonFloat:
        number = super().__new__(cls, literal)
        number.literal = literal
        return number


def check_depth(text: str) -> None:
    """`JsonTextError` for a text nested deeper than `MAX_DOCUMENT_DEPTH`, without recursing."""
    if jackson.depth_exceeds(text, MAX_DOCUMENT_DEPTH):
        raise JsonTextError(f"Schema is nested more than {MAX_DOCUMENT_DEPTH} levels deep (JSON arrays and objects)")


def _constant(token: str) -> float:
    return float(token)  # NaN, Infinity, -Infinity: Jackson's ALLOW_NON_NUMERIC_NUMBERS


def loads(text: str) -> Any:
    """The JSON document in `text`; `JsonTextError` naming the problem."""
    check_depth(text)
    try:
        return json.loads(text, parse_float=JsonFloat, parse_constant=_constant)
    except ValueError as exc:
        raise JsonTextError(f"Invalid JSON schema: {exc}") from None


def _number(value: float) -> str:
    literal = getattr(value, "literal", None)
    if literal is not None:
        decimal = Decimal(literal)
        return str(abs(decimal) if decimal.is_zero() else decimal)
    if math.isfinite(value):
        return repr(value)
    return quote("NaN" if math.isnan(value) else "Infinity" if value > 0 else "-Infinity")


def dumps(value: Any) -> str:
    """Compact JSON of a parsed document, keys in their order, as Jackson prints it."""
    return jackson.dumps(value, _number)


def _utf16(key: str) -> bytes:
    """Java orders strings by UTF-16 code units; Python by code points (they differ above U+FFFF)."""
    return key.encode("utf-16-be", "surrogatepass")


def sorted_keys(value: Any) -> Any:
    """`value` with the keys of every object in it sorted, as Confluent's sorting mapper builds
    its tree (a `TreeMap` per object); arrays keep their order."""
    if isinstance(value, list):
        items = []
        for item in value:
            items.append(sorted_keys(item))
        return items
    if isinstance(value, dict):
        work_budget.check()
        members = {}
        for key in sorted(value, key=_utf16):
            members[key] = sorted_keys(value[key])
        return members
    return value
