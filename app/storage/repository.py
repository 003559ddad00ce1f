"""Per-subject reads, every write, and the transactions and locks around them.

Cross-subject listings are in `listings.py` (a mixin of `Store`); the hottest reads run on
the raw cursor through `direct.py`. `Repository.read()` / `Repository.write()` hand out a
`Store` bound to one connection. A write is one transaction: the subject row is locked (`SELECT ... FOR UPDATE` on
PostgreSQL; SQLite takes its single writer lock with `BEGIN IMMEDIATE`), so version
numbers are assigned one at a time per subject while different subjects proceed in
parallel on PostgreSQL.
"""
from __future__ import annotations

import hashlib
import time
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any, NamedTuple

from sqlalchemy import (
    Connection,
    Engine,
    and_,
    bindparam,
    delete,
    exists,
    func,
    insert,
    or_,
    select,
    text,
    update,
)
from sqlalchemy.dialects import sqlite
from sqlalchemy.exc import DBAPIError, IntegrityError
from sqlalchemy.exc import TimeoutError as PoolTimeout

from app.core.identity import guid_from_hash
from app.core.records import StoredSchema
from app.core.types import DEFAULT_CONTEXT, SchemaReference
from app.storage.direct import DirectStatement, json_value
from app.storage.engine import database_failure, is_transient, make_engine, transactional
from app.storage.listings import (
    HOLDER_COLUMNS,
    HOLDER_JOIN,
    SC,
    HolderRow,
    ListingQueries,
    S,
    SubjectRow,
    V,
    insert_ignoring_conflict,
    storable,
    subject_row,
)
from app.storage.models import IdCounter, SchemaReferenceRow

R = SchemaReferenceRow.__table__
IDC = IdCounter.__table__


class WriteConflict(Exception):
    """A concurrent writer won a race (unique key, deadlock, busy database); retry the transaction."""


class VersionRow(NamedTuple):
    version: int
    schema_pk: int
    schema_id: int
    hash: str
    deleted: bool
    created_at: int


class ReferrerRow(NamedTuple):
    """A subject-version whose schema references a given subject-version (`ref_version`)."""

    schema_context: str
    schema_id: int
    subject_id: int
    deleted: bool
    ref_version: int


def _stored_schema(row: Any) -> StoredSchema:
    refs = tuple(SchemaReference(r["name"], r["subject"], r["version"]) for r in row.references_doc or ())
    return StoredSchema(
        key=row.pk,
        context=row.context,
        id=row.id,
        guid=guid_from_hash(row.hash),
        schema_type=row.schema_type,
        schema=row.schema_text,
        references=refs,
        metadata=row.metadata_doc,
        rule_set=row.rule_set_doc,
    )


def _sequence_name(context: str) -> str:
    """A safe identifier per context: context names are user input, so they are hashed."""
    if context == DEFAULT_CONTEXT:
        return "schema_id_seq"
    return "schema_id_seq_" + hashlib.md5(context.encode("utf-8")).hexdigest()[:16]


def now_ms() -> int:
    return int(time.time() * 1000)


# The read path's statements are built once: constructing a select costs more than running
# it on SQLite, and prebuilt statements hit SQLAlchemy's compiled cache straight away.
_LIVE = V.alias("live_versions")
_LATEST_LIVE = (
    select(func.max(_LIVE.c.version))
    .where(_LIVE.c.subject_id == S.c.id, _LIVE.c.deleted.is_(False))
    .scalar_subquery()
)
_SUBJECT_VERSION_COLUMNS = (
    S, V.c.version, V.c.schema_pk, SC.c.id.label("schema_id"), SC.c.hash, V.c.deleted, V.c.created_at
)
_BY_SUBJECT = (S.c.context == bindparam("context"), S.c.name == bindparam("name"))


def _subject_with_version(version_condition: Any) -> Any:
    on = and_(V.c.subject_id == S.c.id, version_condition)
    return (
        select(*_SUBJECT_VERSION_COLUMNS)
        .select_from(S.outerjoin(V, on).outerjoin(SC, SC.c.pk == V.c.schema_pk))
        .where(*_BY_SUBJECT)
    )


_SELECT_SUBJECT = select(S).where(*_BY_SUBJECT)
_NUMBERED_VERSION_DIRECT = DirectStatement(_subject_with_version(V.c.version == bindparam("version")))
_LATEST_VERSION_DIRECT = DirectStatement(_subject_with_version(V.c.version == _LATEST_LIVE))
_SELECT_VERSIONS = (
    select(V.c.version, V.c.schema_pk, SC.c.id, SC.c.hash, V.c.deleted, V.c.created_at)
    .select_from(V.join(SC, SC.c.pk == V.c.schema_pk))
    .where(V.c.subject_id == bindparam("subject_id"))
    .order_by(V.c.version)
)
_SELECT_HOLDERS = (
    select(*HOLDER_COLUMNS).select_from(HOLDER_JOIN).where(SC.c.id == bindparam("schema_id"))
    .order_by(S.c.context, S.c.name, V.c.version)
)
_HOLDERS_DIRECT = DirectStatement(_SELECT_HOLDERS)
_HOLDERS_IN_CONTEXT_DIRECT = DirectStatement(_SELECT_HOLDERS.where(SC.c.context == bindparam("context")))
# Every holder of an id, each row carrying the config of the subject a `?subject=` hint names
# (its alias decides where to look), so the hinted read stays one statement.
_HINT_CONFIG = select(S.c.config).where(*_BY_SUBJECT).scalar_subquery()
_HOLDERS_WITH_HINT_DIRECT = DirectStatement(
    select(*HOLDER_COLUMNS, _HINT_CONFIG.label("hint_config")).select_from(HOLDER_JOIN)
    .where(SC.c.id == bindparam("schema_id")).order_by(S.c.context, S.c.name, V.c.version)
)


def _holder(row: Sequence[Any]) -> HolderRow:
    context, subject, version, deleted, created_at, schema_pk, schema_id = row
    return HolderRow(context, subject, version, bool(deleted), created_at, schema_pk, schema_id)


_SELECT_SCHEMAS = select(SC).where(SC.c.pk.in_(bindparam("pks", expanding=True)))


class Store(ListingQueries):
    """Queries on one connection (inside one transaction for writes)."""

    def __init__(self, conn: Connection):
        self.conn = conn
        self.dialect = conn.dialect.name

    # ------------------------------------------------------------ subjects and settings
    def subject(self, context: str, name: str) -> SubjectRow | None:
        if not storable(context, name):
            return None
        row = self.conn.execute(_SELECT_SUBJECT, {"context": context, "name": name}).first()
        return subject_row(row) if row else None

    def settings_rows(self, keys: Iterable[tuple[str, str]]) -> dict[tuple[str, str], SubjectRow]:
        """Several subject/context rows in one query (config and mode resolution)."""
        conds = [and_(S.c.context == c, S.c.name == n) for c, n in set(keys) if storable(c, n)]
        if not conds:
            return {}
        rows = self.conn.execute(select(S).where(or_(*conds))).all()
        return {(r.context, r.name): subject_row(r) for r in rows}

    def lock_subject(self, context: str, name: str) -> SubjectRow:
        """Create the subject row if needed and lock it until the transaction ends."""
        self.conn.execute(insert_ignoring_conflict(self.dialect, S, ["context", "name"], context=context, name=name))
        query = select(S).where(S.c.context == context, S.c.name == name)
        if self.dialect == "postgresql":
            query = query.with_for_update()
        return subject_row(self.conn.execute(query).one())

    def set_subject_settings(self, context: str, name: str, **values: Any) -> None:
        """Set `config` and/or `mode` on a subject/context row, creating the row if needed."""
        row = self.lock_subject(context, name)
        self.conn.execute(update(S).where(S.c.id == row.id).values(**values))

    def drop_subject_if_unused(self, subject_id: int) -> None:
        """A row with no versions, config or mode carries nothing: remove it."""
        self.conn.execute(
            delete(S).where(
                S.c.id == subject_id,
                S.c.config.is_(None),
                S.c.mode.is_(None),
                ~exists().where(V.c.subject_id == S.c.id),
            )
        )

    def clear_subject(self, subject_id: int) -> None:
        """Remove a subject whose versions are all gone, with its config and mode."""
        self.conn.execute(delete(S).where(S.c.id == subject_id))

    def subject_modes(self, context: str | None) -> list[SubjectRow]:
        if not storable(context):
            return []
        query = select(S).where(S.c.mode.is_not(None), S.c.name != "")
        if context is not None:
            query = query.where(S.c.context == context)
        return [subject_row(r) for r in self.conn.execute(query)]

    # ------------------------------------------------------------ versions
    def versions(self, subject_id: int) -> list[VersionRow]:
        rows = self.conn.execute(_SELECT_VERSIONS, {"subject_id": subject_id}).all()
        return [VersionRow(*r) for r in rows]

    def subject_version(
        self, context: str, name: str, version: int | None
    ) -> tuple[SubjectRow | None, VersionRow | None]:
        """The read path's one query: a subject row with one version (None = latest live)."""
        if not storable(context, name):
            return None, None
        if version is None:
            rows = _LATEST_VERSION_DIRECT.rows(self.conn, {"context": context, "name": name})
        else:
            rows = _NUMBERED_VERSION_DIRECT.rows(self.conn, {"context": context, "name": name, "version": version})
        if not rows:
            return None, None
        sid, ctx, subject_name, config, mode, number, schema_pk, schema_id, digest, deleted, created_at = rows[0]
        subject = SubjectRow(sid, ctx, subject_name, json_value(config), mode)
        if number is None:
            return subject, None
        return subject, VersionRow(number, schema_pk, schema_id, digest, bool(deleted), created_at)

    def insert_version(self, subject_id: int, version: int, schema_pk: int) -> int:
        ts = now_ms()
        self.conn.execute(
            insert(V).values(subject_id=subject_id, version=version, schema_pk=schema_pk, deleted=False, created_at=ts)
        )
        return ts

    def soft_delete(self, subject_id: int, versions: list[int]) -> None:
        self.conn.execute(
            update(V).where(V.c.subject_id == subject_id, V.c.version.in_(versions)).values(deleted=True)
        )

    def hard_delete(self, subject_id: int, versions: list[int], schema_pks: Iterable[int]) -> None:
        """Remove version rows, then any schema no subject-version holds any more (its id
        becomes unknown, and the same text registered later gets a fresh id)."""
        self.conn.execute(delete(V).where(V.c.subject_id == subject_id, V.c.version.in_(versions)))
        pks = sorted(set(schema_pks))
        if pks:
            orphan = and_(SC.c.pk.in_(pks), ~exists().where(V.c.schema_pk == SC.c.pk))
            self.conn.execute(delete(R).where(R.c.schema_pk.in_(select(SC.c.pk).where(orphan))))
            self.conn.execute(delete(SC).where(orphan))

    def versions_in_scope(
        self, context: str | None, name: str | None
    ) -> list[tuple[int, str, str, VersionRow]]:
        """(subject id, context, subject, version) for one subject, a context, or everything."""
        if not storable(context, name):
            return []
        query = select(
            V.c.subject_id, S.c.context, S.c.name,
            V.c.version, V.c.schema_pk, SC.c.id, SC.c.hash, V.c.deleted, V.c.created_at,
        ).select_from(V.join(S, S.c.id == V.c.subject_id).join(SC, SC.c.pk == V.c.schema_pk))
        if context is not None:
            query = query.where(S.c.context == context)
        if name is not None:
            query = query.where(S.c.name == name)
        return [(r[0], r[1], r[2], VersionRow(*r[3:])) for r in self.conn.execute(query)]

    # ------------------------------------------------------------ schemas
    def holders_of_id(self, schema_id: int, context: str | None = None) -> list[HolderRow]:
        if not storable(context):
            return []
        if context is None:
            rows = _HOLDERS_DIRECT.rows(self.conn, {"schema_id": schema_id})
        else:
            rows = _HOLDERS_IN_CONTEXT_DIRECT.rows(self.conn, {"schema_id": schema_id, "context": context})
        return [_holder(r) for r in rows]

    def holders_with_hint(
        self, schema_id: int, context: str, name: str
    ) -> tuple[list[HolderRow], dict[str, Any] | None]:
        """Every holder of an id (all contexts), and the own config of the hinted subject;
        the config is only known when the id has holders, which is the only case that needs it."""
        if not storable(context, name):
            return self.holders_of_id(schema_id), None
        rows = _HOLDERS_WITH_HINT_DIRECT.rows(self.conn, {"schema_id": schema_id, "context": context, "name": name})
        return [_holder(r[:-1]) for r in rows], (json_value(rows[0][-1]) if rows else None)

    def schemas_by_hash(self, digest: str, context: str | None = None) -> list[tuple[int, str, int]]:
        """(pk, context, id) of stored schemas with this identity hash, lowest id first."""
        if not storable(context):
            return []
        query = select(SC.c.pk, SC.c.context, SC.c.id).where(SC.c.hash == digest)
        if context is not None:
            query = query.where(SC.c.context == context)
        return [tuple(r) for r in self.conn.execute(query.order_by(SC.c.context, SC.c.id))]  # type: ignore[misc]

    def schema_pk_for_id(self, context: str, schema_id: int) -> int | None:
        return self.conn.execute(select(SC.c.pk).where(SC.c.context == context, SC.c.id == schema_id)).scalar()

    def max_id(self, context: str) -> int | None:
        return self.conn.execute(select(func.max(SC.c.id)).where(SC.c.context == context)).scalar()

    def load_schemas(self, pks: Iterable[int]) -> dict[int, StoredSchema]:
        """Several schemas' content in one query (cold caches must not cost a query each)."""
        wanted = sorted(set(pks))
        if not wanted:
            return {}
        rows = self.conn.execute(_SELECT_SCHEMAS, {"pks": wanted}).all()
        return {row.pk: _stored_schema(row) for row in rows}

    def load_schema(self, pk: int) -> StoredSchema | None:
        return self.load_schemas([pk]).get(pk)

    def lock_hash(self, digest: str) -> None:
        """Serialize registrations of the same content across subjects (PostgreSQL), so two
        concurrent first registrations of one schema cannot mint two ids."""
        if self.dialect == "postgresql":
            key = int.from_bytes(bytes.fromhex(digest[:16]), "big", signed=True)
            self.conn.execute(text("SELECT pg_advisory_xact_lock(:k)"), {"k": key})

    def allocate_id(self, context: str) -> int:
        """The next id of a context. Each context counts its own ids, as in the reference;
        on PostgreSQL each has its own sequence (the default context's is created by the
        migration, a named context's on first use), so allocation never blocks."""
        if self.dialect == "postgresql":
            sequence = _sequence_name(context)
            if context != DEFAULT_CONTEXT:
                self.conn.execute(text(f"CREATE SEQUENCE IF NOT EXISTS {sequence}"))
            return int(self.conn.execute(text(f"SELECT nextval('{sequence}')")).scalar_one())
        self._ensure_counter(context)
        self.conn.execute(update(IDC).where(IDC.c.name == context).values(value=IDC.c.value + 1))
        return int(self.conn.execute(select(IDC.c.value).where(IDC.c.name == context)).scalar_one())

    def move_id_allocation_past(self, context: str, schema_id: int) -> None:
        """After IMPORT stored an explicit id, later allocations must stay above it."""
        if self.dialect == "postgresql":
            sequence = _sequence_name(context)
            self.conn.execute(text(f"CREATE SEQUENCE IF NOT EXISTS {sequence}"))
            self.conn.execute(
                text(f"SELECT setval('{sequence}', GREATEST(:id, (SELECT last_value FROM {sequence})))"),
                {"id": schema_id},
            )
            return
        self._ensure_counter(context)
        self.conn.execute(
            update(IDC).where(IDC.c.name == context, IDC.c.value < schema_id).values(value=schema_id)
        )

    def _ensure_counter(self, context: str) -> None:
        self.conn.execute(sqlite.insert(IDC).values(name=context, value=0).on_conflict_do_nothing())

    def insert_schema(
        self,
        context: str,
        schema_id: int,
        digest: str,
        schema_type: str,
        text_: str,
        references: list[tuple[SchemaReference, str, str]],
        metadata: dict[str, Any] | None,
        rule_set: dict[str, Any] | None,
    ) -> int:
        """Store new content. Each reference comes as (reference as stored, context and
        subject name it points at), the latter being what `referencedby` queries."""
        pk = self.conn.execute(
            insert(SC)
            .values(
                context=context,
                id=schema_id,
                hash=digest,
                schema_type=schema_type,
                schema_text=text_,
                references_doc=[ref.to_json() for ref, _, _ in references] or None,
                metadata_doc=metadata,
                rule_set_doc=rule_set,
            )
            .returning(SC.c.pk)
        ).scalar_one()
        if references:
            self.conn.execute(
                insert(R),
                [
                    {
                        "schema_pk": pk,
                        "position": i,
                        "name": ref.name,
                        "ref_context": ctx,
                        "ref_subject": name,
                        "ref_version": ref.version,
                    }
                    for i, (ref, ctx, name) in enumerate(references)
                ],
            )
        return int(pk)

    def referrers(self, context: str, subject: str, versions: Iterable[int]) -> list[ReferrerRow]:
        """Subject-versions whose schema references one of these versions of a subject."""
        if not storable(context, subject):
            return []
        rows = self.conn.execute(
            select(SC.c.context, SC.c.id, V.c.subject_id, V.c.deleted, R.c.ref_version)
            .select_from(R.join(SC, SC.c.pk == R.c.schema_pk).join(V, V.c.schema_pk == SC.c.pk))
            .where(R.c.ref_context == context, R.c.ref_subject == subject, R.c.ref_version.in_(list(versions)))
            .order_by(SC.c.context, SC.c.id)
        ).all()
        return [ReferrerRow(*r) for r in rows]


class Repository:
    """Connections for reads and write transactions, with database failures already translated:
    a database that is down, restarting or locked surfaces as Confluent's 50001/50002
    (`engine.database_failure`), never as a driver exception."""

    def __init__(self, engine: Engine):
        self.engine = engine
        # The driver module: direct.py's statements raise its exceptions unwrapped.
        self._dbapi = engine.dialect.loaded_dbapi

    @classmethod
    def from_url(cls, url: str) -> Repository:
        return cls(make_engine(url))

    @contextmanager
    def read(self) -> Iterator[Store]:
        """Reads run in autocommit (the engine's default, see engine.py): no BEGIN/ROLLBACK
        round trips on the hot path. A pooled connection the server has closed is replaced
        at checkout (engine.py), so the first read after a restart does not fail on it."""
        try:
            with self.engine.connect() as conn:
                if conn.dialect.name == "sqlite":
                    conn.execution_options(sqlite_no_begin=True)  # pysqlite's own autocommit is on
                try:
                    yield Store(conn)
                except self._dbapi.Error as exc:
                    self._drop_if_disconnected(conn, exc)
                    raise
        except (DBAPIError, PoolTimeout, self._dbapi.Error) as exc:
            failure = database_failure(exc, self._dbapi)
            if failure is None:
                raise
            raise failure from exc

    @contextmanager
    def write(self) -> Iterator[Store]:
        """One transaction; concurrency failures surface as WriteConflict for the caller to retry,
        failures of the database itself as 50001/50002."""
        try:
            with self.engine.connect() as conn:
                transactional(conn)
                with conn.begin():
                    try:
                        yield Store(conn)
                    except self._dbapi.Error as exc:
                        self._drop_if_disconnected(conn, exc)
                        raise
        except IntegrityError as exc:
            raise WriteConflict(str(exc.orig)) from exc
        except (DBAPIError, PoolTimeout, self._dbapi.Error) as exc:
            if isinstance(exc, DBAPIError) and is_transient(exc):
                raise WriteConflict(str(exc.orig)) from exc
            failure = database_failure(exc, self._dbapi)
            if failure is None:
                raise
            raise failure from exc

    def _drop_if_disconnected(self, conn: Connection, exc: Exception) -> None:
        """SQLAlchemy invalidates a connection that failed under its own `execute`; one that
        failed under direct.py's raw cursor is invalidated here, so it is not pooled again."""
        if not conn.invalidated and conn.dialect.is_disconnect(exc, conn.connection.dbapi_connection, None):
            conn.invalidate(exc)
