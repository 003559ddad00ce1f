"""Schema texts as pages show them: compared line by line, named as files.

None of it looks at what the schema means: file extensions come from the format registry.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import NamedTuple

from markupsafe import escape

from app.web.line_diff import LineMatcher, Match
from app.web.permissions import registry


def extension(schema_type: str) -> str:
    fmt = registry().formats.get(schema_type)
    return getattr(fmt, "file_extension", "txt")


def file_name(subject: str, version: int, schema_type: str) -> str:
    """A file name any file system takes: the subject with unsafe characters replaced."""
    stem = re.sub(r"[^A-Za-z0-9._-]+", "_", subject).strip("._") or "schema"
    return f"{stem}-v{version}.{extension(schema_type)}"


# The text view's bounds, so that the page stays small and quick whatever the schemas: texts
# of at most this many lines a side are compared line by line (`line_diff`, whose work is at
# most `STEPS_PER_LINE` steps a line), longer ones are shown line for line; unchanged runs
# are shown `CONTEXT` lines either side of a change; at most `SHOWN_ROWS` rows, and
# `SHOWN_CHARS` characters of each side as the page writes them (HTML-escaped: a JSON text's
# quotes take five each), are shown.
LINE_DIFF_BUDGET = 10_000
STEPS_PER_LINE = 40
CONTEXT = 3
SHOWN_ROWS = 500
SHOWN_CHARS = 20_000
LINE_CHARS = 2_000  # a longer line is shown cut, ending in "…"
INDENT_SHOWN = 40  # a line indented deeper is shown from this column, after a "…"


class DiffLine(NamedTuple):
    """One row of the side-by-side view: `kind` is equal, removed, added or changed, `plain`
    where the texts were too long to compare line by line, or `gap` for `skipped` unchanged
    lines not shown. A tuple: a long text makes one per line."""

    kind: str
    left_no: int | None
    left: str
    right_no: int | None
    right: str
    skipped: int = 0


@dataclass(frozen=True)
class TextDiff:
    """What the text view shows: its rows, whether they come from a line diff (`compared`),
    and how many lines of each side are left out after the last row."""

    rows: list[DiffLine]
    compared: bool
    old_more: int
    new_more: int

    @property
    def cut(self) -> bool:
        return bool(self.old_more or self.new_more)


def side_by_side(old: str, new: str) -> TextDiff:
    """The two texts side by side, compared line by line when both fit the line budget (the
    changes with their context), else placed line for line; either way cut at `SHOWN_ROWS`
    rows and `SHOWN_CHARS` characters of a side."""
    a, b = old.splitlines(), new.splitlines()
    compared = len(a) <= LINE_DIFF_BUDGET and len(b) <= LINE_DIFF_BUDGET
    rows = _in_context(_line_diff(a, b)) if compared else _paired(a, b)
    shown = _within_budget(rows)
    left = sum(r.skipped if r.kind == "gap" else r.left_no is not None for r in shown)
    right = sum(r.skipped if r.kind == "gap" else r.right_no is not None for r in shown)
    return TextDiff(shown, compared, len(a) - left, len(b) - right)


def _in_context(rows: list[DiffLine]) -> list[DiffLine]:
    """The changed rows with `CONTEXT` unchanged rows either side; a longer unchanged run
    becomes one `gap` row. Texts without a change are shown whole."""
    if all(row.kind == "equal" for row in rows):
        return rows
    out: list[DiffLine] = []
    start = 0
    while start < len(rows):
        end = start
        while end < len(rows) and rows[end].kind == "equal":
            end += 1
        if end == start:
            out.append(rows[start])
            start += 1
            continue
        keep_head = CONTEXT if start > 0 else 0
        keep_tail = CONTEXT if end < len(rows) else 0
        if end - start <= keep_head + keep_tail + 1:
            out += rows[start:end]
        else:
            skipped = end - start - keep_head - keep_tail
            out += rows[start:start + keep_head]
            out.append(DiffLine("gap", None, "", None, "", skipped))
            out += rows[end - keep_tail:end]
        start = end
    return out


def _within_budget(rows: list[DiffLine]) -> list[DiffLine]:
    shown: list[DiffLine] = []
    left = right = 0
    for row in rows[:SHOWN_ROWS]:
        row = row._replace(left=_shown(row.left), right=_shown(row.right))
        left, right = left + len(escape(row.left)), right + len(escape(row.right))
        if left > SHOWN_CHARS or right > SHOWN_CHARS:
            break
        shown.append(row)
    return shown


def _shown(line: str) -> str:
    """A deeply nested schema's pretty text is mostly indentation (a chain 40 records deep
    starts lines at column 240), which wraps each line into a column of blanks."""
    text = line.lstrip(" ")
    if len(line) - len(text) > INDENT_SHOWN:
        line = " " * (INDENT_SHOWN - 2) + "… " + text
    return line if len(line) <= LINE_CHARS else line[:LINE_CHARS] + "…"


def _paired(a: list[str], b: list[str]) -> list[DiffLine]:
    """Line i of each side on row i, for as many rows as can be shown (no comparison)."""
    count = min(max(len(a), len(b)), SHOWN_ROWS)
    return [
        DiffLine("plain", i + 1 if i < len(a) else None, a[i] if i < len(a) else "",
                 i + 1 if i < len(b) else None, b[i] if i < len(b) else "")
        for i in range(count)
    ]


def _line_diff(a: list[str], b: list[str]) -> list[DiffLine]:
    """Every line of both texts: matched lines as equal rows, the unmatched ones between two
    matches paired as changed rows, then the rest of the longer side removed or added."""
    matcher = LineMatcher(a, b, STEPS_PER_LINE * (len(a) + len(b)))
    rows: list[DiffLine] = []
    i = j = 0
    for match in [*matcher.matches(), Match(len(a), len(b))]:
        left, right = range(i, match.old), range(j, match.new)
        for k in range(max(len(left), len(right))):
            li = left[k] if k < len(left) else None
            rj = right[k] if k < len(right) else None
            kind = "changed" if li is not None and rj is not None else ("removed" if rj is None else "added")
            rows.append(DiffLine(
                kind, None if li is None else li + 1, "" if li is None else a[li],
                None if rj is None else rj + 1, "" if rj is None else b[rj],
            ))
        if match.old < len(a):
            rows.append(DiffLine("equal", match.old + 1, a[match.old], match.new + 1, b[match.new]))
        i, j = match.old + 1, match.new + 1
    return rows
