"""schema_fields: the search index of each schema's field and type names; subjects.latest_version:
each subject's newest live version; both filled for what was stored before

Revision ID: 0006
Revises: 0005
Create Date: 2026-11-25
"""
from __future__ import annotations

from typing import Any

import sqlalchemy as sa
from alembic import op

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None

_NAME = sa.String(length=200).with_variant(sa.String(length=200, collation="C"), "postgresql")


def upgrade() -> None:
    op.create_table(
        "schema_fields",
        sa.Column("schema_pk", sa.Integer(), nullable=False),
        sa.Column("position", sa.Integer(), nullable=False),
        sa.Column("kind", sa.String(length=8), nullable=False),
        sa.Column("name_lower", _NAME, nullable=False),
        sa.Column("name", sa.String(length=200), nullable=False),
        sa.Column("path", sa.Text(), nullable=False),
        sa.Column("type_label", sa.String(length=200), nullable=False),
        sa.Column("doc", sa.String(length=200), nullable=True),
        sa.ForeignKeyConstraint(["schema_pk"], ["schemas.pk"], name=op.f("fk_schema_fields_schema_pk_schemas"),
                                ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("schema_pk", "position", name=op.f("pk_schema_fields")),
    )
    op.create_index(
        op.f("ix_schema_fields_kind_name_lower_schema_pk_position"), "schema_fields",
        ["kind", "name_lower", "schema_pk", "position"],
    )
    op.add_column("subjects", sa.Column("latest_version", sa.Integer(), nullable=True))
    op.execute(
        "UPDATE subjects SET latest_version = (SELECT max(v.version) FROM subject_versions v "
        "WHERE v.subject_id = subjects.id AND v.deleted = false)"
    )
    _backfill(op.get_bind())


def _backfill(conn: Any) -> None:
    """Index every stored schema whose format has outlines, parsed as registration parses
    it; the rows are the ones registration stores (`app.core.outline_index`)."""
    from app.storage.migrations.field_index import index_stored_schemas

    index_stored_schemas(conn)


def downgrade() -> None:
    with op.batch_alter_table("subjects") as batch:
        batch.drop_column("latest_version")
    op.drop_index(op.f("ix_schema_fields_kind_name_lower_schema_pk_position"), table_name="schema_fields")
    op.drop_table("schema_fields")
