"""exporters.lease_generation: the exporters' lease becomes a fence

A number raised at every taking of an exporter's lease (never at a renewal): the runner that
took it checks the number before each write to the target, so one that lost its lease while
paused (and whose lease was taken meanwhile, even if it got it back since) writes nothing more.

Revision ID: 0012
Revises: 0011
Create Date: 2026-12-07
"""
from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0012"
down_revision = "0011"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("exporters") as batch:
        batch.add_column(sa.Column("lease_generation", sa.BigInteger(), nullable=False, server_default="0"))


def downgrade() -> None:
    with op.batch_alter_table("exporters") as batch:
        batch.drop_column("lease_generation")
