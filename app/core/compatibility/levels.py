"""Compatibility levels turned into reader/writer checks: the one place for that logic.

BACKWARD: the new schema is the reader, each compared old schema the writer.
FORWARD: each compared old schema is the reader, the new schema the writer.
FULL: both. Plain levels compare with the newest live version only; `_TRANSITIVE` levels
with every live version, newest first, stopping at the first one that fails; with a
compatibility group, only versions of the new schema's group count. Which versions those are
is decided here (`versions_to_compare`) and nowhere else.

With `validateFields` on, the reserved-field rules (`confluent:reserved`) run first, against
the newest live version whatever the level (NONE included) and whatever the compatibility
group; their messages come before the format's, and one trailer closes the whole list.
"""
from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple, TypeVar

from app.core.resolver import format_refusals
from app.core.types import CompatibilityLevel
from app.formats.base import STRICT_POLICY, Incompatibility, ParsedSchema, SchemaFormat, TopLevelFields, supports

T = TypeVar("T")

OLD_SCHEMA_LIMIT = 10_240  # Confluent cuts the quoted old schema at 10 KB
LISTED_INCOMPATIBILITIES = 100
"""At most this many of a check's incompatibilities are listed (both directions of FULL
together), then one line counting the rest: a reply stays small whatever the schemas, and
stays Confluent's list of strings, which clients print without parsing."""
RESERVED_PROPERTY = "confluent:reserved"
DIFFERENT_TYPES = "Incompatible because of different schema type"


@dataclass(frozen=True)
class Previous:
    version: int
    schema_type: str
    text: str
    parsed: ParsedSchema


def needs_all_live_versions(level: CompatibilityLevel, group: str | None) -> bool:
    """Whether choosing what to compare needs every live version (transitive levels, or a
    compatibility group, whose newest member need not be the subject's newest version), or
    only the newest live one, which registration reads without loading the history."""
    return level is not CompatibilityLevel.NONE and (level.transitive or bool(group))


def versions_to_compare(
    level: CompatibilityLevel, live_newest_first: Sequence[T], in_group: Callable[[T], bool] | None = None
) -> list[T]:
    """The previous versions a new schema is checked against: none under NONE, the newest
    live version of the new schema's compatibility group under plain levels, all of them
    (newest first) under `_TRANSITIVE` levels. `in_group` is None when no group is set."""
    if level is CompatibilityLevel.NONE:
        return []
    chosen = [v for v in live_newest_first if in_group is None or in_group(v)]
    return chosen if level.transitive else chosen[:1]


def check(
    formats: Mapping[str, SchemaFormat],
    level: CompatibilityLevel,
    candidate: ParsedSchema,
    history: Sequence[Previous],
    *,
    validate_fields: bool = False,
    reserved_violations: Sequence[str] = (),
    policy: str = STRICT_POLICY,
) -> list[str]:
    """Confluent's message list: `reserved_violations` (see `reserved_field_violations`),
    then the problems with the first previous version that fails, then the trailer naming
    the settings; [] when compatible. `candidate` (the new schema) is the reader of each
    previous version under BACKWARD and its writer under FORWARD; FULL checks both ways.

    `history` is what `versions_to_compare` chose (or the one version the `/versions/{v}`
    endpoint names), newest first; the first that fails ends the check. `policy` is the
    subject's `compatibilityPolicy`, handed to the format's `can_read`.
    """
    messages = list(reserved_violations)
    if level is not CompatibilityLevel.NONE:
        for previous in history:
            problems = _compare(formats, level, candidate, previous, policy)
            if problems:
                messages += problems
                messages.append(f"{{oldSchemaVersion: {previous.version}}}")
                messages.append(f"{{oldSchema: '{previous.text[:OLD_SCHEMA_LIMIT]}'}}")
                break
    if messages:
        messages.append(
            f"{{validateFields: '{'true' if validate_fields else 'false'}', compatibility: '{level.value}'}}"
        )
    return messages


def policy_of(config: Mapping[str, Any]) -> str:
    """The subject's effective `compatibilityPolicy`; STRICT when none is set."""
    return config.get("compatibilityPolicy") or STRICT_POLICY


def reserved_fields(metadata: Mapping[str, Any] | None) -> set[str]:
    """The comma-separated `confluent:reserved` property as a set of trimmed, non-empty names."""
    value = ((metadata or {}).get("properties") or {}).get(RESERVED_PROPERTY)
    if not value:
        return set()
    return {name.strip() for name in value.split(",") if name.strip()}


def reserved_field_violations(
    fmt: SchemaFormat,
    candidate: ParsedSchema,
    metadata: Mapping[str, Any] | None,
    previous_metadata: Mapping[str, Any] | None,
) -> list[str]:
    """The `validateFields=true` rules (Confluent's wording): a name reserved by the previous
    version's metadata must stay reserved, and a reserved name must not be a top-level field
    of the new schema. `metadata` is the new schema's (after the registration merge);
    `previous_metadata` the newest live version's, None when there is none. Names are
    reported in sorted order (Java iterates a hash set)."""
    reserved = reserved_fields(metadata)
    messages = [
        f"The new schema has reserved field {name} removed from its metadata which is present "
        "in the old schema's metadata."
        for name in sorted(reserved_fields(previous_metadata) - reserved)
    ]
    fields = fmt.field_names(candidate) if supports(fmt, TopLevelFields) else set()
    messages += [
        f"The new schema has field that conflicts with the reserved field {name}."
        for name in sorted(reserved & fields)
    ]
    return messages


def _compare(
    formats: Mapping[str, SchemaFormat], level: CompatibilityLevel, candidate: ParsedSchema, previous: Previous,
    policy: str,
) -> list[str]:
    """One previous version: BACKWARD asks whether `candidate` (reader, "new") can read
    `previous` (writer, "old"); FORWARD whether `previous` (reader) can read `candidate` (writer)."""
    if previous.schema_type != candidate.schema_type:
        return [DIFFERENT_TYPES]
    fmt = formats[candidate.schema_type]
    found: list[_Labelled] = []
    with format_refusals():
        if level.backward:
            found += [_Labelled(i, "new", "old") for i in fmt.can_read(candidate, previous.parsed, policy=policy)]
        if level.forward:
            found += [_Labelled(i, "old", "new") for i in fmt.can_read(previous.parsed, candidate, policy=policy)]
    messages = [fmt.describe(f.incompatibility, f.reader, f.writer) for f in found[:LISTED_INCOMPATIBILITIES]]
    if len(found) > LISTED_INCOMPATIBILITIES:
        messages.append(_more_incompatibilities(len(found) - LISTED_INCOMPATIBILITIES))
    return messages


class _Labelled(NamedTuple):
    """An incompatibility with the labels of its direction: `reader` names the reading side
    ("new" under BACKWARD), `writer` the writing side."""

    incompatibility: Incompatibility
    reader: str
    writer: str


def _more_incompatibilities(count: int) -> str:
    """The line closing a list cut at `LISTED_INCOMPATIBILITIES`."""
    return f"{{moreIncompatibilities: {count}, note: 'only the first {LISTED_INCOMPATIBILITIES} are listed'}}"
