"""subject_versions indexed by (schema_pk, subject_id) in place of schema_pk alone

Registration asks which of a subject's versions hold a given content (the match of its
steps 2 and 6, once in the read-only pre-check and once under the subject's lock). With the
content's index alone, PostgreSQL could intersect it with the subject's whole range of the
primary key, a plan it makes while the subject is still short and keeps on a pooled
connection, whose cost then grows with the subject's length (0.5 ms a lookup at 1,500
versions). The pair finds those versions directly, and its leading column still serves
every lookup by content alone (holders of an id, the foreign key's checks).

Revision ID: 0009
Revises: 0008
Create Date: 2026-11-27
"""
from __future__ import annotations

from alembic import op

revision = "0009"
down_revision = "0008"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_index(op.f("ix_subject_versions_schema_pk_subject_id"), "subject_versions", ["schema_pk", "subject_id"])
    op.drop_index(op.f("ix_subject_versions_schema_pk"), table_name="subject_versions")


def downgrade() -> None:
    op.create_index(op.f("ix_subject_versions_schema_pk"), "subject_versions", ["schema_pk"])
    op.drop_index(op.f("ix_subject_versions_schema_pk_subject_id"), table_name="subject_versions")
