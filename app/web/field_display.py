"""How outlines and structural diffs read on a page: the anchor of a field's row, which row
holds each reason, and a node's detail values in words.

Format-agnostic like the rest of the UI: the declarations themselves come from the formats
(`Node.declaration`); this only places and words what they hand over.
"""
from __future__ import annotations

import json
from collections.abc import Iterable
from typing import TYPE_CHECKING
from urllib.parse import quote

from app.web.blueprint import bp

VALUE_CHARS = 300

if TYPE_CHECKING:  # the UI's core modules load on first use, not at a worker's start
    from app.core.browse.structural_diff import Change, DiffRow, Reason


@bp.app_template_global()
def field_anchor(path: str) -> str:
    """The id of a field's row: its path, percent-encoded so that any property name (spaces,
    quotes, `#`) makes one valid id and one fragment that finds it."""
    return "field-" + quote(path, safe="")


@bp.app_template_global()
def reason_rows(rows: Iterable[DiffRow]) -> dict[Reason, str]:
    """The path of the row each reason is listed on, for the reasons of `rows` (the rows the
    page shows): a reason's own `path` may be a field with no row of its own (a reason filed on
    a changed ancestor)."""
    return {reason: row.path for row in rows for reason in row.reasons}


@bp.app_template_filter("detail_words")
def detail_words(value: object, key: str) -> str:
    """A detail as a page shows it: a flag by its name (`required`, not `required: true`),
    anything else after its name (`value_words`)."""
    return key if value is True else f"{key}: {value_words(value)}"


@bp.app_template_filter("value_words")
def value_words(value: object) -> str:
    """A value as a page shows it: text unquoted, lists joined with commas, other values as
    JSON; cut at `VALUE_CHARS` (a doc or an enum can be as long as a schema)."""
    if isinstance(value, str):
        text = value
    elif isinstance(value, list):
        text = ", ".join(v if isinstance(v, str) else _json(v) for v in value[:VALUE_CHARS])
    else:
        text = _json(value)
    return text if len(text) <= VALUE_CHARS else text[:VALUE_CHARS] + "…"


@bp.app_template_filter("change_words")
def change_words(change: Change) -> str:
    """One attribute's change in words: `now required`, `minimum added: 1`, `format removed:
    email`, `symbols: A, B → A`."""
    name, old, new = change.attribute, change.old, change.new
    if old is None and new is True:
        return f"now {name}"
    if old is True and new is None:
        return f"no longer {name}"
    if old is None:
        return f"{name} added: {value_words(new)}"
    if new is None:
        return f"{name} removed: {value_words(old)}"
    return f"{name}: {value_words(old)} → {value_words(new)}"


def _json(value: object) -> str:
    return json.dumps(value, ensure_ascii=False, sort_keys=True)
