"""audit_events: the audit trail, one row per change (written by the change's own
transaction) or refused write attempt, with indexes for `/audit`'s filters, newest first

No NOTIFY trigger (migration 0004) on this table: a row of its own records a refused
attempt, which changes nothing a cached read could have served.

Revision ID: 0005
Revises: 0004
Create Date: 2026-11-25
"""
from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "audit_events",
        sa.Column("id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), autoincrement=True, nullable=False),
        sa.Column("ts", sa.BigInteger(), nullable=False),
        sa.Column("principal", sa.String(length=255), nullable=False),
        sa.Column("auth_method", sa.String(length=16), nullable=False),
        sa.Column("remote_addr", sa.String(length=64), nullable=True),
        sa.Column("forwarded_for", sa.String(length=512), nullable=True),
        sa.Column("user_agent", sa.String(length=200), nullable=True),
        sa.Column("method", sa.String(length=16), nullable=True),
        sa.Column("path", sa.String(length=2048), nullable=True),
        sa.Column("action", sa.String(length=32), nullable=False),
        sa.Column("context", sa.String(length=255), nullable=True),
        sa.Column("subject", sa.String(length=1024), nullable=True),
        sa.Column("version", sa.Integer(), nullable=True),
        sa.Column("schema_id", sa.BigInteger(), nullable=True),
        sa.Column("outcome", sa.String(length=16), nullable=False),
        sa.Column("status", sa.Integer(), nullable=True),
        sa.Column("error_code", sa.Integer(), nullable=True),
        sa.Column("detail", sa.JSON(), nullable=True),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_audit_events")),
        sqlite_autoincrement=True,
    )
    op.create_index(op.f("ix_audit_events_ts"), "audit_events", ["ts"])
    op.create_index(op.f("ix_audit_events_subject_ts"), "audit_events", ["subject", "ts"])
    op.create_index(op.f("ix_audit_events_principal_ts"), "audit_events", ["principal", "ts"])


def downgrade() -> None:
    op.drop_index(op.f("ix_audit_events_principal_ts"), table_name="audit_events")
    op.drop_index(op.f("ix_audit_events_subject_ts"), table_name="audit_events")
    op.drop_index(op.f("ix_audit_events_ts"), table_name="audit_events")
    op.drop_table("audit_events")
