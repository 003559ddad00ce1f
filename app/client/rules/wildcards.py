"""Confluent's wildcard patterns for metadata tag paths, over dot-separated full names.

`?` is one character and `*` any run of characters within one name, `**` any run across
names (`**.ssn` matches `ns.Person.ssn`). Patterns are compiled once and kept.
"""
from __future__ import annotations

import re
from functools import lru_cache


@lru_cache(maxsize=1024)
def _compiled(pattern: str) -> re.Pattern[str]:
    source = pattern.replace("**.*", "**")
    out = []
    i = 0
    while i < len(source):
        char = source[i]
        if char == "*":
            if source[i + 1:i + 2] == "*":
                out.append(".*")
                i += 2
                continue
            out.append("[^.]*")
        elif char == "?":
            out.append("[^.]")
        else:
            out.append(re.escape(char))
        i += 1
    return re.compile("".join(out))


def wildcard_match(text: str, pattern: str) -> bool:
    return _compiled(pattern).fullmatch(text) is not None
