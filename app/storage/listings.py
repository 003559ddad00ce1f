"""Cross-subject reads: listings, a subject name across contexts, aliases, the contexts table.

A mixin of `SqlStore` (which supplies `conn`), kept apart from the per-subject and write
queries of `repository.py`. The row records are the core's (`app.core.store.protocol`).
"""
from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlalchemy import (
    Connection,
    Select,
    and_,
    case,
    delete,
    exists,
    func,
    or_,
    select,
)

from app.core.records import DEFAULT_CONTEXT
from app.core.store.rows import HolderRow, SubjectRow, SubjectSummary
from app.storage.models import Context, Schema, Subject, SubjectVersion

S = Subject.__table__
V = SubjectVersion.__table__
SC = Schema.__table__
C = Context.__table__


def storable(*texts: str | None) -> bool:
    """Whether names could be stored at all. PostgreSQL text cannot hold NUL, and the registry
    refuses control characters in every name it writes, so a name with NUL is stored nowhere:
    lookups for one answer "nothing" without asking the database (which would fail)."""
    return not any(t and "\x00" in t for t in texts)


def subject_row(row: Any) -> SubjectRow:
    return SubjectRow(row.id, row.context, row.name, row.config, row.mode)


def _in_scope(query: Select[Any], context: str | None, prefix: str) -> Select[Any]:
    """A listing's scope: one context (None: every context) and a subject-name prefix."""
    if context is not None:
        query = query.where(S.c.context == context)
    if prefix:
        query = query.where(func.substr(S.c.name, 1, len(prefix)) == prefix)
    return query


HOLDER_COLUMNS = (S.c.context, S.c.name, V.c.version, V.c.deleted, V.c.created_at, SC.c.pk, SC.c.id)
HOLDER_JOIN = V.join(S, S.c.id == V.c.subject_id).join(SC, SC.c.pk == V.c.schema_pk)


def holder_row(row: Sequence[Any]) -> HolderRow:
    """A row of HOLDER_COLUMNS (SQLite hands booleans back as integers on the raw cursor)."""
    context, subject, version, deleted, created_at, schema_pk, schema_id = row
    return HolderRow(context, subject, version, bool(deleted), created_at, schema_pk, schema_id)


class ListingQueries:
    """The cross-subject part of `SqlStore`."""

    conn: Connection
    dialect: str

    def subject_summaries(self, context: str | None, prefix: str) -> list[SubjectSummary]:
        """(context, name, live versions, all versions) for subjects that have versions."""
        if not storable(context, prefix):
            return []
        live = func.sum(case((V.c.deleted.is_(False), 1), else_=0))
        query = (
            select(S.c.context, S.c.name, live, func.count())
            .select_from(S.join(V, V.c.subject_id == S.c.id))
            .where(S.c.name != "")
            .group_by(S.c.context, S.c.name)
        )
        query = _in_scope(query, context, prefix)
        return [SubjectSummary(r[0], r[1], int(r[2] or 0), int(r[3])) for r in self.conn.execute(query)]

    def all_holders(self, context: str | None, prefix: str, include_deleted: bool) -> list[HolderRow]:
        if not storable(context, prefix):
            return []
        query = _in_scope(select(*HOLDER_COLUMNS).select_from(HOLDER_JOIN).where(S.c.name != ""), context, prefix)
        if not include_deleted:
            query = query.where(V.c.deleted.is_(False))
        return [holder_row(r) for r in self.conn.execute(query)]

    def holders_of_subjects(self, subjects: Sequence[tuple[str, str]], include_deleted: bool) -> list[HolderRow]:
        """`all_holders` for named (context, name) subjects rather than a prefix: the alias
        targets `GET /schemas?aliases=true` adds from outside the prefix."""
        wanted = [(c, n) for c, n in subjects if storable(c, n)]
        if not wanted:
            return []
        query = (
            select(*HOLDER_COLUMNS)
            .select_from(HOLDER_JOIN)
            .where(or_(*(and_(S.c.context == c, S.c.name == n) for c, n in wanted)))
        )
        if not include_deleted:
            query = query.where(V.c.deleted.is_(False))
        return [holder_row(r) for r in self.conn.execute(query)]

    def configured_subjects(self, context: str | None, prefix: str) -> list[SubjectRow]:
        """Subjects in a listing's scope (the same `context`/`prefix` rule as `all_holders`)
        that have a config of their own, with or without versions: where aliases are set."""
        if not storable(context, prefix):
            return []
        query = _in_scope(select(S).where(S.c.name != "", S.c.config.is_not(None)), context, prefix)
        return [subject_row(r) for r in self.conn.execute(query)]

    def subjects_named(self, name: str) -> list[SubjectRow]:
        """The subjects called `name` in every context but the default one, in context order
        (where an unqualified read looks when the default context has no match)."""
        if not storable(name):
            return []
        query = select(S).where(S.c.name == name, S.c.context != DEFAULT_CONTEXT).order_by(S.c.context)
        return [subject_row(r) for r in self.conn.execute(query)]

    # ------------------------------------------------------------ contexts
    def contexts(self) -> list[str]:
        return list(self.conn.execute(select(C.c.name)).scalars())

    def context_in_use(self, context: str) -> bool:
        if not storable(context):
            return False
        return bool(
            self.conn.execute(
                select(exists().where(V.c.subject_id == S.c.id, S.c.context == context))
            ).scalar()
        )

    def delete_context(self, context: str) -> None:
        if not storable(context):
            return
        self.conn.execute(delete(C).where(C.c.name == context))
