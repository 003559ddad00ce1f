"""The audit trail's SQL: the row a write transaction adds, and the trail's own reads,
appends and pruning (`app.core.store.AuditLog`, a mixin of `Repository`).

The insert runs on the raw cursor (direct.py) like registration's other statements, so the
trail costs a registration one prebuilt INSERT and nothing else.
"""
from __future__ import annotations

import time
from contextlib import AbstractContextManager
from typing import Any, Protocol

from sqlalchemy import Connection, bindparam, delete, insert, select

from app.core.store.audit import AuditEntry, AuditQuery, AuditRow, Origin
from app.storage.direct import DirectStatement, json_param, json_value
from app.storage.listings import storable
from app.storage.models import AuditEvent

A = AuditEvent.__table__
_TEXT_COLUMNS = ("principal", "auth_method", "remote_addr", "forwarded_for", "user_agent", "method", "path",
                 "action", "context", "subject", "outcome")
_COLUMNS = ("ts", *_TEXT_COLUMNS, "version", "schema_id", "status", "error_code", "detail")
PRUNE_BATCH = 5000
INSERT_AUDIT_DIRECT = DirectStatement(insert(A).values({name: bindparam(name) for name in _COLUMNS}))


def _clean(text: str | None) -> str | None:
    """A text any database stores: names from refused requests may hold what the registry
    never stores (NUL, which PostgreSQL text cannot hold; lone surrogates from bytes that were
    not UTF-8), shown escaped rather than failing the insert."""
    if text is None:
        return None
    if text.isascii() and "\x00" not in text:
        return text
    shown = text.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")
    return shown.replace("\x00", "\\x00")


def audit_params(entry: AuditEntry, ts: int) -> dict[str, Any]:
    origin = entry.origin
    return {
        "ts": ts,
        "principal": _clean(entry.principal),
        "auth_method": entry.auth_method,
        "remote_addr": _clean(origin.remote_addr),
        "forwarded_for": _clean(origin.forwarded_for),
        "user_agent": _clean(origin.user_agent),
        "method": _clean(origin.method),
        "path": _clean(origin.path),
        "action": entry.action,
        "context": _clean(entry.context),
        "subject": _clean(entry.subject),
        "outcome": entry.outcome,
        "version": entry.version,
        "schema_id": entry.schema_id,
        "status": entry.status,
        "error_code": entry.error_code,
        "detail": json_param(entry.detail),
    }


def insert_audit(conn: Connection, entry: AuditEntry, ts: int) -> None:
    INSERT_AUDIT_DIRECT.rows(conn, audit_params(entry, ts))


def _row(row: Any) -> AuditRow:
    origin = Origin(row.remote_addr, row.forwarded_for, row.user_agent, row.method, row.path)
    entry = AuditEntry(
        action=row.action, principal=row.principal, auth_method=row.auth_method, origin=origin,
        context=row.context, subject=row.subject, version=row.version, schema_id=row.schema_id,
        outcome=row.outcome, status=row.status, error_code=row.error_code, detail=json_value(row.detail),
    )
    return AuditRow(int(row.id), int(row.ts), entry)


class _Connected(Protocol):
    def read(self) -> AbstractContextManager[Any]: ...


class AuditStorage:
    """`AuditLog` for `Repository`. Each call is one statement on an autocommit connection
    (`read()`), so it is its own transaction and tells no cache that anything changed."""

    def append_audit(self: _Connected, entry: AuditEntry) -> None:
        with self.read() as store:
            insert_audit(store.conn, entry, time.time_ns() // 1_000_000)

    def audit_events(self: _Connected, query: AuditQuery) -> list[AuditRow]:
        if not storable(query.subject, query.principal, query.action, query.outcome):
            return []  # no row holds NUL (`_clean` escapes it), and PostgreSQL could not be asked
        statement = select(A)
        for column, value in (("subject", query.subject), ("principal", query.principal),
                              ("action", query.action), ("outcome", query.outcome)):
            if value is not None:
                statement = statement.where(A.c[column] == value)
        if query.since is not None:
            statement = statement.where(A.c.ts >= query.since)
        if query.until is not None:
            statement = statement.where(A.c.ts <= query.until)
        statement = statement.order_by(A.c.ts.desc(), A.c.id.desc()).offset(query.offset).limit(query.limit)
        with self.read() as store:
            return [_row(r) for r in store.conn.execute(statement)]

    def prune_audit(self: _Connected, before_ms: int, most: int | None = None) -> int:
        """In batches of PRUNE_BATCH rows, oldest first, each its own transaction: a year of
        backlog (the server's first prune after a retention is set) never holds SQLite's
        write lock, or PostgreSQL's row locks, for more than one batch. `most`: stop once
        that many went (the server's prune, which a write waits for)."""
        pruned = 0
        while most is None or pruned < most:
            batch = PRUNE_BATCH if most is None else min(PRUNE_BATCH, most - pruned)
            oldest = select(A.c.id).where(A.c.ts < before_ms).order_by(A.c.ts, A.c.id).limit(batch)
            with self.read() as store:
                gone = int(store.conn.execute(delete(A).where(A.c.id.in_(oldest))).rowcount)
            pruned += gone
            if gone < batch:
                break
        return pruned
