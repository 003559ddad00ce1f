"""Per-subject reads, every write, and the transactions and locks around them: the SQL
implementation of the core's `Storage` and `Store` protocols (`app.core.store.protocol`).

Cross-subject listings are in `listings.py` (a mixin of `SqlStore`); the hottest reads run on
the raw cursor through `direct.py`. `Repository.read()` / `Repository.write()` hand out a
`SqlStore` bound to one connection. A write is one transaction: the subject row is locked
(`SELECT ... FOR UPDATE` on PostgreSQL; SQLite takes its single writer lock with
`BEGIN IMMEDIATE`), so version numbers are assigned one at a time per subject while
different subjects proceed in parallel on PostgreSQL.
"""
from __future__ import annotations

from collections.abc import Hashable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any

from sqlalchemy import (
    Connection,
    Engine,
    and_,
    delete,
    exists,
    select,
    update,
)
from sqlalchemy.exc import DBAPIError, IntegrityError
from sqlalchemy.exc import TimeoutError as PoolTimeout

from app.core.errors import WriteConflict
from app.core.records import SchemaReference, StoredSchema
from app.core.store.audit import AuditEntry
from app.core.store.rows import (
    HintedHolders,
    HolderRow,
    LockedSubject,
    ReferrerRow,
    SchemaKeyRow,
    ScopedVersion,
    SubjectHead,
    SubjectName,
    SubjectRow,
    SubjectVersionRow,
    VersionRow,
)
from app.storage.associations import AssociationQueries
from app.storage.audit import AuditStorage, insert_audit
from app.storage.browse import BrowseQueries
from app.storage.dek import DekQueries
from app.storage.changes import ChangeSignal
from app.storage import statements as st
from app.storage.direct import json_value
from app.storage.engine import database_failure, is_transient, make_engine, transactional
from app.storage.listings import (
    SC,
    ListingQueries,
    S,
    V,
    holder_row,
    storable,
    subject_row,
)
from app.storage.models import SchemaReferenceRow
from app.storage.exporters import ExporterQueries
from app.storage.policies import PolicyQueries
from app.storage.version_writes import VersionWrites, hash_lock_key, now_ms, text_hash

R = SchemaReferenceRow.__table__


def _stored_schema(row: Sequence[Any]) -> StoredSchema:
    """A row of `statements.STORED_SCHEMA_COLUMNS`, from SQLAlchemy or the raw cursor."""
    pk, context, schema_id, digest, schema_type, text, references, metadata, rule_set = row
    refs = tuple(SchemaReference(r["name"], r["subject"], r["version"]) for r in json_value(references) or ())
    return StoredSchema(
        key=pk, context=context, id=schema_id, hash=digest, schema_type=schema_type, schema=text,
        references=refs, metadata=json_value(metadata), rule_set=json_value(rule_set),
    )


def _version_row(row: Any) -> VersionRow:
    version, schema_pk, schema_id, digest, deleted, created_at = row
    return VersionRow(version, schema_pk, schema_id, digest, bool(deleted), created_at)


def _direct_subject_row(row: tuple[Any, ...]) -> SubjectRow:
    """A raw-cursor row of `statements.SUBJECT_COLUMNS`."""
    sid, context, name, config, mode = row
    return SubjectRow(sid, context, name, json_value(config), mode)


# Insert-or-lock rounds before a subject row that keeps being deleted under us is a conflict
# for the core to retry with a new transaction.
_LOCK_ATTEMPTS = 3


class SqlStore(VersionWrites, ListingQueries, BrowseQueries, PolicyQueries, DekQueries, ExporterQueries,
               AssociationQueries):
    """`app.core.store.Store` on one connection (inside one transaction for writes)."""

    def __init__(self, conn: Connection):
        self.conn = conn
        self.dialect = conn.dialect.name
        self.locked_identities: set[str] = set()  # `lock_hash` digests held by this transaction

    # ------------------------------------------------------------ subjects and settings
    def subject(self, context: str, name: str) -> SubjectRow | None:
        if not storable(context, name):
            return None
        rows = st.SELECT_SUBJECT_DIRECT.rows(self.conn, {"context": context, "name": name})
        return _direct_subject_row(rows[0]) if rows else None

    def settings_rows(self, keys: Iterable[tuple[str, str]]) -> dict[tuple[str, str], SubjectRow]:
        """Several subject/context rows in one query (config and mode resolution)."""
        wanted = sorted({(c, n) for c, n in keys if storable(c, n)})
        if not wanted:
            return {}
        params = {}
        for i, (context, name) in enumerate(wanted):
            params[f"c{i}"], params[f"n{i}"] = context, name
        rows = st.settings_rows_direct(len(wanted)).rows(self.conn, params)
        return {(r[1], r[2]): _direct_subject_row(r) for r in rows}

    def lock_subject(
        self, context: str, name: str, *, expected: bool = False, identity: str | None = None
    ) -> LockedSubject:
        """Create the subject row if needed and lock it until the transaction ends; with
        `expected` (the caller just saw the row) the lock is tried first, one statement. With
        `identity`, a row this creates comes with that identity's `lock_hash` (PostgreSQL: in
        the same statement), which a new subject's registration takes next anyway.

        Under PostgreSQL's read committed, the row the insert saw may be deleted by another
        transaction (a permanent delete, an unused row dropped) while the select waits for its
        lock; the select then finds nothing, and the insert, in a new snapshot, is tried again.
        """
        params = {"context": context, "name": name}
        if expected:
            locked = st.SELECT_SUBJECT_FOR_UPDATE_DIRECT.rows(self.conn, params)
            if locked:
                return LockedSubject(_direct_subject_row(locked[0]), False)
        for _ in range(_LOCK_ATTEMPTS):
            if identity is not None and self.dialect == "postgresql":
                created = st.CREATE_SUBJECT_LOCKING_IDENTITY_DIRECT.rows(self.conn, {**params, "k": hash_lock_key(identity)})
                if created:
                    self.locked_identities.add(identity)
                    return LockedSubject(_direct_subject_row(created[0][:-1]), True)
            else:
                created = st.CREATE_SUBJECT_DIRECT.rows(self.conn, params)
                if created:
                    return LockedSubject(_direct_subject_row(created[0]), True)
            locked = st.SELECT_SUBJECT_FOR_UPDATE_DIRECT.rows(self.conn, params)
            if locked:
                return LockedSubject(_direct_subject_row(locked[0]), False)
        raise WriteConflict(f"The row of subject {name!r} in context {context!r} kept disappearing")

    def set_subject_settings(self, context: str, name: str, **values: Any) -> None:
        """Set `config` and/or `mode` on a subject/context row, creating the row if needed."""
        row = self.lock_subject(context, name).row
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
        """Every version, oldest first."""
        return [_version_row(r) for r in self.conn.execute(st.SELECT_VERSIONS, {"subject_id": subject_id})]

    def live_versions(self, subject_id: int) -> list[VersionRow]:
        return [_version_row(r) for r in self.conn.execute(st.SELECT_LIVE_VERSIONS, {"subject_id": subject_id})]

    def subject_head(self, subject_id: int) -> SubjectHead:
        """Two indexed look-ups in one statement, whatever the subject's length."""
        ((last, *latest),) = st.SUBJECT_HEAD_DIRECT.rows(self.conn, {"subject_id": subject_id})
        return SubjectHead(int(last or 0), _version_row(latest) if latest[0] is not None else None)

    def versions_with_text(self, subject_id: int, text: str) -> list[VersionRow]:
        """Versions whose schema has exactly this text, oldest first: the only ones a
        registration or lookup can match (equal identity implies equal text)."""
        params = {"subject_id": subject_id, "text": text, "text_hash": text_hash(text)}
        return [_version_row(r) for r in st.VERSIONS_WITH_TEXT_DIRECT.rows(self.conn, params)]

    def versions_of_schema(self, subject_id: int, schema_pk: int) -> list[VersionRow]:
        params = {"subject_id": subject_id, "schema_pk": schema_pk}
        return [_version_row(r) for r in self.conn.execute(st.VERSIONS_OF_SCHEMA, params)]

    def has_version(self, subject_id: int, version: int) -> bool:
        return bool(self.conn.execute(st.HAS_VERSION, {"subject_id": subject_id, "version": version}).scalar())

    def subject_version(self, context: str, name: str, version: int | None) -> SubjectVersionRow:
        """The read path's one query: a subject row with one version (None = latest live)."""
        if not storable(context, name):
            return SubjectVersionRow(None, None)
        if version is None:
            rows = st.LATEST_VERSION_DIRECT.rows(self.conn, {"context": context, "name": name})
        else:
            rows = st.NUMBERED_VERSION_DIRECT.rows(self.conn, {"context": context, "name": name, "version": version})
        if not rows:
            return SubjectVersionRow(None, None)
        sid, ctx, subject_name, config, mode, number, schema_pk, schema_id, digest, deleted, created_at = rows[0]
        subject = SubjectRow(sid, ctx, subject_name, json_value(config), mode)
        if number is None:
            return SubjectVersionRow(subject, None)
        return SubjectVersionRow(subject, VersionRow(number, schema_pk, schema_id, digest, bool(deleted), created_at))

    def soft_delete(self, subject_id: int, versions: list[int]) -> None:
        self.conn.execute(
            update(V).where(V.c.subject_id == subject_id, V.c.version.in_(versions)).values(deleted=True)
        )
        st.REFRESH_LATEST_DIRECT.rows(self.conn, {"subject_id": subject_id})

    def hard_delete(self, subject_id: int, versions: list[int], schema_pks: Iterable[int]) -> None:
        """Remove version rows, then any schema no subject-version holds any more (its id
        becomes unknown, and the same text registered later gets a fresh id)."""
        self.conn.execute(delete(V).where(V.c.subject_id == subject_id, V.c.version.in_(versions)))
        st.REFRESH_LATEST_DIRECT.rows(self.conn, {"subject_id": subject_id})
        pks = sorted(set(schema_pks))
        if pks:
            orphan = and_(SC.c.pk.in_(pks), ~exists().where(V.c.schema_pk == SC.c.pk))
            self.conn.execute(delete(R).where(R.c.schema_pk.in_(select(SC.c.pk).where(orphan))))
            self.conn.execute(delete(SC).where(orphan))

    def versions_in_scope(self, context: str | None, name: str | None) -> list[ScopedVersion]:
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
        return [ScopedVersion(r[0], r[1], r[2], _version_row(r[3:])) for r in self.conn.execute(query)]

    # ------------------------------------------------------------ schemas
    def holders_of_id(self, schema_id: int, context: str | None = None) -> list[HolderRow]:
        if not storable(context):
            return []
        if context is None:
            rows = st.HOLDERS_DIRECT.rows(self.conn, {"schema_id": schema_id})
        else:
            rows = st.HOLDERS_IN_CONTEXT_DIRECT.rows(self.conn, {"schema_id": schema_id, "context": context})
        return [holder_row(r) for r in rows]

    def holders_with_hint(self, schema_id: int, context: str, name: str) -> HintedHolders:
        if not storable(context, name):
            return HintedHolders(self.holders_of_id(schema_id), None)
        rows = st.HOLDERS_WITH_HINT_DIRECT.rows(self.conn, {"schema_id": schema_id, "context": context, "name": name})
        return HintedHolders([holder_row(r[:-1]) for r in rows], json_value(rows[0][-1]) if rows else None)

    def schemas_by_hash(self, digest: str, context: str | None = None) -> list[SchemaKeyRow]:
        """Stored schemas with this identity hash, by context then lowest id first."""
        if not storable(context):
            return []
        if context is None:
            rows = self.conn.execute(st.SCHEMAS_BY_HASH, {"digest": digest})
        else:
            rows = st.SCHEMAS_BY_HASH_IN_CONTEXT_DIRECT.rows(self.conn, {"digest": digest, "context": context})
        return [SchemaKeyRow(*r) for r in rows]

    def schema_pk_for_id(self, context: str, schema_id: int) -> int | None:
        return self.conn.execute(st.SCHEMA_PK_FOR_ID, {"context": context, "schema_id": schema_id}).scalar()

    def schemas_by_fingerprint(self, algorithm: str, digest: str) -> list[SchemaKeyRow]:
        params = {"algorithm": algorithm, "digest": digest}
        return [SchemaKeyRow(*r) for r in self.conn.execute(st.SCHEMAS_BY_FINGERPRINT, params)]

    def max_id(self, context: str) -> int | None:
        """The highest id the context ever issued (`fetchMaxId`): the stored maximum or the
        id counter, whichever is higher, so an id whose schema was hard-deleted still counts
        (a migration tool reserves it on the target, and consumers may still hold it)."""
        stored = self.conn.execute(st.MAX_ID, {"context": context}).scalar()
        issued = self.issued_id(context)
        if stored is None and not issued:
            return None
        return max(stored or 0, issued)

    def load_schemas(self, pks: Iterable[int]) -> dict[int, StoredSchema]:
        """Several schemas' content in one query (cold caches must not cost a query each)."""
        wanted = sorted(set(pks))
        if not wanted:
            return {}
        if len(wanted) == 1:
            rows: Sequence[Sequence[Any]] = st.SELECT_SCHEMA_DIRECT.rows(self.conn, {"pk": wanted[0]})
        else:
            rows = self.conn.execute(st.SELECT_SCHEMAS, {"pks": wanted}).all()
        return {row[0]: _stored_schema(row) for row in rows}

    def ensure_context(self, context: str) -> None:
        self.conn.execute(st.ENSURE_CONTEXT[self.dialect], {"context": context})

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

    def referring_subjects(self, context: str, subject: str) -> list[SubjectName]:
        """(context, name) of the subjects with a live version whose schema references any
        version of the subject, each once, in order."""
        if not storable(context, subject):
            return []
        rows = self.conn.execute(
            select(S.c.context, S.c.name).distinct()
            .select_from(R.join(V, V.c.schema_pk == R.c.schema_pk).join(S, S.c.id == V.c.subject_id))
            .where(R.c.ref_context == context, R.c.ref_subject == subject, V.c.deleted.is_(False))
            .order_by(S.c.context, S.c.name)
        ).all()
        return [SubjectName(r.context, r.name) for r in rows]

    def insert_audit(self, entry: AuditEntry) -> None:
        """The change's audit row, in the change's own transaction."""
        insert_audit(self.conn, entry, now_ms())


class Repository(AuditStorage):
    """`app.core.store.Storage` over one SQLAlchemy engine, with database failures already
    translated: a database that is down, restarting or locked surfaces as Confluent's
    50001/50002 (`engine.database_failure`), never as a driver exception."""

    def __init__(self, engine: Engine):
        self.engine = engine
        # The driver module: direct.py's statements raise its exceptions unwrapped.
        self._dbapi = engine.dialect.loaded_dbapi
        url = engine.url
        fleet = url.set(drivername="postgresql").render_as_string(hide_password=False) \
            if url.get_backend_name() == "postgresql" else None
        self.changes = ChangeSignal(url.render_as_string(hide_password=True), fleet)

    @classmethod
    def from_url(cls, url: str) -> Repository:
        return cls(make_engine(url))

    def change_token(self) -> Hashable | None:
        return self.changes.token()

    def close(self) -> None:
        """Stop the change listener and close pooled connections."""
        self.changes.close()
        self.engine.dispose()

    @contextmanager
    def read(self) -> Iterator[SqlStore]:
        """Reads run in autocommit (the engine's default, see engine.py): no BEGIN/ROLLBACK
        round trips on the hot path. A pooled connection the server has closed is replaced
        at checkout (engine.py), so the first read after a restart does not fail on it."""
        try:
            with self.engine.connect() as conn:
                if conn.dialect.name == "sqlite":
                    conn.execution_options(sqlite_no_begin=True)  # pysqlite's own autocommit is on
                try:
                    yield SqlStore(conn)
                except self._dbapi.Error as exc:
                    self._drop_if_disconnected(conn, exc)
                    raise
        except (DBAPIError, PoolTimeout, self._dbapi.Error) as exc:
            failure = database_failure(exc, self._dbapi)
            if failure is None:
                raise
            raise failure from exc

    @contextmanager
    def write(self) -> Iterator[SqlStore]:
        """One transaction; concurrency failures surface as WriteConflict for the caller to retry,
        failures of the database itself as 50001/50002. Other processes learn of the commit
        through the change signal (changes.py): on this host at once, on others through the
        NOTIFY that PostgreSQL's triggers send at commit (migration 0004)."""
        try:
            with self.engine.connect() as conn:
                transactional(conn)
                with conn.begin():
                    try:
                        yield SqlStore(conn)
                    except self._dbapi.Error as exc:
                        self._drop_if_disconnected(conn, exc)
                        raise
            self.changes.committed()
        except (IntegrityError, self._dbapi.IntegrityError) as exc:
            raise WriteConflict(str(getattr(exc, "orig", exc))) from exc
        except (DBAPIError, PoolTimeout, self._dbapi.Error) as exc:
            if not isinstance(exc, PoolTimeout) and is_transient(exc):
                raise WriteConflict(str(getattr(exc, "orig", exc))) from exc
            failure = database_failure(exc, self._dbapi)
            if failure is None:
                raise
            raise failure from exc

    def _drop_if_disconnected(self, conn: Connection, exc: Exception) -> None:
        """SQLAlchemy invalidates a connection that failed under its own `execute`; one that
        failed under direct.py's raw cursor is invalidated here, so it is not pooled again."""
        if not conn.invalidated and conn.dialect.is_disconnect(exc, conn.connection.dbapi_connection, None):
            conn.invalidate(exc)
