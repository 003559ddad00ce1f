"""Compatibility levels turned into reader/writer checks: the one place for that logic.

BACKWARD: the new schema is the reader, each compared old schema the writer.
FORWARD: each compared old schema is the reader, the new schema the writer.
FULL: both. Plain levels compare with the newest live version only; `_TRANSITIVE` levels
with every live version, newest first, stopping at the first one that fails.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping, Sequence

from app.core.types import CompatibilityLevel
from app.formats.base import ParsedSchema, SchemaFormat

OLD_SCHEMA_LIMIT = 10_240  # Confluent cuts the quoted old schema at 10 KB


@dataclass(frozen=True)
class Previous:
    version: int
    schema_type: str
    text: str
    parsed: ParsedSchema


def check(
    formats: Mapping[str, SchemaFormat],
    level: CompatibilityLevel,
    candidate: ParsedSchema,
    history: Sequence[Previous],
    *,
    validate_fields: bool = False,
    single_target: bool = False,
) -> list[str]:
    """Confluent's message list for the first previous version that fails; [] when compatible.

    `history` is newest first. `single_target` compares with exactly `history[0]`
    whatever the level says (the `/versions/{v}` compatibility endpoint).
    """
    if level is CompatibilityLevel.NONE or not history:
        return []
    targets = history[:1] if single_target or not level.transitive else history
    for previous in targets:
        messages = _compare(formats, level, candidate, previous)
        if messages:
            messages.append(f"{{oldSchemaVersion: {previous.version}}}")
            messages.append(f"{{oldSchema: '{previous.text[:OLD_SCHEMA_LIMIT]}'}}")
            messages.append(
                f"{{validateFields: '{'true' if validate_fields else 'false'}', compatibility: '{level.value}'}}"
            )
            return messages
    return []


def _compare(
    formats: Mapping[str, SchemaFormat], level: CompatibilityLevel, candidate: ParsedSchema, previous: Previous
) -> list[str]:
    if previous.schema_type != candidate.schema_type:
        return ["Incompatible because of different schema type"]
    fmt = formats[candidate.schema_type]
    messages: list[str] = []
    if level.backward:
        messages += [fmt.describe(i, "new", "old") for i in fmt.can_read(candidate, previous.parsed)]
    if level.forward:
        messages += [fmt.describe(i, "old", "new") for i in fmt.can_read(previous.parsed, candidate)]
    return messages
