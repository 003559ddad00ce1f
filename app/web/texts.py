"""Schema texts as pages show them: compared line by line, named as files.

None of it looks at what the schema means: file extensions come from the format registry.
"""
from __future__ import annotations

import difflib
import re
from dataclasses import dataclass

from markupsafe import escape

from app.web.permissions import registry


def extension(schema_type: str) -> str:
    fmt = registry().formats.get(schema_type)
    return getattr(fmt, "file_extension", "txt")


def file_name(subject: str, version: int, schema_type: str) -> str:
    """A file name any file system takes: the subject with unsafe characters replaced."""
    stem = re.sub(r"[^A-Za-z0-9._-]+", "_", subject).strip("._") or "schema"
    return f"{stem}-v{version}.{extension(schema_type)}"


# The text view's bounds, so that the page stays small and quick whatever the schemas: at most
# this many lines of each side are compared line by line (difflib's time grows with the square
# of the lines), and at most this many rows, and characters of each side as the page writes
# them (HTML-escaped: a JSON text's quotes take five each), are shown.
LINE_DIFF_BUDGET = 2_000
SHOWN_ROWS = 500
SHOWN_CHARS = 20_000
LINE_CHARS = 2_000  # a longer line is shown cut, ending in "…"
INDENT_SHOWN = 40  # a line indented deeper is shown from this column, after a "…"


@dataclass(frozen=True)
class DiffLine:
    """One row of the side-by-side view: `kind` is equal, removed, added or changed, or
    `plain` where the texts were too long to compare line by line."""

    kind: str
    left_no: int | None
    left: str
    right_no: int | None
    right: str


@dataclass(frozen=True)
class TextDiff:
    """What the text view shows: its rows, whether they come from a line diff (`compared`),
    and how many lines of each side are left out."""

    rows: list[DiffLine]
    compared: bool
    old_more: int
    new_more: int

    @property
    def cut(self) -> bool:
        return bool(self.old_more or self.new_more)


def side_by_side(old: str, new: str) -> TextDiff:
    """The two texts side by side, compared line by line when both fit the line budget, else
    placed line for line; either way cut at `SHOWN_ROWS` rows and `SHOWN_CHARS` characters of
    a side."""
    a, b = old.splitlines(), new.splitlines()
    compared = len(a) <= LINE_DIFF_BUDGET and len(b) <= LINE_DIFF_BUDGET
    rows = _line_diff(a, b) if compared else _paired(a, b)
    shown = _within_budget(rows)
    last_left = max((r.left_no for r in shown if r.left_no), default=0)
    last_right = max((r.right_no for r in shown if r.right_no), default=0)
    return TextDiff(shown, compared, len(a) - last_left, len(b) - last_right)


def _within_budget(rows: list[DiffLine]) -> list[DiffLine]:
    shown: list[DiffLine] = []
    left = right = 0
    for row in rows[:SHOWN_ROWS]:
        row = DiffLine(row.kind, row.left_no, _shown(row.left), row.right_no, _shown(row.right))
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
    rows: list[DiffLine] = []
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
        if tag == "equal":
            rows += [DiffLine("equal", i + 1, a[i], j + 1, b[j]) for i, j in zip(range(i1, i2), range(j1, j2))]
            continue
        left, right = list(range(i1, i2)), list(range(j1, j2))
        for k in range(max(len(left), len(right))):
            li = left[k] if k < len(left) else None
            rj = right[k] if k < len(right) else None
            kind = "changed" if li is not None and rj is not None else ("removed" if rj is None else "added")
            rows.append(DiffLine(
                kind, None if li is None else li + 1, "" if li is None else a[li],
                None if rj is None else rj + 1, "" if rj is None else b[rj],
            ))
    return rows
