"""The auth file's `[[grants]]` as records: what the file loader produces and the authorizer
matches against. Roles are ordered: each includes the ones below it."""
from __future__ import annotations

import enum
import re
from dataclasses import dataclass


class Role(enum.IntEnum):
    READ = 1
    WRITE = 2
    ADMIN = 3


class PatternKind(str, enum.Enum):
    ANY = "*"
    EXACT = "exact"
    PREFIX = "prefix"
    REGEX = "regex"


@dataclass(frozen=True)
class SubjectPattern:
    """One entry of a grant's `subjects`; `regex` is compiled once, when the file is loaded,
    and must match the whole unqualified subject name."""

    kind: PatternKind
    text: str = ""
    regex: re.Pattern[str] | None = None


@dataclass(frozen=True)
class Grant:
    """`principal` is `user:NAME`, `group:NAME`, `*` or `anonymous`. With `global_scope`,
    `subjects` and `contexts` are empty; otherwise `contexts` is never empty (the file's
    default is `["."]`, and `"*"` stands for every context)."""

    principal: str
    role: Role
    global_scope: bool = False
    subjects: tuple[SubjectPattern, ...] = ()
    contexts: tuple[str, ...] = (".",)
