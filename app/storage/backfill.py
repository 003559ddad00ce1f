"""What migrations that derive data from stored schemas share: every stored schema with the
texts of its references resolved as registration resolves them, to parse it again.

Used by migrations 0003 (fingerprints) and 0006 (the search index), which must store exactly
what registration stores for new content, so they parse through the formats themselves.
"""
from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any, NamedTuple

import sqlalchemy as sa


class StoredText(NamedTuple):
    pk: int
    schema_type: str
    text: str
    dependencies: dict[str, str]  # reference name -> text, each after the ones it depends on


def stored_texts(conn: Any) -> Iterator[StoredText]:
    """Every stored schema, its references' texts resolved through the subject versions they
    name (transitively; an unqualified subject is in the referrer's context)."""
    rows = conn.execute(sa.text("SELECT pk, context, schema_type, schema_text, references_doc FROM schemas")).all()
    stored = {pk: (context, schema_type, text, _refs(doc)) for pk, context, schema_type, text, doc in rows}
    versions = {
        (context, name, version): pk for context, name, version, pk in conn.execute(sa.text(
            "SELECT s.context, s.name, v.version, v.schema_pk FROM subject_versions v JOIN subjects s ON s.id = v.subject_id"
        ))
    }

    def dependencies(context: str, refs: list[dict[str, Any]], seen: set[int]) -> dict[str, str]:
        out: dict[str, str] = {}
        for ref in refs:
            subject = ref["subject"]
            ctx, name = context, subject
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

    for pk, (context, schema_type, text, refs) in stored.items():
        yield StoredText(pk, schema_type, text, dependencies(context, refs, {pk}))


def _refs(doc: Any) -> list[dict[str, Any]]:
    if isinstance(doc, str):
        doc = json.loads(doc)
    return list(doc or [])
