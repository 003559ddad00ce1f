"""Query and form values as the pages read them: numbers that must be numbers, flags, paging.

Every refusal names the parameter (a 400 page), never a 500 from a failed `int()`.
"""
from __future__ import annotations

from dataclasses import dataclass

from flask import request

from app.core.types import CompatibilityLevel, Mode
from app.web.errors import BadParameter

MAX_QUERY = 200
LEVELS = tuple(level.value for level in CompatibilityLevel)
MODES = tuple(mode.value for mode in Mode)
DEFAULT_PER_PAGE = 50
MAX_PER_PAGE = 500


def number(name: str, default: int | None = None, *, minimum: int | None = None) -> int | None:
    raw = request.values.get(name)
    if raw is None or raw.strip() == "":
        return default
    try:
        value = int(raw.strip())
    except ValueError:
        raise BadParameter(name, "must be a number") from None
    if minimum is not None and value < minimum:
        raise BadParameter(name, f"must be at least {minimum}")
    return value


def flag(name: str) -> bool:
    return request.values.get(name, "").strip().lower() in ("1", "true", "on", "yes")


def text(name: str, default: str = "", *, limit: int = MAX_QUERY) -> str:
    value = request.values.get(name, default)
    if len(value) > limit:
        raise BadParameter(name, f"is longer than {limit} characters")
    return value


def choice(name: str, allowed: tuple[str, ...], default: str) -> str:
    value = request.values.get(name, default) or default
    if value not in allowed:
        raise BadParameter(name, "must be one of " + ", ".join(allowed))
    return value


@dataclass(frozen=True)
class Paging:
    page: int
    per_page: int

    @property
    def offset(self) -> int:
        return (self.page - 1) * self.per_page

    def window(self, total: int) -> tuple[int, int]:
        """The 1-based first and last item shown ("1–50 of 10,000"); (0, 0) when empty."""
        if total == 0 or self.offset >= total:
            return 0, 0
        return self.offset + 1, min(total, self.offset + self.per_page)

    def has_next(self, total: int) -> bool:
        return self.offset + self.per_page < total


def paging() -> Paging:
    """`page` from 1; `per_page` clamped to MAX_PER_PAGE, as the issue asks, rather than refused."""
    page = number("page", 1, minimum=1) or 1
    per_page = number("per_page", DEFAULT_PER_PAGE, minimum=1) or DEFAULT_PER_PAGE
    return Paging(page, min(per_page, MAX_PER_PAGE))
