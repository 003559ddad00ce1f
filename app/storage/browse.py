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

from sqlalchemy import Connection, Select, and_, false, func, or_, select, tuple_

from app.core.store.browse import IndexHit, IndexPage, IndexQuery, SubjectListing, SubjectPage, SubjectQuery
from app.storage.direct import json_value
from app.storage.listings import SC, S, V, storable
from app.storage.models import SchemaField

SF = SchemaField.__table__
_LATEST = V.alias("latest")
_COUNTED = V.alias("counted")
_SHOWN = V.alias("shown")

# The version a row shows: the newest live one, or for a subject whose versions are all
# soft-deleted (listed only with `deleted`) the newest of those.
_NEWEST_ANY = select(func.max(_SHOWN.c.version)).where(_SHOWN.c.subject_id == S.c.id).scalar_subquery()
_VERSION_COUNT = (
    select(func.count())
    .where(_COUNTED.c.subject_id == S.c.id, or_(_COUNTED.c.deleted.is_(False), S.c.latest_version.is_(None)))
    .scalar_subquery()
)
_LISTING_COLUMNS = (
    S.c.id, S.c.context, S.c.name, SC.c.schema_type, _LATEST.c.version, SC.c.id.label("schema_id"),
    _VERSION_COUNT.label("versions"), S.c.latest_version.is_(None).label("all_deleted"), S.c.config, S.c.mode,
    _LATEST.c.created_at,
)


def _shown(query: SubjectQuery) -> Any:
    return func.coalesce(S.c.latest_version, _NEWEST_ANY) if query.deleted else S.c.latest_version


def _with_latest(source: Any, query: SubjectQuery) -> Any:
    """`source` joined to the version each subject shows and that version's content."""
    return source.join(_LATEST, and_(_LATEST.c.subject_id == S.c.id, _LATEST.c.version == _shown(query))).join(
        SC, SC.c.pk == _LATEST.c.schema_pk
    )


def _matching(columns: Sequence[Any], query: SubjectQuery, *, latest: bool) -> Select[Any]:
    """The subjects the filters keep; the shown version is joined only when `latest` (a
    count without a type filter reads the subjects' rows alone)."""
    statement = select(*columns).select_from(_with_latest(S, query) if latest else S).where(S.c.name != "")
    if query.deleted:
        statement = statement.where(or_(S.c.latest_version.is_not(None), _NEWEST_ANY.is_not(None)))
    else:
        statement = statement.where(S.c.latest_version.is_not(None))
    if query.context is not None:
        statement = statement.where(S.c.context == query.context)
    if query.q:
        statement = statement.where(func.lower(S.c.name).contains(query.q, autoescape=True))
    if query.schema_type:
        statement = statement.where(SC.c.schema_type == query.schema_type)
    if query.own_config:
        statement = statement.where(S.c.config.is_not(None))
    if query.own_settings:
        statement = statement.where(or_(S.c.config.is_not(None), S.c.mode.is_not(None)))
    if query.level is not None:
        wanted = query.level
        own_level = func.coalesce(func.nullif(S.c.config["compatibility"].as_string(), ""), wanted.default_level)
        inherits = S.c.context.in_(wanted.inheriting_contexts) if wanted.inheriting_contexts else false()
        statement = statement.where(or_(
            and_(S.c.config.is_not(None), own_level == wanted.level),
            and_(S.c.config.is_(None), inherits),
        ))
    return statement


def _order(sort: str) -> tuple[Any, ...]:
    if sort == "updated":
        return (_LATEST.c.created_at.desc(), S.c.context, S.c.name)
    return (S.c.context, S.c.name)


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


def _hits(columns: Sequence[Any], query: IndexQuery, *, content: bool = False) -> Select[Any]:
    """Index rows in the name range, with the live subject-versions holding them (each
    subject's newest live one unless `all_versions`); `content` joins the schema row."""
    low, high = _prefix_bounds(query.prefix)
    source = SF.join(V, V.c.schema_pk == SF.c.schema_pk).join(S, S.c.id == V.c.subject_id)
    if content:
        source = source.join(SC, SC.c.pk == SF.c.schema_pk)
    statement = select(*columns).select_from(source).where(
        SF.c.kind == query.kind, SF.c.name_lower >= low, SF.c.name_lower < high, V.c.deleted.is_(False)
    )
    if not query.all_versions:
        statement = statement.where(V.c.version == S.c.latest_version)
    if query.context is not None:
        statement = statement.where(S.c.context == query.context)
    return statement


_HIT_COLUMNS = (
    S.c.context, S.c.name, V.c.version, SC.c.id, V.c.deleted, SF.c.kind, SF.c.path, SF.c.name, SF.c.type_label,
    SF.c.doc,
)
# The index's own order (kind, name, content, position): exact names come first as the
# shortest in their range, and a page is read off the index without sorting every hit.
_HIT_ORDER = (SF.c.name_lower, SF.c.schema_pk, SF.c.position, S.c.context, S.c.name)


def _hit(row: Sequence[Any]) -> IndexHit:
    context, subject, version, schema_id, deleted, kind, path, name, type_label, doc = row
    return IndexHit(context, subject, version, schema_id, bool(deleted), kind, path, name, type_label, doc)


class BrowseQueries:
    """The browser's part of `SqlStore`."""

    conn: Connection

    def browse_subjects(self, query: SubjectQuery) -> SubjectPage:
        """A page of subjects and the number of all that match: two statements. The page's
        subjects are chosen first, then only they are read in full."""
        if not storable(query.q, query.context):
            return SubjectPage(0, [])
        needs_latest = bool(query.schema_type)
        counted = select(func.count()).select_from(_matching([S.c.id], query, latest=needs_latest).subquery())
        total = int(self.conn.execute(counted).scalar_one())
        chosen = (
            _matching([S.c.id], query, latest=needs_latest or query.sort == "updated")
            .order_by(*_order(query.sort)).limit(query.limit).offset(query.offset).subquery("chosen")
        )
        page = (
            select(*_LISTING_COLUMNS)
            .select_from(_with_latest(chosen.join(S, S.c.id == chosen.c.id), query))
            .order_by(*_order(query.sort))
        )
        return SubjectPage(total, [_listing(r) for r in self.conn.execute(page)])

    def browse_subject_names(self, query: SubjectQuery) -> list[tuple[str, str]]:
        """Every matching (context, name) in the list's order, unpaged: one statement."""
        if not storable(query.q, query.context):
            return []
        latest = bool(query.schema_type) or query.sort == "updated"
        statement = _matching([S.c.context, S.c.name], query, latest=latest).order_by(*_order(query.sort))
        return [(r[0], r[1]) for r in self.conn.execute(statement)]

    def browse_subjects_named(self, names: Sequence[tuple[str, str]], query: SubjectQuery) -> list[SubjectListing]:
        """The listings of these subjects, in the order given: one statement."""
        wanted = [(c, n) for c, n in names if storable(c, n)]
        if not wanted:
            return []
        statement = _matching(_LISTING_COLUMNS, query._replace(q=""), latest=True).where(
            tuple_(S.c.context, S.c.name).in_(wanted)
        )
        found = {(r[1], r[2]): _listing(r) for r in self.conn.execute(statement)}
        return [found[key] for key in wanted if key in found]

    def search_index(self, query: IndexQuery) -> IndexPage:
        """A page of index hits, exact names first, and the number of all: two statements."""
        if not query.prefix or not storable(query.prefix, query.context):
            return IndexPage(0, [])
        counted = select(func.count()).select_from(_hits([SF.c.schema_pk], query).subquery())
        total = int(self.conn.execute(counted).scalar_one())
        page = _hits(_HIT_COLUMNS, query, content=True).order_by(*_HIT_ORDER).limit(query.limit).offset(query.offset)
        return IndexPage(total, [_hit(r) for r in self.conn.execute(page)])

    def search_index_all(self, query: IndexQuery) -> list[IndexHit]:
        """Every hit in page order, unpaged (for callers that filter by permission)."""
        if not query.prefix or not storable(query.prefix, query.context):
            return []
        statement = _hits(_HIT_COLUMNS, query, content=True).order_by(*_HIT_ORDER)
        return [_hit(r) for r in self.conn.execute(statement)]

    def subject_counts(self) -> dict[str, int]:
        """Subjects with live versions, per context: one statement over the subjects' rows."""
        statement = (
            select(S.c.context, func.count())
            .where(S.c.name != "", S.c.latest_version.is_not(None))
            .group_by(S.c.context)
        )
        return {context: int(count) for context, count in self.conn.execute(statement)}
