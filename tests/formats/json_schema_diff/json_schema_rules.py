"""The table shape the rule tests share: a writer, a reader, and what the checker must say.

Each row names the rule it pins, the writer schema (what data was written with: the
original) and the reader schema (what reads it now: the update), the full list of changes
expected (compatible ones too, as `TYPE #/pointer`), and the verdict under STRICT and, where
it differs, LENIENT.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from app.formats.base import LENIENT_POLICY, STRICT_POLICY
from app.formats.json_schema.diff import compare, incompatible
from app.formats.json_schema.model import build_native

DRAFT_2020_12 = "https://json-schema.org/draft/2020-12/schema"


@dataclass(frozen=True)
class Rule:
    name: str
    writer: Any
    reader: Any
    changes: list[str]
    compatible: bool
    compatible_lenient: bool | None = None
    writer_dependencies: dict[str, Any] = field(default_factory=dict)
    reader_dependencies: dict[str, Any] = field(default_factory=dict)

    def __str__(self) -> str:
        return self.name


def modern(schema: dict[str, Any]) -> dict[str, Any]:
    """`schema` declared as draft 2020-12."""
    return {"$schema": DRAFT_2020_12, **schema}


def check_rule(rule: Rule) -> None:
    """Asserts the rule's changes and verdicts (both policies)."""
    writer = build_native(rule.writer, rule.writer_dependencies)
    reader = build_native(rule.reader, rule.reader_dependencies)
    found = sorted(f"{d.type} {d.pointer}" for d in compare(writer, reader))
    assert found == sorted(rule.changes), f"{rule.name}: reader {rule.reader} vs writer {rule.writer}"
    strict = not incompatible(compare(writer, reader, policy=STRICT_POLICY), STRICT_POLICY)
    assert strict is rule.compatible, f"{rule.name}: STRICT verdict"
    lenient_expected = rule.compatible if rule.compatible_lenient is None else rule.compatible_lenient
    lenient = not incompatible(compare(writer, reader, policy=LENIENT_POLICY), LENIENT_POLICY)
    assert lenient is lenient_expected, f"{rule.name}: LENIENT verdict"
