"""associations: Confluent 8.x's Associations API (topics linked to the subjects they use)

Independent of any other table.

Revision ID: 0013
Revises: 0012
Create Date: 2026-12-07
"""
from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0013"
down_revision = "0012"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "associations",
        sa.Column("guid", sa.String(length=36), nullable=False),
        sa.Column("resource_id", sa.String(length=255), nullable=False),
        sa.Column("resource_type", sa.String(length=32), nullable=False),
        sa.Column("resource_name", sa.String(length=256), nullable=False),
        sa.Column("resource_namespace", sa.String(length=256), nullable=False),
        sa.Column("association_type", sa.String(length=16), nullable=False),
        sa.Column("context", sa.String(length=255), nullable=False),
        sa.Column("subject", sa.String(length=1024), nullable=False),
        sa.Column("lifecycle", sa.String(length=8), nullable=False),
        sa.Column("frozen", sa.Boolean(), nullable=False),
        sa.Column("created_ts", sa.BigInteger(), nullable=False),
        sa.Column("updated_ts", sa.BigInteger(), nullable=False),
        sa.PrimaryKeyConstraint("guid", name=op.f("pk_associations")),
        sa.UniqueConstraint("resource_id", "resource_type", "association_type",
                            name=op.f("uq_associations_resource_id_resource_type_association_type")),
    )
    op.create_index("ix_associations_resource_name_resource_namespace", "associations",
                    ["resource_name", "resource_namespace"])
    op.create_index("ix_associations_context_subject", "associations", ["context", "subject"])


def downgrade() -> None:
    op.drop_index("ix_associations_context_subject", table_name="associations")
    op.drop_index("ix_associations_resource_name_resource_namespace", table_name="associations")
    op.drop_table("associations")
