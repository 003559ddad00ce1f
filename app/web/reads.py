"""The read side of the pages: what a page shows, gathered from `RegistryService` for the
requesting principal and handed to templates as plain records.

Nothing here builds SQL or looks inside a schema: the service answers, and a subject the
principal cannot read is, to this module, a subject that does not exist.
"""
from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timezone
from typing import TYPE_CHECKING, Any

from app.core.errors import (
    Forbidden,
    InvalidVersion,
    RegistryError,
    SchemaNotFound,
    SubjectCompatibilityNotConfigured,
    SubjectModeNotConfigured,
    SubjectNotFound,
    VersionNotFound,
)
from app.core.records import SubjectVersion
from app.core.types import DEFAULT_CONTEXT, QualifiedSubject
from app.web.errors import BadParameter, NoSuchSchema, NoSuchSubject, NoSuchVersion
from app.web.permissions import principal, registry

if TYPE_CHECKING:
    from app.core.browse.inspection import EffectiveSetting


def utc(ms: int | None) -> str:
    """Registration times are epoch milliseconds; pages show them in UTC."""
    if not ms:
        return ""
    return datetime.fromtimestamp(ms / 1000, tz=timezone.utc).strftime("%Y-%m-%d %H:%M:%S UTC")


def context_of(subject: str) -> str:
    return QualifiedSubject.parse(subject).context


@dataclass(frozen=True)
class VersionEntry:
    version: int
    id: int
    ts: int
    deleted: bool

    @property
    def registered(self) -> str:
        return utc(self.ts)


# ---------------------------------------------------------------- subjects and versions
def versions_of(subject: str, deleted: bool = True) -> list[VersionEntry]:
    """Every version of a subject (soft-deleted ones too unless `deleted` is false), oldest first.
    `NoSuchSubject` when the principal sees no version at all."""
    try:
        rows = registry().browse.version_history(subject, deleted=deleted, principal=principal())
    except (SubjectNotFound, Forbidden):
        raise missing_subject(subject) from None
    return [VersionEntry(v.version, v.schema_id, v.created_at, v.deleted) for v in rows]


def missing_subject(subject: str) -> NoSuchSubject:
    """The 404 for a subject; it says so when only soft-deleted versions remain."""
    try:
        registry().list_versions(subject, deleted=True, principal=principal())
    except RegistryError:
        return NoSuchSubject(subject, soft_deleted=False)
    return NoSuchSubject(subject, soft_deleted=True)


def version_of(subject: str, version: str) -> SubjectVersion:
    """One version, soft-deleted ones included (`latest` is the newest live one)."""
    try:
        return registry().get_version(subject, version, deleted=True, principal=principal())
    except InvalidVersion:
        raise BadParameter("version", "must be a version number or latest") from None
    except (SubjectNotFound, Forbidden):
        raise missing_subject(subject) from None
    except VersionNotFound:
        existing = [v.version for v in versions_of(subject)]
        raise NoSuchVersion(subject, version, existing) from None


def used_by(subject: str, version: int) -> list[tuple[str, int]]:
    """Subject-versions whose schemas reference this one (soft-deleted referrers left out)."""
    service, who = registry(), principal()
    out: set[tuple[str, int]] = set()
    context = context_of(subject)
    hint = None if context == DEFAULT_CONTEXT else f":{context}:"
    for schema_id in service.referenced_by(subject, str(version), principal=who):
        for ref in service.versions_for_id(schema_id, hint, principal=who):
            out.add((ref.subject, ref.version))
    return sorted(out)


@dataclass(frozen=True)
class RefNode:
    """A node of the transitive "uses" tree: the reference, its children, and whether the walk
    stopped there (a cycle back to an ancestor, or the depth limit)."""

    name: str
    subject: str
    version: int
    children: tuple[RefNode, ...]
    cycle: bool = False
    cut: bool = False


MAX_REF_DEPTH = 8


def reference_tree(found: SubjectVersion, depth: int = 0, seen: frozenset[tuple[str, int]] = frozenset()) -> list[RefNode]:
    nodes = []
    here = seen | {(found.subject, found.version)}
    for ref in found.schema.references:
        key = (ref.subject, ref.version)
        if key in here:
            nodes.append(RefNode(ref.name, ref.subject, ref.version, (), cycle=True))
            continue
        if depth + 1 >= MAX_REF_DEPTH:
            nodes.append(RefNode(ref.name, ref.subject, ref.version, (), cut=True))
            continue
        try:
            child = registry().get_version(ref.subject, str(ref.version), deleted=True, principal=principal())
        except RegistryError:
            nodes.append(RefNode(ref.name, ref.subject, ref.version, ()))
            continue
        nodes.append(RefNode(ref.name, ref.subject, ref.version, tuple(reference_tree(child, depth + 1, here))))
    return nodes


# ---------------------------------------------------------------- settings
def effective_settings(subject: str | None) -> tuple[EffectiveSetting, EffectiveSetting]:
    """The level and mode in force for a subject (None: the global ones) and their sources,
    resolved by the core as registration resolves them."""
    found = registry().browse.effective_settings(subject or "", principal=principal())
    return found.compatibility, found.mode


def effective_level(subject: str | None) -> EffectiveSetting:
    return effective_settings(subject)[0]


def own_settings(scope: str | None) -> dict[str, Any]:
    """The level and mode stored for exactly this scope (empty values when it has none)."""
    service, who = registry(), principal()
    out: dict[str, Any] = {"compatibility": None, "mode": None}
    try:
        out["compatibility"] = service.get_config(scope, principal=who).get("compatibility")
    except (SubjectCompatibilityNotConfigured, SubjectNotFound):
        pass
    try:
        out["mode"] = service.get_mode(scope, principal=who)
    except (SubjectModeNotConfigured, SubjectNotFound):
        pass
    return out


def schema_holders(schema_id: int, context: str | None, deleted: bool) -> list[tuple[str, int, bool]]:
    """Subject-versions holding an id in one context: (subject, version, soft-deleted)."""
    service, who = registry(), principal()
    hint = None if context in (None, DEFAULT_CONTEXT) else f":{context}:"
    refs = service.versions_for_id(schema_id, hint, deleted=deleted, principal=who)
    out = []
    for ref in refs:
        found = service.get_version(ref.subject, str(ref.version), deleted=True, principal=who)
        out.append((ref.subject, ref.version, found.deleted))
    return out


def schema_by_id(schema_id: int, context: str | None):
    hint = None if context in (None, DEFAULT_CONTEXT) else f":{context}:"
    try:
        return registry().schema_by_id(schema_id, hint, principal=principal())
    except (SchemaNotFound, Forbidden):
        raise NoSuchSchema(schema_id, context) from None
