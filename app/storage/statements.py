"""Every statement the store runs on a hot path, built once at import.

Constructing a SQLAlchemy statement (coercing columns, generating its cache key) costs more
than SQLite needs to run it, and a registration runs a dozen: so the store executes these
prebuilt statements with parameters, and the few that differ by dialect (upserts, row locks)
come in one variant per dialect. The hottest reads also run on the raw cursor (direct.py).
"""
from __future__ import annotations

import functools
import importlib
from collections.abc import Callable
from typing import Any

from sqlalchemy import and_, bindparam, exists, func, insert, select, text, true, tuple_, update
from sqlalchemy.sql import Executable

from app.core.records import DEFAULT_CONTEXT
from app.storage.direct import DirectStatement
from app.storage.listings import HOLDER_COLUMNS, HOLDER_JOIN, SC, C, S, V
from app.storage.models import IdCounter, SchemaField, SchemaFingerprint, SchemaReferenceRow

R = SchemaReferenceRow.__table__
IDC = IdCounter.__table__
FP = SchemaFingerprint.__table__
SF = SchemaField.__table__


class PerDialect:
    """`build(insert)` with a dialect's own `insert` (ON CONFLICT is spelled alike), built on
    first use: importing a dialect module costs start-up time a SQLite registry never needs."""

    def __init__(self, build: Callable[[Any], Executable]):
        self._build = build
        self._built: dict[str, Executable] = {}

    def __getitem__(self, dialect: str) -> Executable:
        statement = self._built.get(dialect)
        if statement is None:
            module = importlib.import_module(f"sqlalchemy.dialects.{dialect}")
            statement = self._built[dialect] = self._build(module.insert)
        return statement


# ------------------------------------------------------------------ subjects
BY_SUBJECT = (S.c.context == bindparam("context"), S.c.name == bindparam("name"))
# Raw-cursor rows of the subject statements are SUBJECT_COLUMNS in this order (`_direct_subject_row`).
SUBJECT_COLUMNS = (S.c.id, S.c.context, S.c.name, S.c.config, S.c.mode)
SELECT_SUBJECT_DIRECT = DirectStatement(select(*SUBJECT_COLUMNS).where(*BY_SUBJECT))
SELECT_SUBJECT_FOR_UPDATE_DIRECT = DirectStatement(
    # SQLite's write transaction already holds the database lock.
    lambda dialect: select(*SUBJECT_COLUMNS).where(*BY_SUBJECT).with_for_update()
    if dialect == "postgresql" else select(*SUBJECT_COLUMNS).where(*BY_SUBJECT)
)
# Returns the row only when this statement created it (and so holds its lock already).
CREATE_SUBJECT = PerDialect(lambda ins: ins(S).values(
    context=bindparam("context"), name=bindparam("name"),
).on_conflict_do_nothing(index_elements=["context", "name"]).returning(*SUBJECT_COLUMNS))
CREATE_SUBJECT_DIRECT = DirectStatement(lambda dialect: CREATE_SUBJECT[dialect])
# PostgreSQL: the same, and when it creates the row, the lock of a content identity (`k`) in
# the same round trip, taken after the subject's as registration always takes them.
CREATE_SUBJECT_LOCKING_IDENTITY_DIRECT = DirectStatement(text(
    "WITH created AS (INSERT INTO subjects (context, name) VALUES (:context, :name) "
    "ON CONFLICT (context, name) DO NOTHING RETURNING id, context, name, config, mode) "
    "SELECT id, context, name, config, mode, CAST(pg_advisory_xact_lock(:k) AS TEXT) FROM created"
))


@functools.cache
def settings_rows_direct(count: int) -> DirectStatement:
    """`count` subject/context rows by (context, name): parameters c0, n0, c1, n1, ...
    (config resolution asks for at most three: the global, the context's, the subject's)."""
    keys = [tuple_(bindparam(f"c{i}"), bindparam(f"n{i}")) for i in range(count)]
    return DirectStatement(select(*SUBJECT_COLUMNS).where(tuple_(S.c.context, S.c.name).in_(keys)))



ENSURE_CONTEXT = PerDialect(lambda ins: ins(C).values(
    name=bindparam("context")).on_conflict_do_nothing(index_elements=["name"]))

# ------------------------------------------------------------------ versions
LIVE_ALIAS = V.alias("live_versions")
LATEST_LIVE_NUMBER = (
    select(func.max(LIVE_ALIAS.c.version))
    .where(LIVE_ALIAS.c.subject_id == S.c.id, LIVE_ALIAS.c.deleted.is_(False))
    .scalar_subquery()
)
SUBJECT_VERSION_COLUMNS = (
    *SUBJECT_COLUMNS, V.c.version, V.c.schema_pk, SC.c.id.label("schema_id"), SC.c.hash, V.c.deleted, V.c.created_at
)


def _subject_with_version(version_condition: Any) -> Any:
    on = and_(V.c.subject_id == S.c.id, version_condition)
    return (
        select(*SUBJECT_VERSION_COLUMNS)
        .select_from(S.outerjoin(V, on).outerjoin(SC, SC.c.pk == V.c.schema_pk))
        .where(*BY_SUBJECT)
    )


NUMBERED_VERSION_DIRECT = DirectStatement(_subject_with_version(V.c.version == bindparam("version")))
LATEST_VERSION_DIRECT = DirectStatement(_subject_with_version(V.c.version == LATEST_LIVE_NUMBER))
VERSION_COLUMNS = (V.c.version, V.c.schema_pk, SC.c.id, SC.c.hash, V.c.deleted, V.c.created_at)
SELECT_VERSIONS = (
    select(*VERSION_COLUMNS)
    .select_from(V.join(SC, SC.c.pk == V.c.schema_pk))
    .where(V.c.subject_id == bindparam("subject_id"))
    .order_by(V.c.version)
)
SELECT_LIVE_VERSIONS = SELECT_VERSIONS.where(V.c.deleted.is_(False))
LATEST_LIVE_OF_SUBJECT = (
    select(*VERSION_COLUMNS).select_from(V.join(SC, SC.c.pk == V.c.schema_pk))
    .where(V.c.subject_id == bindparam("subject_id"), V.c.deleted.is_(False))
    .order_by(V.c.version.desc()).limit(1)
)
# The highest number as "the first of the subject's versions from the top", not max(): with
# statistics that expect a subject to hold a version or two (the usual subject), PostgreSQL
# computes max() by reading every version of a long one; a LIMIT 1 walks its index backward.
_LAST_NUMBER = select(
    select(V.c.version).where(V.c.subject_id == bindparam("subject_id"))
    .order_by(V.c.version.desc()).limit(1).scalar_subquery().label("last")
).subquery()
_LATEST_LIVE = LATEST_LIVE_OF_SUBJECT.subquery()
# The highest version number and the newest live version in one round trip.
SUBJECT_HEAD = select(_LAST_NUMBER.c.last, *_LATEST_LIVE.c).select_from(_LAST_NUMBER.outerjoin(_LATEST_LIVE, true()))
SUBJECT_HEAD_DIRECT = DirectStatement(SUBJECT_HEAD)
# Registration reads these under the subject's lock (and in its pre-check) on every new version.


def _versions_with_text(dialect: str) -> Executable:
    """A subject's versions holding one text: the content first, then its versions in the
    subject by (schema_pk, subject_id). On PostgreSQL the content is MATERIALIZED and each of
    its rows looked up on its own, so the planner cannot start from the subject instead, which
    statistics expecting a version or two per subject make look cheap and which reads every
    version of a long subject. SQLite, whose planner would do the same to avoid sorting, is told
    the order with CROSS JOIN (not every SQLite knows MATERIALIZED, and none knows LATERAL)."""
    if dialect != "postgresql":  # SQLite takes CROSS JOIN as "this order" (SQLAlchemy has no spelling for it)
        return text(
            "SELECT v.version, v.schema_pk, c.id, c.hash, v.deleted, v.created_at FROM "
            "(SELECT pk, id, hash FROM schemas WHERE text_hash = :text_hash AND schema_text = :text) AS c "
            "CROSS JOIN subject_versions AS v ON v.schema_pk = c.pk WHERE v.subject_id = :subject_id ORDER BY v.version"
        )
    content = select(SC.c.pk, SC.c.id, SC.c.hash).where(
        SC.c.text_hash == bindparam("text_hash"), SC.c.schema_text == bindparam("text"))
    first = content.cte("content").prefix_with("MATERIALIZED")
    # OFFSET 0 keeps the lookup a subquery run per content row, not a join the planner may turn round.
    versions = (
        select(V.c.version, V.c.schema_pk, V.c.deleted, V.c.created_at)
        .where(V.c.schema_pk == first.c.pk, V.c.subject_id == bindparam("subject_id"))
        .offset(0).lateral("held")
    )
    return (
        select(versions.c.version, versions.c.schema_pk, first.c.id, first.c.hash, versions.c.deleted,
               versions.c.created_at)
        .select_from(first.join(versions, true()))
        .order_by(versions.c.version)
    )


VERSIONS_WITH_TEXT_DIRECT = DirectStatement(_versions_with_text)
VERSIONS_OF_SCHEMA = SELECT_VERSIONS.where(V.c.schema_pk == bindparam("schema_pk"))
HAS_VERSION = select(exists().where(V.c.subject_id == bindparam("subject_id"), V.c.version == bindparam("version")))
# `subjects.latest_version` after any change to a subject's versions (the browser's lists and
# searches read it instead of finding each subject's newest live version).
REFRESH_LATEST_DIRECT = DirectStatement(
    update(S).where(S.c.id == bindparam("subject_id")).values(latest_version=(
        select(func.max(LIVE_ALIAS.c.version))
        .where(LIVE_ALIAS.c.subject_id == bindparam("subject_id"), LIVE_ALIAS.c.deleted.is_(False))
        .scalar_subquery()
    ))
)
INSERT_VERSION_DIRECT = DirectStatement(insert(V).values(
    subject_id=bindparam("subject_id"), version=bindparam("version"), schema_pk=bindparam("schema_pk"),
    deleted=False, created_at=bindparam("created_at"),
))

# ------------------------------------------------------------------ schemas and holders
SELECT_HOLDERS = (
    select(*HOLDER_COLUMNS).select_from(HOLDER_JOIN).where(SC.c.id == bindparam("schema_id"))
    .order_by(S.c.context, S.c.name, V.c.version)
)
HOLDERS_DIRECT = DirectStatement(SELECT_HOLDERS)
HOLDERS_IN_CONTEXT_DIRECT = DirectStatement(SELECT_HOLDERS.where(SC.c.context == bindparam("context")))
# Every holder of an id, each row carrying the config of the subject a `?subject=` hint names
# (its alias decides where to look), so the hinted read stays one statement.
HINT_CONFIG = select(S.c.config).where(*BY_SUBJECT).scalar_subquery()
HOLDERS_WITH_HINT_DIRECT = DirectStatement(
    select(*HOLDER_COLUMNS, HINT_CONFIG.label("hint_config")).select_from(HOLDER_JOIN)
    .where(SC.c.id == bindparam("schema_id")).order_by(S.c.context, S.c.name, V.c.version)
)
# Rows of the content statements are STORED_SCHEMA_COLUMNS in this order (`_stored_schema`).
STORED_SCHEMA_COLUMNS = (SC.c.pk, SC.c.context, SC.c.id, SC.c.hash, SC.c.schema_type, SC.c.schema_text,
                         SC.c.references_doc, SC.c.metadata_doc, SC.c.rule_set_doc)
SELECT_SCHEMAS = select(*STORED_SCHEMA_COLUMNS).where(SC.c.pk.in_(bindparam("pks", expanding=True)))
# One content, the usual cold read (a subject's latest, in another worker than the one that
# stored it): on the raw cursor, where the expanding IN above is compiled on every call.
SELECT_SCHEMA_DIRECT = DirectStatement(select(*STORED_SCHEMA_COLUMNS).where(SC.c.pk == bindparam("pk")))
SCHEMA_KEY_COLUMNS = (SC.c.pk, SC.c.context, SC.c.id)
SCHEMAS_BY_HASH = select(*SCHEMA_KEY_COLUMNS).where(SC.c.hash == bindparam("digest")).order_by(SC.c.context, SC.c.id)
# `id + 0`: ordered by the bare column, SQLite (no ANALYZE statistics) walks the unique
# (context, id) index to skip the sort and reads every schema of the context on each
# registration; the (context, hash) index finds the one or two rows instead.
SCHEMAS_BY_HASH_IN_CONTEXT_DIRECT = DirectStatement(
    select(*SCHEMA_KEY_COLUMNS)
    .where(SC.c.hash == bindparam("digest"), SC.c.context == bindparam("context"))
    .order_by(SC.c.id + 0)
)
SCHEMA_PK_FOR_ID = select(SC.c.pk).where(SC.c.context == bindparam("context"), SC.c.id == bindparam("schema_id"))
MAX_ID = select(func.max(SC.c.id)).where(SC.c.context == bindparam("context"))
_SCHEMA_VALUES = dict(
    context=bindparam("context"), hash=bindparam("hash"),
    schema_type=bindparam("schema_type"), schema_text=bindparam("schema_text"), text_hash=bindparam("text_hash"),
    references_doc=bindparam("references_doc"), metadata_doc=bindparam("metadata_doc"),
    rule_set_doc=bindparam("rule_set_doc"),
)
# The *_doc parameters are JSON text (or None for SQL NULL): raw-cursor statements.
INSERT_SCHEMA_DIRECT = DirectStatement(
    insert(SC).values(id=bindparam("schema_id"), **_SCHEMA_VALUES).returning(SC.c.pk, SC.c.id)
)
INSERT_REFERENCE = insert(R)
INSERT_FINGERPRINT_DIRECT = DirectStatement(insert(FP).values(
    schema_pk=bindparam("schema_pk"), algorithm=bindparam("algorithm"), digest=bindparam("digest"),
))
INSERT_SCHEMA_FIELD_DIRECT = DirectStatement(insert(SF).values(
    schema_pk=bindparam("schema_pk"), position=bindparam("position"), kind=bindparam("kind"),
    name_lower=bindparam("name_lower"), name=bindparam("name"), path=bindparam("path"),
    type_label=bindparam("type_label"), doc=bindparam("doc"),
))
# Default context only: single-object encoding names a schema without a context.
SCHEMAS_BY_FINGERPRINT = (
    select(*SCHEMA_KEY_COLUMNS).select_from(FP.join(SC, SC.c.pk == FP.c.schema_pk))
    .where(FP.c.algorithm == bindparam("algorithm"), FP.c.digest == bindparam("digest"), SC.c.context == DEFAULT_CONTEXT)
    .order_by(SC.c.id)
)
ADVISORY_XACT_LOCK_DIRECT = DirectStatement(text("SELECT pg_advisory_xact_lock(:k)"))

# ------------------------------------------------------------------ SQLite id counters
ENSURE_COUNTER = PerDialect(lambda ins: ins(IDC).values(name=bindparam("context"), value=0).on_conflict_do_nothing())
NEXT_COUNTER = (
    update(IDC).where(IDC.c.name == bindparam("context")).values(value=IDC.c.value + 1).returning(IDC.c.value)
)
