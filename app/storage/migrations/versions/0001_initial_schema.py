"""initial schema: subjects, schemas, subject versions, references, contexts, id allocation

Revision ID: 0001
Revises:
Create Date: 2026-11-22
"""
from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "contexts",
        sa.Column("name", sa.String(length=255), nullable=False),
        sa.PrimaryKeyConstraint("name", name=op.f("pk_contexts")),
    )
    op.create_table(
        "id_counter",
        sa.Column("name", sa.String(length=32), nullable=False),
        sa.Column("value", sa.BigInteger(), nullable=False),
        sa.PrimaryKeyConstraint("name", name=op.f("pk_id_counter")),
    )
    op.create_table(
        "schemas",
        sa.Column("pk", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("context", sa.String(length=255), nullable=False),
        sa.Column("id", sa.BigInteger(), nullable=False),
        sa.Column("hash", sa.String(length=32), nullable=False),
        sa.Column("schema_type", sa.String(length=32), nullable=False),
        sa.Column("schema_text", sa.Text(), nullable=False),
        sa.Column("references_doc", sa.JSON(), nullable=True),
        sa.Column("metadata_doc", sa.JSON(), nullable=True),
        sa.Column("rule_set_doc", sa.JSON(), nullable=True),
        sa.PrimaryKeyConstraint("pk", name=op.f("pk_schemas")),
        sa.UniqueConstraint("context", "id", name=op.f("uq_schemas_context_id")),
        sqlite_autoincrement=True,
    )
    op.create_index(op.f("ix_schemas_context_hash"), "schemas", ["context", "hash"])
    op.create_index(op.f("ix_schemas_hash"), "schemas", ["hash"])
    op.create_table(
        "subjects",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("context", sa.String(length=255), nullable=False),
        sa.Column("name", sa.String(length=1024), nullable=False),
        sa.Column("config", sa.JSON(), nullable=True),
        sa.Column("mode", sa.String(length=32), nullable=True),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_subjects")),
        sa.UniqueConstraint("context", "name", name=op.f("uq_subjects_context_name")),
        sqlite_autoincrement=True,
    )
    op.create_table(
        "schema_references",
        sa.Column("schema_pk", sa.Integer(), nullable=False),
        sa.Column("position", sa.Integer(), nullable=False),
        sa.Column("name", sa.String(length=1024), nullable=False),
        sa.Column("ref_context", sa.String(length=255), nullable=False),
        sa.Column("ref_subject", sa.String(length=1024), nullable=False),
        sa.Column("ref_version", sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(
            ["schema_pk"], ["schemas.pk"], name=op.f("fk_schema_references_schema_pk_schemas"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("schema_pk", "position", name=op.f("pk_schema_references")),
    )
    op.create_index(
        op.f("ix_schema_references_ref_context_ref_subject_ref_version"),
        "schema_references",
        ["ref_context", "ref_subject", "ref_version"],
    )
    op.create_table(
        "subject_versions",
        sa.Column("subject_id", sa.Integer(), nullable=False),
        sa.Column("version", sa.Integer(), nullable=False),
        sa.Column("schema_pk", sa.Integer(), nullable=False),
        sa.Column("deleted", sa.Boolean(), nullable=False),
        sa.Column("created_at", sa.BigInteger(), nullable=False),
        sa.ForeignKeyConstraint(
            ["schema_pk"], ["schemas.pk"], name=op.f("fk_subject_versions_schema_pk_schemas")
        ),
        sa.ForeignKeyConstraint(
            ["subject_id"], ["subjects.id"], name=op.f("fk_subject_versions_subject_id_subjects"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("subject_id", "version", name=op.f("pk_subject_versions")),
    )
    op.create_index(op.f("ix_subject_versions_schema_pk"), "subject_versions", ["schema_pk"])

    # Schema ids are counted per context. PostgreSQL: a sequence per context (monotonic across
    # a fleet, never reused); the default context's is created here, others on first use.
    # SQLite, which serializes writers anyway, bumps a counter row per context instead.
    if op.get_bind().dialect.name == "postgresql":
        op.execute("CREATE SEQUENCE schema_id_seq START WITH 1")


def downgrade() -> None:
    if op.get_bind().dialect.name == "postgresql":
        op.execute("DROP SEQUENCE IF EXISTS schema_id_seq")
    op.drop_table("subject_versions")
    op.drop_table("schema_references")
    op.drop_table("subjects")
    op.drop_table("schemas")
    op.drop_table("id_counter")
    op.drop_table("contexts")
