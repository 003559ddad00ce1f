"""JSON text as Java's Jackson writes it, for the formats whose schemas are JSON documents.

Confluent's registry stores and hashes the text Jackson prints from the parsed schema, so Avro
and JSON Schema both print parsed documents byte for byte as Jackson does: compact, object
keys in their order, control characters escaped as upper-case `\\u00XX`, everything else raw.
They differ only in numbers (Avro prints doubles with Java's `Double.toString`, JSON Schema
keeps the `BigDecimal` a number was written as), so each passes its own number printer.

Reading and writing recurse once per JSON level, and Python stops at 1,000 frames: a text's
depth is therefore measured first, without recursion (`depth_exceeds`).
"""
from __future__ import annotations

import re
from collections.abc import Callable
from json.encoder import encode_basestring  # type: ignore[attr-defined]
from typing import Any

# How many JSON arrays and objects may nest in one schema text: the decoder and the writer
# take a frame per level, and the bound keeps them far from Python's 1,000-frame limit.
MAX_DOCUMENT_DEPTH = 200

_STRING = re.compile(r'"(?:[^"\\]|\\.)*"')
_BRACKET = re.compile(r"[\[\]{}]")
_SHORT_ESCAPES = {'"': '\\"', "\\": "\\\\", "\b": "\\b", "\t": "\\t", "\n": "\\n", "\f": "\\f", "\r": "\\r"}
_ESCAPES = {code: f"\\u{code:04X}" for code in range(0x20)}
_ESCAPES.update({ord(ch): text for ch, text in _SHORT_ESCAPES.items()})
# An unpaired surrogate (`"\ud800"` decodes to one) cannot be written as UTF-8: it stays escaped,
# so the text can be hashed and stored.
_ESCAPES.update({code: f"\\u{code:04X}" for code in range(0xD800, 0xE000)})
# What Python's C escaper writes differently from Jackson: control characters other than the
# short escapes (lower-case hex there) and unpaired surrogates (raw there).
_SPECIAL = re.compile("[\x00-\x07\x0b\x0e-\x1f\ud800-\udfff]")

NumberPrinter = Callable[[float], str]


def depth_exceeds(text: str, bound: int = MAX_DOCUMENT_DEPTH) -> bool:
    """Whether JSON arrays and objects nest deeper than `bound` in `text`. Brackets inside
    strings do not count; a text with few brackets is answered without a scan."""
    if text.count("[") + text.count("{") <= bound:
        return False
    depth = 0
    for bracket in _BRACKET.findall(_STRING.sub("", text)):
        if bracket in "[{":
            depth += 1
            if depth > bound:
                return True
        else:
            depth -= 1
    return False


def quote(text: str) -> str:
    """A JSON string literal as Jackson writes it."""
    if _SPECIAL.search(text) is None:
        return encode_basestring(text)  # the C escaper agrees with Jackson on everything else
    return '"' + text.translate(_ESCAPES) + '"'


def dumps(value: Any, number: NumberPrinter) -> str:
    """Compact JSON of a parsed document, keys in their order; floats through `number`."""
    out: list[str] = []
    _write(value, out, number)
    return "".join(out)


def _write(value: Any, out: list[str], number: NumberPrinter) -> None:
    """Append `value`'s text to `out`; one frame per level of nesting."""
    if isinstance(value, str):
        out.append(quote(value))
    elif isinstance(value, dict):
        out.append("{")
        first = True
        for key, item in value.items():
            out.append(quote(key) + ":" if first else "," + quote(key) + ":")
            first = False
            _write(item, out, number)
        out.append("}")
    elif isinstance(value, list):
        out.append("[")
        for index, item in enumerate(value):
            if index:
                out.append(",")
            _write(item, out, number)
        out.append("]")
    elif value is None or value is True or value is False:
        out.append("null" if value is None else "true" if value else "false")
    elif isinstance(value, int):
        out.append(str(value))
    elif isinstance(value, float):
        out.append(number(value))
    else:
        raise TypeError(f"not a JSON value: {value!r}")
