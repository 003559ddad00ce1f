"""Registration's writes: ids, content, the version row and its audit row (a mixin of `SqlStore`).

On PostgreSQL a registration's writes go as one statement (`add_version`): a chain of
data-modifying CTEs that stores the content (looking for content of the same identity first,
when asked), its fingerprints, reference rows and search-index rows, the version, the
subject's `latest_version` and the audit row. Every row lands in the caller's transaction as
before, and a failure of any part (the audit insert included) fails the whole statement; what
it saves is five to seven round trips, and the driver's and the server's work per statement.
The statement is built once per shape (`_one_statement`), never per request. SQLite, which
has no data-modifying CTEs and no network, takes the stepwise path (`add_version_stepwise`).
"""
from __future__ import annotations

import functools
import hashlib
import json
import time
from collections.abc import Callable
from typing import Any, NamedTuple

from sqlalchemy import Connection, select, text, update

from app.core.records import DEFAULT_CONTEXT
from app.core.store.protocol import add_version_stepwise
from app.core.store.rows import AddedVersion, NewSchema, NewVersion, SchemaKeyRow
from app.storage import statements as st
from app.storage.audit import audit_params
from app.storage.direct import DirectStatement, json_param
from app.storage.models import IdCounter

IDC = IdCounter.__table__
_DEFAULT_NEXTVAL = text("SELECT nextval('schema_id_seq')")


def sequence_name(context: str) -> str:
    """A safe identifier per context: context names are user input, so they are hashed."""
    if context == DEFAULT_CONTEXT:
        return "schema_id_seq"
    return "schema_id_seq_" + hashlib.md5(context.encode("utf-8")).hexdigest()[:16]


def text_hash(text_: str) -> str:
    """The `schemas.text_hash` of a schema text (migration 0002 computes the same)."""
    return hashlib.md5(text_.encode("utf-8")).hexdigest()


def hash_lock_key(digest: str) -> int:
    """The advisory lock key of a content identity (its first 64 bits)."""
    return int.from_bytes(bytes.fromhex(digest[:16]), "big", signed=True)


def now_ms() -> int:
    return int(time.time() * 1000)


# ------------------------------------------------------------------ PostgreSQL's one statement
_SCHEMA_COLUMNS = "context, id, hash, schema_type, schema_text, text_hash, references_doc, metadata_doc, rule_set_doc"
_AUDIT_COLUMNS = ("ts", "principal", "auth_method", "remote_addr", "forwarded_for", "user_agent", "method", "path",
                  "action", "context", "subject", "outcome", "version", "schema_id", "status", "error_code", "detail")
# The rows that come with new content: (table, its columns besides schema_pk with their types).
_CONTENT_ROWS = (
    ("schema_references", (("position", "INT"), ("name", "TEXT"), ("ref_context", "TEXT"), ("ref_subject", "TEXT"),
                           ("ref_version", "INT"))),
    ("schema_fingerprints", (("algorithm", "TEXT"), ("digest", "TEXT"))),
    ("schema_fields", (("position", "INT"), ("kind", "TEXT"), ("name_lower", "TEXT"), ("name", "TEXT"),
                       ("path", "TEXT"), ("type_label", "TEXT"), ("doc", "TEXT"))),
)
_AUDIT_TYPES = {"ts": "BIGINT", "version": "INTEGER", "status": "INTEGER", "error_code": "INTEGER", "detail": "JSON"}


class _Shape(NamedTuple):
    """What one registration's statement must write; each shape is built once. Rows a
    registration does not have (no references, say) are left out rather than inserted from an
    empty list: every insert into a table also fires its change-notify trigger (migration 0004)."""

    new_content: bool
    unless_held: bool
    audited: bool
    references: bool = False
    fingerprints: bool = False
    fields: bool = False


@functools.cache
def _one_statement(shape: _Shape) -> DirectStatement:
    """The statement for one shape of registration. `s` is the content the version points at:
    the row just inserted, or the existing content given as parameters; with `unless_held`,
    when the context holds content of the same identity (`held`) nothing is written and the
    result names that content instead. The result row is (pk, id, written)."""
    parts: list[str] = []
    if shape.new_content:
        if shape.unless_held:
            parts.append("held AS (SELECT pk, id FROM schemas WHERE hash = :hash AND context = :context "
                         "ORDER BY id LIMIT 1)")
        guard = " WHERE NOT EXISTS (SELECT 1 FROM held)" if shape.unless_held else ""
        parts.append(
            f"s AS (INSERT INTO schemas ({_SCHEMA_COLUMNS}) SELECT CAST(:context AS TEXT), "
            # COALESCE evaluates nextval only when no id was given (default context only).
            "COALESCE(CAST(:schema_id AS BIGINT), nextval('schema_id_seq')), CAST(:hash AS TEXT), "
            "CAST(:schema_type AS TEXT), CAST(:schema_text AS TEXT), CAST(:text_hash AS TEXT), "
            "CAST(:references_doc AS JSON), CAST(:metadata_doc AS JSON), "
            f"CAST(:rule_set_doc AS JSON){guard} RETURNING pk, id)"
        )
        for wanted, (table, columns) in zip((shape.references, shape.fingerprints, shape.fields), _CONTENT_ROWS):
            if wanted:
                names = ", ".join(name for name, _ in columns)
                typed = ", ".join(f"{name} {type_}" for name, type_ in columns)
                parts.append(
                    f"{table} AS (INSERT INTO {table} (schema_pk, {names}) SELECT s.pk, {names} FROM s, "
                    f"json_to_recordset(CAST(:{table} AS JSON)) AS x({typed}))"
                )
    else:
        parts.append("s AS (SELECT CAST(:existing_pk AS INTEGER) AS pk, CAST(:existing_id AS BIGINT) AS id)")
    parts += [
        "v AS (INSERT INTO subject_versions (subject_id, version, schema_pk, deleted, created_at) "
        "SELECT CAST(:subject_id AS INTEGER), CAST(:version AS INTEGER), s.pk, false, "
        "CAST(:created_at AS BIGINT) FROM s)",
        # The newest live version: the new one, unless an imported lower number was added.
        "l AS (UPDATE subjects SET latest_version = GREATEST(COALESCE(latest_version, 0), CAST(:version AS INTEGER)) "
        "WHERE id = :subject_id AND EXISTS (SELECT 1 FROM s))",
    ]
    if shape.audited:
        # Typed casts: an untyped NULL parameter in a SELECT list would be taken as text.
        values = ", ".join(
            "COALESCE(CAST(:a_schema_id AS BIGINT), s.id)" if name == "schema_id"
            else f"CAST(:a_{name} AS {_AUDIT_TYPES.get(name, 'TEXT')})" for name in _AUDIT_COLUMNS
        )
        parts.append(f"a AS (INSERT INTO audit_events ({', '.join(_AUDIT_COLUMNS)}) SELECT {values} FROM s)")
    result = "SELECT pk, id, true FROM s"
    if shape.unless_held:
        result += " UNION ALL SELECT pk, id, false FROM held"
    return DirectStatement(text("WITH " + ",\n".join(parts) + "\n" + result))


def _schema_params(schema: NewSchema) -> dict[str, Any]:
    return {
        "context": schema.context,
        "schema_id": schema.id,
        "hash": schema.hash,
        "schema_type": schema.schema_type,
        "schema_text": schema.text,
        "text_hash": text_hash(schema.text),
        "references_doc": json_param([r.reference.to_json() for r in schema.references] or None),
        "metadata_doc": json_param(schema.metadata),
        "rule_set_doc": json_param(schema.rule_set),
    }


def _row_params(schema: NewSchema) -> dict[str, str]:
    """The content's reference, fingerprint and search-index rows it has, each list as JSON
    text under its table's name (`json_to_recordset` turns it into rows)."""
    params = {}
    if schema.references:
        params["schema_references"] = json.dumps([
            {"position": i, "name": r.reference.name, "ref_context": r.context, "ref_subject": r.subject,
             "ref_version": r.reference.version}
            for i, r in enumerate(schema.references)
        ])
    if schema.fingerprints:
        params["schema_fingerprints"] = json.dumps([
            {"algorithm": algorithm, "digest": digest} for algorithm, digest in sorted(schema.fingerprints.items())
        ])
    if schema.index:
        params["schema_fields"] = json.dumps([
            {"position": i, "kind": row.kind, "name_lower": row.match_key, "name": row.name, "path": row.path,
             "type_label": row.type_label, "doc": row.doc}
            for i, row in enumerate(schema.index)
        ])
    return params


class VersionWrites:
    """Ids, content and versions; `conn`/`dialect` and `schemas_by_hash` come from `SqlStore`."""

    conn: Connection
    dialect: str
    locked_identities: set[str]
    schemas_by_hash: Callable[[str, str | None], list[SchemaKeyRow]]

    def add_version(self, new: NewVersion) -> AddedVersion:
        """`app.core.store.NewVersion`: one statement on PostgreSQL (see the module), the
        stepwise calls on SQLite."""
        if self.dialect != "postgresql":
            return add_version_stepwise(self, new)  # type: ignore[arg-type]
        schema = new.schema
        if new.existing is None and schema is not None and schema.id is None and schema.context != DEFAULT_CONTEXT:
            # A named context's id comes from its own sequence, drawn only once the content
            # is known to be new (an id drawn for nothing would be a gap clients can see).
            if new.unless_held and (held := self.schemas_by_hash(schema.hash, schema.context)):
                return AddedVersion(held[0], 0, False)
            new = new._replace(schema=schema._replace(id=self.allocate_id(schema.context)), unless_held=False)
            schema = new.schema
        created_at = now_ms()
        params: dict[str, Any] = {"subject_id": new.subject_id, "version": new.version, "created_at": created_at}
        if new.existing is not None:
            params.update(existing_pk=new.existing.pk, existing_id=new.existing.id)
            shape = _Shape(False, False, new.audit is not None)
        elif schema is not None:
            params.update(_schema_params(schema))
            params.update(_row_params(schema))
            shape = _Shape(True, new.unless_held, new.audit is not None, bool(schema.references),
                           bool(schema.fingerprints), bool(schema.index))
        else:
            raise TypeError("add_version needs existing or new content")
        if new.audit is not None:
            params.update({f"a_{name}": value for name, value in audit_params(new.audit, created_at).items()})
        statement = _one_statement(shape)
        ((pk, schema_id, written),) = statement.rows(self.conn, params)
        context = schema.context if schema is not None else new.existing.context  # type: ignore[union-attr]
        return AddedVersion(SchemaKeyRow(int(pk), context, int(schema_id)), created_at, bool(written))

    def insert_version(self, subject_id: int, version: int, schema_pk: int) -> int:
        ts = now_ms()
        params = {"subject_id": subject_id, "version": version, "schema_pk": schema_pk, "created_at": ts}
        st.INSERT_VERSION_DIRECT.rows(self.conn, params)
        st.REFRESH_LATEST_DIRECT.rows(self.conn, {"subject_id": subject_id})
        return ts

    def lock_hash(self, digest: str) -> None:
        """Serialize registrations of the same content across subjects (PostgreSQL), so two
        concurrent first registrations of one schema cannot mint two ids. A lock this
        transaction holds already (taken with a new subject's row) costs nothing."""
        if self.dialect == "postgresql" and digest not in self.locked_identities:
            st.ADVISORY_XACT_LOCK_DIRECT.rows(self.conn, {"k": hash_lock_key(digest)})
            self.locked_identities.add(digest)

    def allocate_id(self, context: str) -> int:
        """The next id of a context. Each context counts its own ids, as in the reference;
        on PostgreSQL each has its own sequence (the default context's is created by the
        migration, a named context's on first use), so allocation never blocks."""
        if self.dialect == "postgresql":
            if context == DEFAULT_CONTEXT:
                return int(self.conn.execute(_DEFAULT_NEXTVAL).scalar_one())
            sequence = sequence_name(context)
            self.conn.execute(text(f"CREATE SEQUENCE IF NOT EXISTS {sequence}"))
            return int(self.conn.execute(text(f"SELECT nextval('{sequence}')")).scalar_one())
        self._ensure_counter(context)
        return int(self.conn.execute(st.NEXT_COUNTER, {"context": context}).scalar_one())

    def move_id_allocation_past(self, context: str, schema_id: int) -> None:
        """After IMPORT stored an explicit id, later allocations must stay above it."""
        if self.dialect == "postgresql":
            sequence = sequence_name(context)
            if context != DEFAULT_CONTEXT:  # the default context's sequence comes with the migration
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

    def issued_id(self, context: str) -> int:
        """The highest id the context's allocator has handed out (0 when none)."""
        if self.dialect == "postgresql":
            sequence = sequence_name(context)
            exists_ = self.conn.execute(text("SELECT to_regclass(:name) IS NOT NULL"), {"name": sequence}).scalar()
            if not exists_:
                return 0
            row = self.conn.execute(text(f"SELECT last_value, is_called FROM {sequence}")).one()
            return int(row[0]) if row[1] else 0
        value = self.conn.execute(select(IDC.c.value).where(IDC.c.name == context)).scalar()
        return int(value or 0)

    def _ensure_counter(self, context: str) -> None:
        self.conn.execute(st.ENSURE_COUNTER["sqlite"], {"context": context})

    def insert_schema(self, schema: NewSchema) -> SchemaKeyRow:
        """Store new content with its reference, fingerprint and search-index rows, one
        statement each (the stepwise `add_version`); without an id, the context's next one."""
        params = _schema_params(schema)
        if schema.id is None:
            params["schema_id"] = self.allocate_id(schema.context)
        ((pk, schema_id),) = st.INSERT_SCHEMA_DIRECT.rows(self.conn, params)
        if schema.references:
            self.conn.execute(st.INSERT_REFERENCE, [
                {
                    "schema_pk": pk,
                    "position": i,
                    "name": r.reference.name,
                    "ref_context": r.context,
                    "ref_subject": r.subject,
                    "ref_version": r.reference.version,
                }
                for i, r in enumerate(schema.references)
            ])
        if schema.fingerprints:
            st.INSERT_FINGERPRINT_DIRECT.execute_many(self.conn, [
                {"schema_pk": pk, "algorithm": algorithm, "digest": digest}
                for algorithm, digest in sorted(schema.fingerprints.items())
            ])
        if schema.index:
            st.INSERT_SCHEMA_FIELD_DIRECT.execute_many(self.conn, [
                {"schema_pk": pk, "position": i, "kind": row.kind, "name_lower": row.match_key, "name": row.name,
                 "path": row.path, "type_label": row.type_label, "doc": row.doc}
                for i, row in enumerate(schema.index)
            ])
        return SchemaKeyRow(int(pk), schema.context, int(schema_id))
