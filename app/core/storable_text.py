"""Which strings the registry can store and read back, and how it shows those it cannot.

Both databases must hold every string the registry keeps: PostgreSQL text refuses NUL, and
UTF-8 (what both databases, JSON replies and HTML pages carry) has no encoding for a lone
surrogate (U+D800..U+DFFF without its pair), which a JSON `\\ud800` escape decodes to in
Python. A request's strings are therefore refused when they hold either (the API's
`requests.json_document`, the UI's `protection.check_text`), and every reader shows
such a string escaped rather than failing, since older versions stored some
(`sqlregistry db check` finds them). A schema's own text may still spell `\\u0000` or
`\\ud800` as escapes: that is six ordinary characters, stored as written, and its readers
escape what its parsed values hold.
"""
from __future__ import annotations

import re
from typing import Any, NamedTuple

_FLAWED = re.compile("[\x00\ud800-\udfff]")
REPLACEMENT = "\ufffd"


class TextFlaw(NamedTuple):
    """Where a document holds a string that cannot be stored, and what is wrong with it.
    `path` names the value the way the API's messages do (`metadata.properties.k`, `refs[0]`;
    "" for the document itself), escaped by `shown`, since a flawed key is part of it."""

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


def first_flaw(document: Any) -> TextFlaw | None:
    """The first string (value or key) in a JSON document that cannot be stored, or None.
    Every request body passes here, so a clean ASCII string costs two checks in C and the
    path is named only once something was found. Depth is bounded by whoever parsed the
    document (the API allows 64 levels)."""
    found = _in_item(document)
    if found is None:
        return None
    steps, what, in_key = found
    path = ""
    for step in reversed(steps):
        path = f"{path}[{step}]" if isinstance(step, int) else (f"{path}.{step}" if path else step)
    return TextFlaw(shown(path), what, in_key)


# A finding on its way up: the steps from it to the root (innermost first), the problem,
# and whether the string is a key.
_Found = tuple[list[Any], str, bool]


def _find(value: dict[Any, Any] | list[Any]) -> _Found | None:
    if isinstance(value, dict):
        for key, item in value.items():
            if isinstance(key, str) and ("\x00" in key or not key.isascii()):
                what = problem(key)
                if what is not None:
                    return [key], what, True
            found = _in_item(item)
            if found is not None:
                found[0].append(key)
                return found
    elif isinstance(value, list):
        for index, item in enumerate(value):
            found = _in_item(item)
            if found is not None:
                found[0].append(index)
                return found
    return None


def _in_item(item: Any) -> _Found | None:
    if isinstance(item, str):  # the common case, settled without another call when clean
        if "\x00" not in item and item.isascii():
            return None
        what = problem(item)
        return None if what is None else ([], what, False)
    return _find(item) if isinstance(item, (dict, list)) else None


def shown(text: str) -> str:
    """`text` as a reader shows it: a lone surrogate as its `\\udxxx` escape and NUL as
    `\\u0000`, so the stored value stays recognizable and the page or line can be encoded."""
    if problem(text) is None:
        return text
    return _FLAWED.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


def repaired(text: str) -> str:
    """`text` with each unstorable character replaced by U+FFFD: `db check --fix`, and the field
    index and its searches (a JSON Schema may spell such a character as an escape)."""
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
