"""schema_fields refreshed for JSON Schema and Protobuf content: their outlines now hold the
properties below allOf/anyOf/oneOf, not, dependencies and tuple items, and name types of
other packages in full, so the rows 0006 or registration stored before are re-derived

Revision ID: 0008
Revises: 0007
Create Date: 2026-11-27
"""
from __future__ import annotations

from alembic import op

revision = "0008"
down_revision = "0007"
branch_labels = None
depends_on = None

# The formats whose outlines changed (Avro's did not: its rows stay as stored).
_REFRESHED = ("JSON", "PROTOBUF")


def upgrade() -> None:
    from app.storage.migrations.field_index import index_stored_schemas

    index_stored_schemas(op.get_bind(), _REFRESHED)


def downgrade() -> None:
    """Nothing to undo: the rows are what 0006's code derives from the same outlines."""
