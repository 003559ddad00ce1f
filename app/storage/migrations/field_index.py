"""The search index (`schema_fields`) filled from the stored schemas, for the migrations that
create it (0006) and that refresh it when an outline changes what it holds (0008).

Here rather than in `app.storage`: it derives rows with the core's `outline_index` and the
formats, which storage proper never imports. It stores exactly what registration stores for
new content, parsing every text as registration parses it (`app.storage.backfill`).
"""
from __future__ import annotations

from collections.abc import Collection
from typing import Any

import sqlalchemy as sa

_BATCH = 3000


def index_stored_schemas(conn: Any, schema_types: Collection[str] | None = None) -> None:
    """(Re)index every stored schema of `schema_types` (None: of every format with outlines):
    their old rows are deleted first, so a run leaves what registration would store today.
    A text its format no longer reads is left unindexed."""
    from app.core.outline_index import index_rows
    from app.formats import FORMATS
    from app.formats.base import Outlines, SchemaParseError
    from app.storage.backfill import stored_texts

    outlining = {
        name: fmt for name, fmt in FORMATS.items()
        if isinstance(fmt, Outlines) and (schema_types is None or name in schema_types)
    }
    if not outlining:
        return
    conn.execute(
        sa.text("DELETE FROM schema_fields WHERE schema_pk IN (SELECT pk FROM schemas WHERE schema_type IN :types)")
        .bindparams(sa.bindparam("types", expanding=True)),
        {"types": sorted(outlining)},
    )
    table = sa.table(
        "schema_fields", sa.column("schema_pk"), sa.column("position"), sa.column("kind"), sa.column("name_lower"),
        sa.column("name"), sa.column("path"), sa.column("type_label"), sa.column("doc"),
    )
    batch: list[dict[str, Any]] = []
    for item in stored_texts(conn):
        fmt = outlining.get(item.schema_type)
        if fmt is None:
            continue
        try:
            parsed = fmt.parse(item.text, item.dependencies, strict=False)
        except SchemaParseError:
            continue
        batch += [
            {"schema_pk": item.pk, "position": i, "kind": r.kind, "name_lower": r.match_key, "name": r.name,
             "path": r.path, "type_label": r.type_label, "doc": r.doc}
            for i, r in enumerate(index_rows(fmt, parsed))
        ]
        if len(batch) >= _BATCH:
            conn.execute(table.insert(), batch)
            batch = []
    if batch:
        conn.execute(table.insert(), batch)
