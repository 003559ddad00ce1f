"""Which strings the registry can store and read back, and how it shows those it cannot.

Both databases must hold every string the registry keeps: PostgreSQL text refuses NUL, and
UTF-8 (what both databases, JSON replies and HTML pages carry) has no encoding for a lone
surrogate (U+D800..U+DFFF without its pair), which a JSON `\\ud800` escape decodes to in
Python. A request's strings are therefore refused when they hold either (the API's
`requests.json_document`, the UI's `protection.check_form_values`), and every reader shows
such a string escaped rather than failing, since older versions stored some
(`sqlregistry db check` finds them). A schema's own text may still spell `\\u0000` or
`\\ud800` as escapes: that is six ordinary characters, stored as written, and its readers
escape what its parsed values hold.
"""
from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any, NamedTuple

_FLAWED = re.compile("[\x00\ud800-\udfff]")
REPLACEMENT = "\ufffd"


class TextFlaw(NamedTuple):
    """Where a document holds a string that cannot be stored, and what is wrong with it.
    `path` names the value the way the API's messages do (`metadata.properties.k`, `refs[0]`;
    "" for the document itself), `shown`: a flawed key is part of it."""

    path: str
    problem: str
    in_key: bool = False


def problem(text: str) -> str | None:
    """What makes `text` unstorable, or None when both databases can hold it. (Asking the
    UTF-8 encoder finds a surrogate many times faster than a regular expression would.)"""
    if "\x00" in text:
        return "holds a NUL character (\\u0000)"
    if text.isascii():
        return None
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:
        return f"holds a lone surrogate (\\u{ord(text[exc.start]):04x}), which is not valid Unicode"
    return None


def first_flaw(document: Any, path: str = "") -> TextFlaw | None:
    """The first string (value or key) in a JSON document that cannot be stored, or None.
    Depth is bounded by whoever parsed the document (the API allows 64 levels)."""
    for where, text, in_key in _strings(document, path):
        found = problem(text)
        if found is not None:
            return TextFlaw(shown(where), found, in_key)
    return None


def _strings(value: Any, path: str) -> Iterator[tuple[str, str, bool]]:
    if isinstance(value, str):
        yield path, value, False
    elif isinstance(value, dict):
        for key, item in value.items():
            where = f"{path}.{key}" if path else str(key)
            if isinstance(key, str):
                yield where, key, True
            yield from _strings(item, where)
    elif isinstance(value, (list, tuple)):
        for index, item in enumerate(value):
            yield from _strings(item, f"{path}[{index}]")


def shown(text: str) -> str:
    """`text` as a reader shows it: a lone surrogate as its `\\udxxx` escape and NUL as
    `\\u0000`, so the stored value stays recognizable and the page or line can be encoded."""
    if problem(text) is None:
        return text
    return _FLAWED.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


def repaired(text: str) -> str:
    """`text` with each unstorable character replaced by U+FFFD (`db check --fix`)."""
    return _FLAWED.sub(REPLACEMENT, text)


def repaired_document(value: Any) -> Any:
    """A JSON document with every string (keys included) `repaired`."""
    if isinstance(value, str):
        return repaired(value)
    if isinstance(value, dict):
        return {repaired(k) if isinstance(k, str) else k: repaired_document(v) for k, v in value.items()}
    if isinstance(value, list):
        return [repaired_document(item) for item in value]
    return value
