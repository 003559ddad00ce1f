"""schemas.text_hash: an indexed digest of the schema text, so a registration finds the
versions of a subject that hold the same text with an index look-up instead of comparing
the text of every version

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-24
"""
from __future__ import annotations

import hashlib

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None

_BATCH = 1000


def upgrade() -> None:
    op.add_column("schemas", sa.Column("text_hash", sa.String(length=32), nullable=True))
    conn = op.get_bind()
    if conn.dialect.name == "postgresql":
        conn.execute(sa.text("UPDATE schemas SET text_hash = md5(schema_text)"))  # md5 of the UTF-8 bytes
    else:
        schemas = sa.table("schemas", sa.column("pk", sa.Integer), sa.column("schema_text", sa.Text),
                           sa.column("text_hash", sa.String))
        last = 0
        while rows := conn.execute(
            sa.select(schemas.c.pk, schemas.c.schema_text).where(schemas.c.pk > last).order_by(schemas.c.pk).limit(_BATCH)
        ).all():
            conn.execute(
                schemas.update().where(schemas.c.pk == sa.bindparam("key")).values(text_hash=sa.bindparam("digest")),
                [{"key": pk, "digest": hashlib.md5(text.encode("utf-8")).hexdigest()} for pk, text in rows],
            )
            last = rows[-1][0]
    op.create_index(op.f("ix_schemas_text_hash"), "schemas", ["text_hash"])


def downgrade() -> None:
    op.drop_index(op.f("ix_schemas_text_hash"), table_name="schemas")
    op.drop_column("schemas", "text_hash")
