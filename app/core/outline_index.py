"""What the search index keeps of a schema: its fields' and named types' names, taken from
the format's outline once per stored content (content is immutable), so that no search ever
parses a stored schema.

Registration hands these rows to storage with the new content, in its transaction;
migration 0006 fills them for content stored before the index existed, with this same code.
"""
from __future__ import annotations

from app.core.storable_text import repaired
from app.core.store.browse import IndexedName
from app.formats.base import FIELD_NODE, TYPE_NODE, Node, Outlines, ParsedSchema, SchemaFormat, supports

# Bounds on what one schema puts in the index: generated schemas can be huge, and a row is
# only worth what a person searching would read of it.
MAX_ROWS = 5_000
MAX_NAME = 200
SNIPPET = 200


def index_rows(fmt: SchemaFormat, parsed: ParsedSchema) -> list[IndexedName]:
    """The rows for one schema; none for a format without outlines."""
    if not supports(fmt, Outlines):
        return []
    return outline_rows(fmt.outline(parsed))


def outline_rows(root: Node) -> list[IndexedName]:
    """A row per field (its dotted path) and per named type (its full name), in tree order,
    each (kind, path) once."""
    rows: list[IndexedName] = []
    seen: set[tuple[str, str]] = set()
    for node in root.walk():
        if node.kind == FIELD_NODE and node.name:
            _add(rows, seen, IndexedName(FIELD_NODE, node.path, node.name, node.type, _snippet(node.doc)))
        if node.named:
            simple = node.named.rsplit(".", 1)[-1]
            doc = None if node.kind == FIELD_NODE else node.doc  # a field's doc is not its type's
            _add(rows, seen, IndexedName(TYPE_NODE, node.named, simple, node.named_kind or node.type, _snippet(doc)))
        if len(rows) >= MAX_ROWS:
            break
    return rows


def _add(rows: list[IndexedName], seen: set[tuple[str, str]], row: IndexedName) -> None:
    if (row.kind, row.path) not in seen:
        seen.add((row.kind, row.path))
        name, label = repaired(row.name[:MAX_NAME]), repaired(row.type_label[:MAX_NAME])
        doc = repaired(row.doc) if row.doc is not None else None
        rows.append(IndexedName(row.kind, repaired(row.path), name, label, doc))


def _snippet(doc: str | None) -> str | None:
    if not doc:
        return None
    flat = " ".join(doc.split())
    return flat if len(flat) <= SNIPPET else flat[: SNIPPET - 1] + "…"
