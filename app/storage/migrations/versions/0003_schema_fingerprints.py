"""schema_fingerprints: each schema's fingerprints (Avro: its Parsing Canonical Form's crc64,
md5 and sha256), indexed, for `GET /schemas/fingerprints/{hex}`; filled for schemas stored before

Revision ID: 0003
Revises: 0002
Create Date: 2026-11-24
"""
from __future__ import annotations

from typing import Any

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "schema_fingerprints",
        sa.Column("schema_pk", sa.Integer(), nullable=False),
        sa.Column("algorithm", sa.String(length=16), nullable=False),
        sa.Column("digest", sa.String(length=64), nullable=False),
        sa.ForeignKeyConstraint(["schema_pk"], ["schemas.pk"], name=op.f("fk_schema_fingerprints_schema_pk_schemas"),
                                ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("schema_pk", "algorithm", name=op.f("pk_schema_fingerprints")),
    )
    op.create_index(op.f("ix_schema_fingerprints_algorithm_digest"), "schema_fingerprints", ["algorithm", "digest"])
    _backfill(op.get_bind())


def _backfill(conn: Any) -> None:
    """Fingerprint every stored schema whose format computes fingerprints, parsed as
    registration parses it (`app.storage.backfill`), so the digests are the ones
    registration stores."""
    from app.formats import FORMATS
    from app.formats.base import Fingerprints, SchemaParseError
    from app.storage.backfill import stored_texts

    fingerprinting = {name: fmt for name, fmt in FORMATS.items() if isinstance(fmt, Fingerprints)}
    table = sa.table("schema_fingerprints", sa.column("schema_pk"), sa.column("algorithm"), sa.column("digest"))
    batch = []
    for item in stored_texts(conn):
        fmt = fingerprinting.get(item.schema_type)
        if fmt is None:
            continue
        try:
            parsed = fmt.parse(item.text, item.dependencies, strict=False)
        except SchemaParseError:
            continue  # a text its format no longer reads gets no fingerprint
        batch += [{"schema_pk": item.pk, "algorithm": a, "digest": d} for a, d in fmt.fingerprints(parsed).items()]
        if len(batch) >= 3000:
            conn.execute(table.insert(), batch)
            batch = []
    if batch:
        conn.execute(table.insert(), batch)


def downgrade() -> None:
    op.drop_index(op.f("ix_schema_fingerprints_algorithm_digest"), table_name="schema_fingerprints")
    op.drop_table("schema_fingerprints")
