"""The audit trail's side of the store port: where a request came from, an entry before and
after it is stored, the trail's filters, and what storage offers the trail outside the
registry's own write transactions (app/core/audit.py keeps the trail's rules)."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol

USER_AGENT_CHARS = 200
FORWARDED_FOR_CHARS = 512
PATH_CHARS = 2048
PRINCIPAL_CHARS = 255
CONTEXT_CHARS = 255
SUBJECT_CHARS = 1024


@dataclass(frozen=True)
class Origin:
    """Where a request came from, as the API layer saw it (all optional: a change made by a
    script through the core has no request). `forwarded_for` is set only when the peer is a
    trusted proxy; the texts are cut to their column's size here, once."""

    remote_addr: str | None = None
    forwarded_for: str | None = None
    user_agent: str | None = None
    method: str | None = None
    path: str | None = None
    # What the route answers when the change commits (200; 204 for a context delete): the
    # status a committed change's row records. None outside HTTP.
    success_status: int | None = None

    def __post_init__(self) -> None:
        for name, size in (("user_agent", USER_AGENT_CHARS), ("forwarded_for", FORWARDED_FOR_CHARS),
                           ("path", PATH_CHARS)):
            value = getattr(self, name)
            if value is not None and len(value) > size:
                object.__setattr__(self, name, value[:size])


NO_ORIGIN = Origin()


@dataclass(frozen=True)
class AuditEntry:
    """One row of the trail before the database gives it an id and a time. `subject` is the
    qualified subject name (None for global, context and context-wide operations)."""

    action: str
    principal: str
    auth_method: str
    origin: Origin
    context: str | None = None
    subject: str | None = None
    version: int | None = None
    schema_id: int | None = None
    outcome: str = "success"
    status: int | None = None
    error_code: int | None = None
    detail: dict[str, Any] | None = None

    def __post_init__(self) -> None:
        """Names are cut to their column's size, as `Origin`'s texts are: a refused request
        may name a subject of any length (the registry stores none longer than its columns,
        but the trail records what was attempted), and one row must not cost kilobytes or,
        on PostgreSQL, fail its insert."""
        for name, size in (("principal", PRINCIPAL_CHARS), ("context", CONTEXT_CHARS), ("subject", SUBJECT_CHARS)):
            value = getattr(self, name)
            if value is not None and len(value) > size:
                object.__setattr__(self, name, value[:size])


@dataclass(frozen=True)
class AuditRow:
    """A stored entry: `ts` is UTC epoch milliseconds."""

    id: int
    ts: int
    entry: AuditEntry


DEFAULT_AUDIT_LIMIT = 100


@dataclass(frozen=True)
class AuditQuery:
    """The filters of `GET /audit` and `sqlregistry audit list`; times are epoch ms,
    `until` inclusive. Rows come newest first."""

    subject: str | None = None
    principal: str | None = None
    action: str | None = None
    outcome: str | None = None
    since: int | None = None
    until: int | None = None
    offset: int = 0
    limit: int = DEFAULT_AUDIT_LIMIT


class AuditLog(Protocol):
    """What storage offers the trail outside the registry's own write transactions."""

    def append_audit(self, entry: AuditEntry) -> None:
        """Store one entry in a transaction of its own (refused attempts)."""
        ...

    def audit_events(self, query: AuditQuery) -> list[AuditRow]: ...

    def prune_audit(self, before_ms: int, most: int | None = None) -> int:
        """Delete the entries older than `before_ms`, at most `most` of them (None: all);
        how many went."""
        ...
