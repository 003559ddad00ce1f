"""The registry's tables. Alembic migrations in `app/storage/migrations/` are derived from these.

- `subjects`: one row per (context, subject). The row is what a registration locks, and it
  carries the subject's own config and mode. The context itself is the row with an empty
  name, so the global config is (".", ""), a context's is (".ctx", "") and Confluent's
  `:.__GLOBAL:` settings live at (".__GLOBAL", "").
- `schemas`: a schema's content, stored once per context and identity hash, immutable.
  `pk` is a never-reused row key (processes cache content by it); `id` is the public id.
- `subject_versions`: which subject holds which schema at which version (soft-delete flag).
- `schema_references`: a schema's references as rows, so `referencedby` and the delete guards
  are queries.
- `contexts`: contexts that exist (created by the first registration, removed by DELETE).
- `id_counter`: SQLite's id allocator, a row per context (PostgreSQL uses a sequence per
  context instead).
- `audit_events`: the audit trail (app/core/audit.py), one row per change or refused write
  attempt, written by the change's own transaction; append-only but for `audit prune`.
- `policies`: schema policy documents (app/core/policies.py): the global document (named
  sets and the default) at the reserved key ("", ""), which no context uses, and each
  selection at its subject's or context's key, as `subjects` keys settings.
- `associations`: Confluent 8.x's associations (app/core/associations/): which subject a topic's
  key or value uses, by guid; read by resource id, by resource name and by subject.
- `dek_keks`, `dek_deks`: the DEK registry (app/core/dek/): key encryption keys by context and
  name, and the wrapped data encryption keys under them by subject, algorithm and version.
"""
from __future__ import annotations

from typing import Any

from sqlalchemy import (
    JSON,
    BigInteger,
    Boolean,
    ForeignKey,
    ForeignKeyConstraint,
    Index,
    Integer,
    MetaData,
    String,
    Text,
    UniqueConstraint,
)
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column

NAMING_CONVENTION = {
    "ix": "ix_%(table_name)s_%(column_0_N_name)s",
    "uq": "uq_%(table_name)s_%(column_0_N_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}


class Base(DeclarativeBase):
    metadata = MetaData(naming_convention=NAMING_CONVENTION)


class Subject(Base):
    __tablename__ = "subjects"
    __table_args__ = (UniqueConstraint("context", "name"), {"sqlite_autoincrement": True})

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    context: Mapped[str] = mapped_column(String(255))
    name: Mapped[str] = mapped_column(String(1024))
    config: Mapped[dict[str, Any] | None] = mapped_column(JSON(none_as_null=True), nullable=True)
    mode: Mapped[str | None] = mapped_column(String(32), nullable=True)
    # The newest live version's number (None: none), refreshed by the store with every change
    # to the subject's versions, so the browser lists and searches without finding it per row.
    latest_version: Mapped[int | None] = mapped_column(Integer, nullable=True)


class Schema(Base):
    __tablename__ = "schemas"
    __table_args__ = (
        UniqueConstraint("context", "id"),
        Index(None, "context", "hash"),
        Index(None, "hash"),
        Index(None, "text_hash"),
        {"sqlite_autoincrement": True},
    )

    pk: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    context: Mapped[str] = mapped_column(String(255))
    id: Mapped[int] = mapped_column(BigInteger)
    hash: Mapped[str] = mapped_column(String(32))
    schema_type: Mapped[str] = mapped_column(String(32))
    schema_text: Mapped[str] = mapped_column(Text)
    # MD5 of schema_text: finds the versions holding a text by index (set by every insert).
    text_hash: Mapped[str | None] = mapped_column(String(32), nullable=True)
    references_doc: Mapped[list[dict[str, Any]] | None] = mapped_column(JSON(none_as_null=True), nullable=True)
    metadata_doc: Mapped[dict[str, Any] | None] = mapped_column(JSON(none_as_null=True), nullable=True)
    rule_set_doc: Mapped[dict[str, Any] | None] = mapped_column(JSON(none_as_null=True), nullable=True)


class SubjectVersion(Base):
    __tablename__ = "subject_versions"
    __table_args__ = (Index(None, "schema_pk", "subject_id"),)

    subject_id: Mapped[int] = mapped_column(ForeignKey("subjects.id", ondelete="CASCADE"), primary_key=True)
    version: Mapped[int] = mapped_column(Integer, primary_key=True)
    schema_pk: Mapped[int] = mapped_column(ForeignKey("schemas.pk"))
    deleted: Mapped[bool] = mapped_column(Boolean, default=False)
    created_at: Mapped[int] = mapped_column(BigInteger)


class SchemaReferenceRow(Base):
    __tablename__ = "schema_references"
    __table_args__ = (Index(None, "ref_context", "ref_subject", "ref_version"),)

    schema_pk: Mapped[int] = mapped_column(ForeignKey("schemas.pk", ondelete="CASCADE"), primary_key=True)
    position: Mapped[int] = mapped_column(Integer, primary_key=True)
    name: Mapped[str] = mapped_column(String(1024))
    ref_context: Mapped[str] = mapped_column(String(255))
    ref_subject: Mapped[str] = mapped_column(String(1024))
    ref_version: Mapped[int] = mapped_column(Integer)


class SchemaFingerprint(Base):
    """A schema's fingerprints by algorithm (Avro: of its Parsing Canonical Form), found by
    `GET /schemas/fingerprints/{hex}`; they go with the schema row."""

    __tablename__ = "schema_fingerprints"
    __table_args__ = (Index(None, "algorithm", "digest"),)

    schema_pk: Mapped[int] = mapped_column(ForeignKey("schemas.pk", ondelete="CASCADE"), primary_key=True)
    algorithm: Mapped[str] = mapped_column(String(16), primary_key=True)
    digest: Mapped[str] = mapped_column(String(64))


# Index names compare byte by byte (code point order), so a prefix search is an indexed range
# on both databases: SQLite's default collation is binary, PostgreSQL's is set to "C".
IndexName = String(200).with_variant(String(200, collation="C"), "postgresql")


class SchemaField(Base):
    """The search index: each stored schema's field and named-type names (`kind` "field" or
    "type"), filled once per content at registration (migration 0006 for older content);
    they go with the schema row. `name_lower` is what searches match, by equality or prefix."""

    __tablename__ = "schema_fields"
    __table_args__ = (Index(None, "kind", "name_lower", "schema_pk", "position"),)

    schema_pk: Mapped[int] = mapped_column(ForeignKey("schemas.pk", ondelete="CASCADE"), primary_key=True)
    position: Mapped[int] = mapped_column(Integer, primary_key=True)
    kind: Mapped[str] = mapped_column(String(8))
    name_lower: Mapped[str] = mapped_column(IndexName)
    name: Mapped[str] = mapped_column(String(200))
    path: Mapped[str] = mapped_column(Text)
    type_label: Mapped[str] = mapped_column(String(200))
    doc: Mapped[str | None] = mapped_column(String(200), nullable=True)


class Context(Base):
    __tablename__ = "contexts"

    name: Mapped[str] = mapped_column(String(255), primary_key=True)


class IdCounter(Base):
    __tablename__ = "id_counter"

    name: Mapped[str] = mapped_column(String(32), primary_key=True)
    value: Mapped[int] = mapped_column(BigInteger)


class AuditEvent(Base):
    """Times are UTC epoch milliseconds. `/audit` filters by subject, principal and time, and
    always orders by time, so each of those indexes ends in `ts`."""

    __tablename__ = "audit_events"
    __table_args__ = (
        Index(None, "ts"),
        Index(None, "subject", "ts"),
        Index(None, "principal", "ts"),
        {"sqlite_autoincrement": True},
    )

    # SQLite's rowid alias must be INTEGER; PostgreSQL's trail may outgrow 32 bits.
    id: Mapped[int] = mapped_column(BigInteger().with_variant(Integer, "sqlite"), primary_key=True, autoincrement=True)
    ts: Mapped[int] = mapped_column(BigInteger)
    principal: Mapped[str] = mapped_column(String(255))
    auth_method: Mapped[str] = mapped_column(String(16))
    remote_addr: Mapped[str | None] = mapped_column(String(64), nullable=True)
    forwarded_for: Mapped[str | None] = mapped_column(String(512), nullable=True)
    user_agent: Mapped[str | None] = mapped_column(String(200), nullable=True)
    method: Mapped[str | None] = mapped_column(String(16), nullable=True)
    path: Mapped[str | None] = mapped_column(String(2048), nullable=True)
    action: Mapped[str] = mapped_column(String(32))
    context: Mapped[str | None] = mapped_column(String(255), nullable=True)
    subject: Mapped[str | None] = mapped_column(String(1024), nullable=True)
    version: Mapped[int | None] = mapped_column(Integer, nullable=True)
    schema_id: Mapped[int | None] = mapped_column(BigInteger, nullable=True)
    outcome: Mapped[str] = mapped_column(String(16))
    status: Mapped[int | None] = mapped_column(Integer, nullable=True)
    error_code: Mapped[int | None] = mapped_column(Integer, nullable=True)
    detail: Mapped[dict[str, Any] | None] = mapped_column(JSON(none_as_null=True), nullable=True)


class PolicyDocument(Base):
    """Read at each registration by primary key (the subject's, its context's, the global one)."""

    __tablename__ = "policies"

    context: Mapped[str] = mapped_column(String(255), primary_key=True)
    name: Mapped[str] = mapped_column(String(1024), primary_key=True)
    document: Mapped[dict[str, Any]] = mapped_column(JSON)


class KeyEncryptionKey(Base):
    """A KEK: which KMS key wraps its DEKs (`kms_key_id` of `kms_type`), and whether the server
    may unwrap them for the clients (`shared`). `ts`: last written, epoch milliseconds."""

    __tablename__ = "dek_keks"

    context: Mapped[str] = mapped_column(String(255), primary_key=True)
    name: Mapped[str] = mapped_column(String(64), primary_key=True)
    kms_type: Mapped[str] = mapped_column(String(255))
    kms_key_id: Mapped[str] = mapped_column(Text)
    kms_props: Mapped[dict[str, Any]] = mapped_column(JSON)
    doc: Mapped[str | None] = mapped_column(Text, nullable=True)
    shared: Mapped[bool] = mapped_column(Boolean)
    ts: Mapped[int] = mapped_column(BigInteger)
    deleted: Mapped[bool] = mapped_column(Boolean)


class DataEncryptionKey(Base):
    """A DEK version, wrapped by its KEK (`encrypted_key_material`, base64 as the client sent
    it); the unwrapped key is never stored. `subject` is qualified, in the KEK's context.
    The primary key's order serves every read: a KEK's subjects, a subject's versions."""

    __tablename__ = "dek_deks"
    __table_args__ = (
        ForeignKeyConstraint(["context", "kek_name"], ["dek_keks.context", "dek_keks.name"]),
    )

    context: Mapped[str] = mapped_column(String(255), primary_key=True)
    kek_name: Mapped[str] = mapped_column(String(64), primary_key=True)
    subject: Mapped[str] = mapped_column(String(1024), primary_key=True)
    algorithm: Mapped[str] = mapped_column(String(16), primary_key=True)
    version: Mapped[int] = mapped_column(Integer, primary_key=True)
    encrypted_key_material: Mapped[str] = mapped_column(Text)
    ts: Mapped[int] = mapped_column(BigInteger)
    deleted: Mapped[bool] = mapped_column(Boolean)
class ExporterRow(Base):
    """A schema exporter (app/core/exporters): its definition as the API took it, its target's
    config (credentials included: the runner needs them), where its runner stands (`state`,
    `offset`, `ts`, `trace`) and the lease that lets exactly one instance of a fleet run it
    (`lease_owner` until `lease_expires`, epoch milliseconds, renewed by its heartbeat;
    `lease_generation` raised at every taking, the fencing token checked before each write)."""

    __tablename__ = "exporters"

    name: Mapped[str] = mapped_column(String(255), primary_key=True)
    definition: Mapped[dict[str, Any]] = mapped_column(JSON)
    config: Mapped[dict[str, Any]] = mapped_column(JSON)
    state: Mapped[str] = mapped_column(String(16))
    offset: Mapped[int] = mapped_column(BigInteger, default=0)
    ts: Mapped[int] = mapped_column(BigInteger, default=0)
    trace: Mapped[str | None] = mapped_column(Text, nullable=True)
    lease_owner: Mapped[str | None] = mapped_column(String(128), nullable=True)
    lease_expires: Mapped[int] = mapped_column(BigInteger, default=0)
    lease_generation: Mapped[int] = mapped_column(BigInteger, default=0, server_default="0")


class AssociationRow(Base):
    """An association (app/core/associations): a resource (a topic: its id, name and namespace,
    the Kafka cluster) linked to the subject (`context`, `subject`) of its key or value, WEAK or
    STRONG (`frozen`: may not be changed or deleted but with the topic). At most one per
    resource id, resource type and association type; `created_ts`, `updated_ts`: epoch ms."""

    __tablename__ = "associations"
    __table_args__ = (
        UniqueConstraint("resource_id", "resource_type", "association_type"),
        Index("ix_associations_resource_name_resource_namespace", "resource_name", "resource_namespace"),
        Index("ix_associations_context_subject", "context", "subject"),
    )

    guid: Mapped[str] = mapped_column(String(36), primary_key=True)
    resource_id: Mapped[str] = mapped_column(String(255))
    resource_type: Mapped[str] = mapped_column(String(32))
    resource_name: Mapped[str] = mapped_column(String(256))
    resource_namespace: Mapped[str] = mapped_column(String(256))
    association_type: Mapped[str] = mapped_column(String(16))
    context: Mapped[str] = mapped_column(String(255))
    subject: Mapped[str] = mapped_column(String(1024))
    lifecycle: Mapped[str] = mapped_column(String(8))
    frozen: Mapped[bool] = mapped_column(Boolean)
    created_ts: Mapped[int] = mapped_column(BigInteger)
    updated_ts: Mapped[int] = mapped_column(BigInteger)
