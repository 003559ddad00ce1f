"""Bounds on a schema sent in a request, checked before any format parses it.

Each format already refuses what would exhaust its own recursive walks (a fixed bound, see
app/formats/jackson.py); these are the operator's tighter bounds, the same for every format,
so that one message names the setting whatever the `schemaType`:

* nesting: JSON arrays and objects for the JSON formats, braces and brackets for Protobuf
  text (one scanner serves both: strings and comments are skipped, and neither a quote of
  the other kind nor a comment can occur outside a string in valid JSON);
* references: how many one request may name, before any of them is looked up.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from app.core.errors import InvalidSchema

MAX_REFERENCES = 1000

# Every alternative always matches once started (an unclosed string or comment runs to the end
# of the text), so the scan stays linear whatever the input.
_TOKENS = re.compile(
    r'"(?:[^"\\]|\\.)*(?:"|\Z)'
    r"|'(?:[^'\\]|\\.)*(?:'|\Z)"
    r"|//[^\n]*"
    r"|/\*.*?(?:\*/|\Z)"
    r"|[\[\]{}]",
    re.DOTALL,
)
_OPENING = frozenset("[{")
_CLOSING = frozenset("]}")


def nesting_exceeds(text: str, bound: int) -> bool:
    """Whether brackets and braces outside strings and comments nest deeper than `bound`.
    A text with few brackets at all (nearly every real schema) is answered without a scan."""
    if text.count("[") + text.count("{") <= bound:
        return False
    depth = 0
    for match in _TOKENS.finditer(text):
        token = match.group()
        if token in _OPENING:
            depth += 1
            if depth > bound:
                return True
        elif token in _CLOSING:
            depth -= 1
    return False


@dataclass(frozen=True)
class SchemaLimits:
    max_depth: int
    max_references: int = MAX_REFERENCES

    def check(self, schema_type: str, text: str, reference_count: int) -> None:
        """42201 in the format's "Invalid schema of type T, details: ..." wording."""
        if reference_count > self.max_references:
            raise InvalidSchema(
                f"Invalid schema of type {schema_type}, details: Schema has {reference_count} references, "
                f"more than the limit of {self.max_references}"
            )
        if nesting_exceeds(text, self.max_depth):
            raise InvalidSchema(
                f"Invalid schema of type {schema_type}, details: Schema is nested more than {self.max_depth} "
                "levels deep (the limit set by REGISTRY_MAX_SCHEMA_DEPTH)"
            )
