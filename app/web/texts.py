"""Schema texts as pages show them: compared line by line, named as files.

None of it looks at what the schema means: file extensions come from the format registry.
"""
from __future__ import annotations

import difflib
import re
from dataclasses import dataclass

from app.web.permissions import registry


def extension(schema_type: str) -> str:
    fmt = registry().formats.get(schema_type)
    return getattr(fmt, "file_extension", "txt")


def file_name(subject: str, version: int, schema_type: str) -> str:
    """A file name any file system takes: the subject with unsafe characters replaced."""
    stem = re.sub(r"[^A-Za-z0-9._-]+", "_", subject).strip("._") or "schema"
    return f"{stem}-v{version}.{extension(schema_type)}"


@dataclass(frozen=True)
class DiffLine:
    """One row of the side-by-side diff: `kind` is equal, removed, added or changed."""

    kind: str
    left_no: int | None
    left: str
    right_no: int | None
    right: str


def side_by_side(old: str, new: str) -> list[DiffLine]:
    a, b = old.splitlines(), new.splitlines()
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
