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
    """Fingerprint every stored schema whose format computes fingerprints, parsed with its
    references' texts resolved through the subject versions they name (transitively), as
    registration does. The formats compute them, so the digests are the ones registration stores."""
    from app.formats import FORMATS
    from app.formats.base import Fingerprints, SchemaParseError

    fingerprinting = {name: fmt for name, fmt in FORMATS.items() if isinstance(fmt, Fingerprints)}
    rows = conn.execute(sa.text("SELECT pk, context, schema_type, schema_text, references_doc FROM schemas")).all()
    stored = {pk: (context, schema_type, text, _refs(doc)) for pk, context, schema_type, text, doc in rows}
    versions = {
        (context, name, version): pk for context, name, version, pk in conn.execute(sa.text(
            "SELECT s.context, s.name, v.version, v.schema_pk FROM subject_versions v JOIN subjects s ON s.id = v.subject_id"
        ))
    }

    def dependencies(context: str, refs: list[dict[str, Any]], seen: set[int]) -> dict[str, str]:
        """Reference name -> text, each schema after the ones it depends on."""
        out: dict[str, str] = {}
        for ref in refs:
            subject = ref["subject"]
            ctx, name = context, subject  # an unqualified subject is in the referrer's context
            if subject.startswith(":") and subject.count(":") >= 2:
                ctx, name = subject[1:].split(":", 1)
                ctx = ctx if ctx.startswith(".") else "." + ctx
            pk = versions.get((ctx, name, ref["version"]))
            if pk is None or pk in seen or pk not in stored:
                continue
            seen.add(pk)
            inner_ctx, _, inner_text, inner_refs = stored[pk]
            out.update(dependencies(inner_ctx, inner_refs, seen))
            out[ref["name"]] = inner_text
        return out

    table = sa.table("schema_fingerprints", sa.column("schema_pk"), sa.column("algorithm"), sa.column("digest"))
    batch = []
    for pk, (context, schema_type, text, refs) in stored.items():
        fmt = fingerprinting.get(schema_type)
        if fmt is None:
            continue
        try:
            parsed = fmt.parse(text, dependencies(context, refs, {pk}), strict=False)
        except SchemaParseError:
            continue  # a text its format no longer reads gets no fingerprint
        batch += [{"schema_pk": pk, "algorithm": a, "digest": d} for a, d in fmt.fingerprints(parsed).items()]
        if len(batch) >= 3000:
            conn.execute(table.insert(), batch)
            batch = []
    if batch:
        conn.execute(table.insert(), batch)


def _refs(doc: Any) -> list[dict[str, Any]]:
    if isinstance(doc, str):
        import json

        doc = json.loads(doc)
    return list(doc or [])


def downgrade() -> None:
    op.drop_index(op.f("ix_schema_fingerprints_algorithm_digest"), table_name="schema_fingerprints")
    op.drop_table("schema_fingerprints")
