"""The browser's read-only queries: the subject list with its filters, and search in the
field and type index. A mixin of `SqlStore` (which supplies `conn`).

Every method runs a fixed number of statements whatever the page size (a count and a page,
or one unpaged read for callers that filter by permission first), on indexes: subjects by
(context, name), versions by (subject, version), index names by (kind, name). Which level a
subject has is the core's to resolve; a `LevelFilter` brings the outcome.
"""
from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlalchemy import Connection, Select, and_, case, false, func, or_, select, tuple_

from app.core.store import (
    IndexHit,
    IndexPage,
    IndexQuery,
    SubjectListing,
    SubjectPage,
    SubjectQuery,
)
from app.storage.direct import json_value
from app.storage.listings import SC, S, V, storable
from app.storage.models import SchemaField

SF = SchemaField.__table__
_LATEST = V.alias("latest")
_NEWER = V.alias("newer")


def _per_subject() -> Any:
    """Each subject's live and total version counts, newest live and newest version, and
    newest registration time: one pass over the versions, grouped by subject."""
    live = case((V.c.deleted.is_(False), 1), else_=0)
    return (
        select(
            V.c.subject_id,
            func.sum(live).label("live"),
            func.count().label("total"),
            func.max(case((V.c.deleted.is_(False), V.c.version))).label("latest_live"),
            func.max(V.c.version).label("latest_any"),
            func.max(V.c.created_at).label("updated"),
        )
        .group_by(V.c.subject_id)
        .subquery("per_subject")
    )


_AGG = _per_subject()
_LISTING_COLUMNS = (
    S.c.id, S.c.context, S.c.name, SC.c.schema_type, _LATEST.c.version, SC.c.id.label("schema_id"),
    case((_AGG.c.live > 0, _AGG.c.live), else_=_AGG.c.total).label("versions"),
    (_AGG.c.live == 0).label("all_deleted"), S.c.config, S.c.mode, _AGG.c.updated,
)
_LISTING_FROM = (
    S.join(_AGG, _AGG.c.subject_id == S.c.id)
    .join(_LATEST, and_(
        _LATEST.c.subject_id == S.c.id,
        _LATEST.c.version == func.coalesce(_AGG.c.latest_live, _AGG.c.latest_any),
    ))
    .join(SC, SC.c.pk == _LATEST.c.schema_pk)
)


def _filtered(columns: Sequence[Any], query: SubjectQuery) -> Select[Any]:
    statement = select(*columns).select_from(_LISTING_FROM).where(S.c.name != "")
    if not query.deleted:
        statement = statement.where(_AGG.c.live > 0)
    if query.context is not None:
        statement = statement.where(S.c.context == query.context)
    if query.q:
        statement = statement.where(func.lower(S.c.name).contains(query.q, autoescape=True))
    if query.schema_type:
        statement = statement.where(SC.c.schema_type == query.schema_type)
    if query.own_config:
        statement = statement.where(S.c.config.is_not(None))
    if query.level is not None:
        wanted = query.level
        own_level = func.coalesce(func.nullif(S.c.config["compatibility"].as_string(), ""), wanted.default_level)
        inherits = S.c.context.in_(wanted.inheriting_contexts) if wanted.inheriting_contexts else false()
        statement = statement.where(or_(
            and_(S.c.config.is_not(None), own_level == wanted.level),
            and_(S.c.config.is_(None), inherits),
        ))
    return statement


def _ordered(statement: Select[Any], sort: str) -> Select[Any]:
    if sort == "updated":
        return statement.order_by(_AGG.c.updated.desc(), S.c.context, S.c.name)
    return statement.order_by(S.c.context, S.c.name)


def _listing(row: Sequence[Any]) -> SubjectListing:
    sid, context, name, schema_type, version, schema_id, versions, all_deleted, config, mode, updated = row
    return SubjectListing(
        sid, context, name, schema_type, version, schema_id, int(versions), bool(all_deleted),
        json_value(config), mode, int(updated),
    )


def _prefix_bounds(prefix: str) -> tuple[str, str]:
    """[low, high) holding exactly the strings that start with `prefix`, in code point order
    (both databases compare index names that way)."""
    last = ord(prefix[-1]) + 1
    if 0xD800 <= last <= 0xDFFF:  # surrogates are not characters: the next one is U+E000
        last = 0xE000
    return prefix, prefix[:-1] + chr(min(last, 0x10FFFF))


def _index_statement(query: IndexQuery) -> Select[Any]:
    low, high = _prefix_bounds(query.prefix)
    statement = (
        select(
            S.c.context, S.c.name, V.c.version, SC.c.id, V.c.deleted, SF.c.kind, SF.c.path, SF.c.name,
            SF.c.type_label, SF.c.doc,
        )
        .select_from(
            SF.join(V, V.c.schema_pk == SF.c.schema_pk).join(S, S.c.id == V.c.subject_id)
            .join(SC, SC.c.pk == SF.c.schema_pk)
        )
        .where(SF.c.kind == query.kind, SF.c.name_lower >= low, SF.c.name_lower < high, V.c.deleted.is_(False))
    )
    if not query.all_versions:
        newest_live = (
            select(func.max(_NEWER.c.version))
            .where(_NEWER.c.subject_id == V.c.subject_id, _NEWER.c.deleted.is_(False))
            .scalar_subquery()
        )
        statement = statement.where(V.c.version == newest_live)
    if query.context is not None:
        statement = statement.where(S.c.context == query.context)
    return statement


def _index_order(statement: Select[Any], query: IndexQuery) -> Select[Any]:
    exact_first = case((SF.c.name_lower == query.prefix, 0), else_=1)
    return statement.order_by(exact_first, S.c.context, S.c.name, V.c.version.desc(), SF.c.position)


def _hit(row: Sequence[Any]) -> IndexHit:
    context, subject, version, schema_id, deleted, kind, path, name, type_label, doc = row
    return IndexHit(context, subject, version, schema_id, bool(deleted), kind, path, name, type_label, doc)


class BrowseQueries:
    """The browser's part of `SqlStore`."""

    conn: Connection

    def browse_subjects(self, query: SubjectQuery) -> SubjectPage:
        """A page of subjects and the number of all that match: two statements."""
        if not storable(query.q, query.context):
            return SubjectPage(0, [])
        counted = select(func.count()).select_from(_filtered([S.c.id], query).subquery())
        total = int(self.conn.execute(counted).scalar_one())
        page = _ordered(_filtered(_LISTING_COLUMNS, query), query.sort).limit(query.limit).offset(query.offset)
        return SubjectPage(total, [_listing(r) for r in self.conn.execute(page)])

    def browse_subject_names(self, query: SubjectQuery) -> list[tuple[str, str]]:
        """Every matching (context, name) in the list's order, unpaged: one statement."""
        if not storable(query.q, query.context):
            return []
        statement = _ordered(_filtered([S.c.context, S.c.name], query), query.sort)
        return [(r[0], r[1]) for r in self.conn.execute(statement)]

    def browse_subjects_named(self, names: Sequence[tuple[str, str]], query: SubjectQuery) -> list[SubjectListing]:
        """The listings of these subjects, in the order given: one statement."""
        wanted = [(c, n) for c, n in names if storable(c, n)]
        if not wanted:
            return []
        unpaged = query._replace(q="", offset=0)
        statement = _filtered(_LISTING_COLUMNS, unpaged).where(tuple_(S.c.context, S.c.name).in_(wanted))
        found = {(r[1], r[2]): _listing(r) for r in self.conn.execute(statement)}
        return [found[key] for key in wanted if key in found]

    def search_index(self, query: IndexQuery) -> IndexPage:
        """A page of index hits, exact names first, and the number of all: two statements."""
        if not query.prefix or not storable(query.prefix, query.context):
            return IndexPage(0, [])
        statement = _index_statement(query)
        total = int(self.conn.execute(select(func.count()).select_from(statement.subquery())).scalar_one())
        page = _index_order(statement, query).limit(query.limit).offset(query.offset)
        return IndexPage(total, [_hit(r) for r in self.conn.execute(page)])

    def search_index_all(self, query: IndexQuery) -> list[IndexHit]:
        """Every hit in page order, unpaged (for callers that filter by permission)."""
        if not query.prefix or not storable(query.prefix, query.context):
            return []
        return [_hit(r) for r in self.conn.execute(_index_order(_index_statement(query), query))]

    def subject_counts(self) -> dict[str, int]:
        """Subjects with live versions, per context: one statement."""
        statement = (
            select(S.c.context, func.count(func.distinct(S.c.id)))
            .select_from(S.join(V, V.c.subject_id == S.c.id))
            .where(S.c.name != "", V.c.deleted.is_(False))
            .group_by(S.c.context)
        )
        return {context: int(count) for context, count in self.conn.execute(statement)}
