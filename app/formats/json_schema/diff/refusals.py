"""The checker's refusals, worded as the format words its own (Confluent's
"Invalid schema of type JSON, details: ..."), since they reach clients as the same 42201."""
from __future__ import annotations

from app.formats.base import SchemaParseError


def refusal(detail: str) -> SchemaParseError:
    return SchemaParseError(f"Invalid schema of type JSON, details: {detail}")
