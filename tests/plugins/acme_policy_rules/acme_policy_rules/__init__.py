"""Test plugin rules: one that reports, one that raises."""
from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from app.formats.base import ParsedSchema
from app.policies.rule import RuleContext, Violation
from app.policies.view import elements_of


class PiiFields:
    """Fields whose name suggests personal data must say so in their doc."""

    name = "acme.pii-fields"
    description = "Fields named like personal data carry PII in their doc."
    formats = frozenset({"AVRO"})
    params_schema: dict[str, Any] = {
        "type": "object", "additionalProperties": False,
        "properties": {"names": {"type": "array", "items": {"type": "string"}}},
    }

    def check(self, current_latest: ParsedSchema | None, proposed: ParsedSchema,
              params: Mapping[str, Any], ctx: RuleContext) -> Iterator[Violation]:
        names = set(params.get("names", ["email", "ssn"]))
        for element in elements_of(proposed):
            if element.kind == "field" and element.name in names and "PII" not in (element.doc or ""):
                yield Violation(self.name, f'field "{element.name}" holds personal data but its doc does not say PII',
                                element.location, element.path)


class Broken:
    name = "acme.broken"
    description = "Always fails."
    formats = frozenset({"AVRO"})
    params_schema: dict[str, Any] = {"type": "object"}

    def check(self, current_latest: ParsedSchema | None, proposed: ParsedSchema,
              params: Mapping[str, Any], ctx: RuleContext) -> Iterator[Violation]:
        raise ValueError("boom")
