"""Name patterns from policy documents, matched in time linear in the name.

A policy's regex is written by whoever may select policies, a subject's administrator
among them, and runs on every registration and every read-only `POST /policies/{s}/check`.
Python's `re` backtracks: `(a|a)*b` takes seconds on a 26-character name and never ends on
a long one, holding a worker all the while. RE2 (google-re2) matches without backtracking,
so such a pattern costs what any other does; the price is that RE2 has no backreferences and
no lookaround, so those patterns are refused when the policy is written. Without the
package, regexes are refused altogether (the named cases, our own linear patterns, still
work): a policy that cannot be checked safely is not accepted.
"""
from __future__ import annotations

import functools
import re
from typing import Protocol

try:
    import re2 as _re2
except ImportError:  # pragma: no cover - google-re2 is a dependency; this is an install without it
    _re2 = None

CASES: dict[str, re.Pattern[str]] = {
    "PascalCase": re.compile(r"[A-Z][a-zA-Z0-9]*"),
    "camelCase": re.compile(r"[a-z][a-zA-Z0-9]*"),
    "snake_case": re.compile(r"[a-z][a-z0-9]*(?:_[a-z0-9]+)*"),
    "UPPER_SNAKE_CASE": re.compile(r"[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)*"),
    "kebab-case": re.compile(r"[a-z][a-z0-9]*(?:-[a-z0-9]+)*"),
}


class Matcher(Protocol):
    def fullmatch(self, text: str) -> object | None: ...


class PatternError(ValueError):
    """A pattern that cannot be matched in linear time (or at all); the message says why."""


def _options() -> object:
    options = _re2.Options()
    options.log_errors = False  # RE2 would print every refused pattern to stderr
    return options


@functools.lru_cache(maxsize=512)
def compile_pattern(spec: str) -> Matcher:
    """A case name's pattern, or `spec` as an RE2 regex (matched in full)."""
    case = CASES.get(spec)
    if case is not None:
        return case
    if _re2 is None:
        raise PatternError("regex patterns need the google-re2 package, which this installation lacks; "
                           f"use one of {', '.join(CASES)}")
    try:
        return _re2.compile(spec, _options())
    except _re2.error as exc:
        reason = exc.args[0].decode("utf-8", "replace") if exc.args and isinstance(exc.args[0], bytes) else str(exc)
        raise PatternError(f"{reason} (patterns are RE2 syntax, matched in linear time: "
                           "no backreferences, no lookahead or lookbehind)") from None
