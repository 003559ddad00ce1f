"""Subject-level rules shared by the service's flows: names, versions, aliases, paging."""
from __future__ import annotations

from collections.abc import Sequence
from typing import Any, TypeVar

from app.core.access import OPEN, Guard
from app.core.config import effective_mode, rows_needed
from app.core.errors import InvalidSubject, InvalidVersion, OperationNotPermitted
from app.core.records import SubjectVersion
from app.core.resolver import SchemaResolver
from app.core.types import DEFAULT_CONTEXT, GLOBAL_CONTEXT, Mode, QualifiedSubject
from app.core.store.protocol import Store, SubjectStore
from app.core.store.rows import SubjectRow, VersionRow

T = TypeVar("T")
# Versions and ids are Java ints in every Confluent client.
MAX_ID = _MAX_VERSION = 2**31 - 1
_RESERVED = ("__GLOBAL", "__EMPTY")


def parse_version(raw: str) -> int | None:
    """A version path segment: None for `latest`/-1, else an int >= 1 (42202 otherwise)."""
    text = str(raw).strip()
    if text.lower() == "latest":
        return None
    try:
        number = int(text)
    except ValueError:
        raise InvalidVersion.for_value(str(raw)) from None
    if number == -1:
        return None
    if number < 1 or number > _MAX_VERSION:
        raise InvalidVersion.for_value(str(raw))
    return number


def validate_subject(qs: QualifiedSubject, raw: str, *, registering: bool) -> None:
    """42208 for names Confluent refuses on writes: control characters, reserved names, and
    (for registration) the global-settings context or a bare context."""
    if any(ord(c) < 0x20 or 0x7F <= ord(c) <= 0x9F for c in raw) or qs.name in _RESERVED:
        raise InvalidSubject.for_subject(raw)
    if registering and (qs.context == GLOBAL_CONTEXT or not qs.name):
        raise InvalidSubject.for_subject(raw)


def live_version(versions: Sequence[VersionRow], number: int | None) -> VersionRow | None:
    """The live version `number` names among `versions` (oldest first); None names the newest."""
    live = [v for v in versions if not v.deleted]
    if number is None:
        return live[-1] if live else None
    return next((v for v in live if v.version == number), None)


def subject_mode(store: SubjectStore, qs: QualifiedSubject) -> Mode:
    """The mode in force for a subject (or, with an empty name, a context)."""
    return effective_mode(qs.context, qs.name, store.settings_rows(rows_needed(qs.context, qs.name)))


def check_writable(store: SubjectStore, qs: QualifiedSubject) -> None:
    """42205 when `qs` is in a read-only mode (deletes and settings writes; registration has
    its own, finer mode rules)."""
    if subject_mode(store, qs).read_only:
        raise OperationNotPermitted.read_only(qs.qualified(), qs.context_qualifier)


def alias_of(qs: QualifiedSubject, row: SubjectRow | None) -> QualifiedSubject | None:
    """The subject's own config `alias`, qualified in the aliased subject's context."""
    return alias_target(qs, row.config if row is not None else None)


def alias_target(qs: QualifiedSubject, config: dict[str, Any] | None) -> QualifiedSubject | None:
    """The `alias` of `qs`'s own config (None when unset), qualified in `qs`'s context."""
    alias = (config or {}).get("alias")
    if not alias or not isinstance(alias, str):
        return None
    if alias.startswith(":"):
        return QualifiedSubject.parse(alias)
    return QualifiedSubject(qs.context, alias)


def resolve_alias(store: SubjectStore, qs: QualifiedSubject) -> tuple[QualifiedSubject, SubjectRow | None]:
    """Follow an alias once (an alias of an alias is not followed, as in the reference)."""
    row = store.subject(qs.context, qs.name)
    target = alias_of(qs, row)
    if target is None:
        return qs, row
    return target, store.subject(target.context, target.name)


def subject_version(
    resolver: SchemaResolver, store: Store | None, qs: QualifiedSubject, row: VersionRow, fmt: str | None
) -> SubjectVersion:
    """`store` may be None when the content is cached and no `format=` rendering is asked for."""
    stored = resolver.content(store, row.schema_pk)
    return SubjectVersion(
        subject=qs.qualified(),
        version=row.version,
        schema=stored,
        ts=row.created_at,
        deleted=row.deleted,
        text=resolver.text(store, stored, fmt),
    )


def page(items: Sequence[T], offset: int, limit: int, maximum: int | None = None) -> list[T]:
    """Offset then limit, applied after filtering; limit <= 0 or above the maximum means
    the default (the maximum, or everything when there is none)."""
    start = max(0, offset or 0)
    if limit is None or limit <= 0 or (maximum is not None and limit > maximum):
        limit = maximum if maximum is not None else len(items)
    return list(items[start:start + limit])


def in_other_contexts(
    store: Store, qs: QualifiedSubject, number: int | None, deleted: bool, guard: Guard = OPEN
) -> tuple[QualifiedSubject, VersionRow] | None:
    """A default-context subject without the version is looked up under the same
    name in the other contexts, in context order (Confluent's `getUsingContexts`); only
    subjects the caller may read count."""
    if qs.context != DEFAULT_CONTEXT:
        return None
    for other in store.subjects_named(qs.name):
        other_qs = QualifiedSubject(other.context, other.name)
        if not guard.readable(other_qs.qualified()):
            continue
        found = store.subject_version(other.context, other.name, number).version
        if found is not None and (deleted or not found.deleted):
            return other_qs, found
    return None
