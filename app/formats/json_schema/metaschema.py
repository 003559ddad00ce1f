"""Checking a schema against its draft's metaschema, and saying where it is wrong.

Confluent refuses a malformed schema when its loader trips over the keyword (`#/minimum:
expected type: Number, found: String`); here the `jsonschema` library checks the document
against the metaschema of its draft, and the refusal names the JSON pointer of the offending
value and the schema keyword it belongs to. `format` values are not asserted (the metaschemas
use `format` as an annotation, and so does Confluent).

Validating a whole document costs `jsonschema` about 75 microseconds per subschema, most of it
spent re-entering the metaschema, and real schemas repeat the same small subschemas
(`{"type": "string"}`) many times. Every metaschema sends each subschema position back to the
metaschema itself, so a document is valid exactly when each of its (sub)schemas is valid with
its own subschemas replaced by `{}`: each such shallow node is checked once per process and
the verdict cached by its text.
"""
from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from jsonschema.exceptions import best_match

from app.formats import work_budget
from app.formats.json_schema.drafts import Draft
from app.formats.json_schema.errors import InvalidJsonSchema
from app.formats.json_schema.subschemas import children, keyword_of, pointer

# A metaschema message quotes the offending value, which may be a whole subschema.
_MAX_MESSAGE = 300
# Distinct shallow nodes remembered per process (a few hundred bytes each); past this the
# memory starts over, which costs a few re-validations and nothing else.
_CACHED_NODES = 8192

# (draft name, shallow node's repr) -> None when valid, else (path within the node, message)
_Verdict = tuple[tuple[str | int, ...], str] | None
_verdicts: dict[tuple[str, str], _Verdict] = {}


def _verdict(draft: Draft, node: dict[str, Any]) -> _Verdict:
    """The path (within the node) and message of the node's most relevant metaschema error."""
    # `repr` tells apart what the metaschema tells apart (types: 1, 1.0 and True differ) and is
    # the cheapest text of a small node; a number's spelling does not change a verdict.
    key = (draft.name, repr(node))
    try:
        return _verdicts[key]
    except KeyError:
        pass
    error = best_match(draft.validator.iter_errors(node))
    verdict: _Verdict = None
    if error is not None:
        message = error.message if len(error.message) <= _MAX_MESSAGE else error.message[:_MAX_MESSAGE] + "..."
        verdict = tuple(error.absolute_path), message
    if len(_verdicts) >= _CACHED_NODES:
        _verdicts.clear()
    _verdicts[key] = verdict
    return verdict


def _shallow(node: dict[str, Any], draft: Draft) -> tuple[dict[str, Any], list[tuple[tuple[str | int, ...], Any]]]:
    """`node` with each object in a subschema position replaced by `{}` (a valid schema in
    every draft), and those objects with their paths; booleans and malformed values stay for
    the metaschema to judge.

    Many `{}` in one map (`properties`, `$defs`, ...) or array (`allOf`, ...) say no more to
    the metaschema than one does (it constrains neither the count nor the names of their
    members, and `format: regex` on names is not asserted), so one stands for all: a node of
    60,000 properties is validated in one step that costs what one property does, not a
    second that nothing could interrupt. Other members keep their keys; an array keeps its
    positions unless every member was replaced."""
    if not any(keyword in draft.subschemas for keyword in node):
        return node, []
    inner = [(path, child) for path, child in children(node, draft.subschemas) if isinstance(child, dict)]
    emptied = dict(node)
    replaced: dict[str, int] = {}
    for path, _ in inner:
        if len(path) == 1:
            emptied[path[0]] = {}
            continue
        keyword, member = path
        if emptied[keyword] is node[keyword]:
            emptied[keyword] = list(node[keyword]) if isinstance(member, int) else dict(node[keyword])
        if isinstance(member, str) and replaced.get(keyword):
            del emptied[keyword][member]  # a map already holds a `{}`
        else:
            emptied[keyword][member] = {}
        replaced[keyword] = replaced.get(keyword, 0) + 1
    for keyword, count in replaced.items():
        if isinstance(emptied[keyword], list) and count == len(emptied[keyword]) > 1:
            emptied[keyword] = [{}]
    return emptied, inner


def check_against_metaschema(document: Any, draft: Draft) -> None:
    """`InvalidJsonSchema` naming the pointer and keyword of the first error (in document
    order) if the document is not valid against its draft's metaschema. Iterative: the
    document's nesting costs no stack here."""
    if not isinstance(document, dict):
        return  # `true` and `false` are schemas in every draft this registry reads
    stack: list[tuple[dict[str, Any], Sequence[str | int]]] = [(document, ())]
    while stack:
        work_budget.check()
        node, path = stack.pop()
        shallow, inner = _shallow(node, draft)
        verdict = _verdict(draft, shallow)
        if verdict is not None:
            where, message = verdict
            full = [*path, *where]
            keyword = keyword_of(full)
            named = f" (keyword '{keyword}')" if keyword is not None else ""
            raise InvalidJsonSchema(f"{pointer(full)}: {message}{named}")
        for relative, child in reversed(inner):
            stack.append((child, (*path, *relative)))
