"""dek_keks and dek_deks: the DEK registry's key encryption keys and the wrapped data
encryption keys under them (app/core/dek/)

Revision ID: 0010
Revises: 0009
Create Date: 2026-11-28
"""
from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0010"
down_revision = "0009"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "dek_keks",
        sa.Column("context", sa.String(length=255), nullable=False),
        sa.Column("name", sa.String(length=64), nullable=False),
        sa.Column("kms_type", sa.String(length=255), nullable=False),
        sa.Column("kms_key_id", sa.Text(), nullable=False),
        sa.Column("kms_props", sa.JSON(), nullable=False),
        sa.Column("doc", sa.Text(), nullable=True),
        sa.Column("shared", sa.Boolean(), nullable=False),
        sa.Column("ts", sa.BigInteger(), nullable=False),
        sa.Column("deleted", sa.Boolean(), nullable=False),
        sa.PrimaryKeyConstraint("context", "name", name=op.f("pk_dek_keks")),
    )
    op.create_table(
        "dek_deks",
        sa.Column("context", sa.String(length=255), nullable=False),
        sa.Column("kek_name", sa.String(length=64), nullable=False),
        sa.Column("subject", sa.String(length=1024), nullable=False),
        sa.Column("algorithm", sa.String(length=16), nullable=False),
        sa.Column("version", sa.Integer(), nullable=False),
        sa.Column("encrypted_key_material", sa.Text(), nullable=False),
        sa.Column("ts", sa.BigInteger(), nullable=False),
        sa.Column("deleted", sa.Boolean(), nullable=False),
        sa.ForeignKeyConstraint(
            ["context", "kek_name"], ["dek_keks.context", "dek_keks.name"],
            name=op.f("fk_dek_deks_context_dek_keks"),
        ),
        sa.PrimaryKeyConstraint("context", "kek_name", "subject", "algorithm", "version", name=op.f("pk_dek_deks")),
    )


def downgrade() -> None:
    op.drop_table("dek_deks")
    op.drop_table("dek_keks")
