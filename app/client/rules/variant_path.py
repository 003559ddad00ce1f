"""The JSONPath subset of `variants.path(v, path)`, as Confluent's executors read it.

`$` is the value itself; `.name` an object's field (a name of letters, digits and `_`, not
starting with a digit); `["key"]` or `['key']` a field of any name, where only `\\\\` and a
backslash before the enclosing quote are escapes; `[3]` an array element (no negative or
relative indices). A path that breaks these rules fails the rule; a path that does not meet
the value (a missing field, an index past the end, a field of a non-object) is a miss.

Parsed paths are kept (rules pass the same literal on every record), at most `_KEPT` of them,
so that paths built from record data cannot grow the cache without bound.
"""
from __future__ import annotations

from dataclasses import dataclass

from app.client.rules.variant_codec import Variant

_KEPT = 1000
_INT_MAX = 2**31 - 1


class PathError(ValueError):
    """A path outside the subset."""


@dataclass(frozen=True)
class Step:
    """One step of a path: a field by `key`, or an element by `index` when key is None."""

    key: str | None
    index: int = 0


_PARSED: dict[str, tuple[Step, ...]] = {}


def parse_path(path: str) -> tuple[Step, ...]:
    found = _PARSED.get(path)
    if found is None:
        found = _parse(path)
        if len(_PARSED) >= _KEPT:
            _PARSED.clear()
        _PARSED[path] = found
    return found


def walk(root: Variant, path: str) -> Variant | None:
    """The value `path` leads to from `root`, None on a miss."""
    current: Variant | None = root
    for step in parse_path(path):
        if current is None:
            return None
        current = current.field(step.key) if step.key is not None else current.element(step.index)
    return current


def _parse(path: str) -> tuple[Step, ...]:
    if not path.startswith("$"):
        raise PathError(f"variant path must start with '$', got: {path}")
    steps: list[Step] = []
    at = 1
    while at < len(path):
        char = path[at]
        if char == ".":
            key, at = _name(path, at + 1)
            steps.append(Step(key))
        elif char == "[":
            at += 1
            if at >= len(path):
                raise PathError(f"unexpected end of input after '[' in variant path: {path}")
            if path[at] in "\"'":
                key, at = _quoted(path, at)
                steps.append(Step(key))
            else:
                index, at = _index(path, at)
                steps.append(Step(None, index))
            if at >= len(path) or path[at] != "]":
                raise PathError(f"expected ']' in variant path: {path}")
            at += 1
        else:
            raise PathError(f"unexpected character '{char}' in variant path: {path}")
    return tuple(steps)


def _name(path: str, at: int) -> tuple[str, int]:
    if at >= len(path) or not (path[at].isalpha() or path[at] == "_"):
        raise PathError(f"expected identifier (starting with a letter or '_') after '.' in variant path: {path}")
    end = at + 1
    while end < len(path) and (path[end].isalpha() or path[end].isdecimal() or path[end] == "_"):
        end += 1
    return path[at:end], end


def _quoted(path: str, at: int) -> tuple[str, int]:
    quote, at = path[at], at + 1
    key: list[str] = []
    while at < len(path):
        char = path[at]
        at += 1
        if char == quote:
            return "".join(key), at
        if char != "\\":
            key.append(char)
            continue
        if at >= len(path):
            raise PathError(f"unterminated escape at end of quoted key in variant path: {path}")
        escaped = path[at]
        at += 1
        if escaped not in ("\\", quote):
            raise PathError(f"unsupported escape '\\{escaped}' in quoted key of variant path "
                            f"(only '\\\\' and '\\{quote}' are allowed): {path}")
        key.append(escaped)
    raise PathError(f"unterminated quoted key in variant path: {path}")


def _index(path: str, at: int) -> tuple[int, int]:
    if path[at] == "-":
        raise PathError(f"negative indices are not supported in variant path: {path}")
    end = at
    while end < len(path) and path[end].isdecimal():
        end += 1
    if end == at:
        raise PathError(f"expected integer index in variant path: {path}")
    if end - at > len(str(_INT_MAX)) or int(path[at:end]) > _INT_MAX:
        raise PathError(f"index out of int range in variant path: {path}")
    return int(path[at:end]), end
