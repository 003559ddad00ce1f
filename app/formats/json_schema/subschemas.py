"""Where the subschemas of a JSON Schema are, and one walk that visits them all without recursing.

The walk serves four purposes: it bounds how deeply schemas nest (the metaschema validation of
`jsonschema` takes up to 12 Python frames per level), it finds every `$ref` together with its
JSON pointer and the base URI it resolves against, it finds every regular expression (`pattern`,
`patternProperties` keys) with its JSON pointer, and it names the keyword a metaschema error
is about. It follows the keywords that hold subschemas in any draft from 4 to 2020-12, and
nothing else: values of `enum`, `const`, `default`, `examples` and of unknown keywords are data,
even when they look like schemas.
"""
from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any
from urllib.parse import urljoin, urldefrag

from app.formats import work_budget
from app.formats.json_schema.drafts import (
    ALL_DRAFTS,
    SCHEMA,
    SCHEMA_ARRAY,
    SCHEMA_MAP,
    SCHEMA_OR_ARRAY,
    Draft,
)
from app.formats.json_schema.errors import InvalidJsonSchema
from app.formats.json_schema.model import ROOT_URI

# How many subschemas may nest inside each other. At 12 frames a level (the deepest the
# metaschema validators go, draft 2019-09 `anyOf`) this leaves over 400 of Python's 1,000 frames
# to the caller. Real schemas nest a few levels; ones generated from deep documents a few tens.
MAX_SCHEMA_DEPTH = 40

# Every keyword that holds subschemas in some draft: for bounding the nesting, finding `$ref`s
# and naming keywords, a value that is a schema in any draft is treated as one.
SUBSCHEMA_KEYWORDS: dict[str, str] = {
    keyword: SCHEMA_OR_ARRAY if keyword == "items" else shape
    for draft in ALL_DRAFTS
    for keyword, shape in draft.subschemas.items()
}


class SchemaTooDeep(InvalidJsonSchema):
    """A schema whose subschemas nest deeper than `MAX_SCHEMA_DEPTH`."""


@dataclass(frozen=True)
class Ref:
    """One `$ref`: its value, the base URI it resolves against, and where it is (a JSON pointer)."""

    ref: str
    base: str
    pointer: str


def pointer(path: Sequence[str | int]) -> str:
    """The `#/a/b` JSON pointer of a path (`~` and `/` escaped as RFC 6901 says)."""
    return "#" + "".join("/" + str(part).replace("~", "~0").replace("/", "~1") for part in path)


def children(node: dict[str, Any], subschemas: Mapping[str, str]) -> Iterator[tuple[tuple[str | int, ...], Any]]:
    """(relative path, value) for each subschema position directly inside `node`, by the
    keyword shapes of `subschemas`; the values may be anything a schema document holds."""
    for keyword, value in node.items():
        shape = subschemas.get(keyword)
        if shape is None:
            continue
        if shape == SCHEMA_ARRAY or (shape == SCHEMA_OR_ARRAY and isinstance(value, list)):
            if isinstance(value, list):
                for index, item in enumerate(value):
                    yield (keyword, index), item
        elif shape == SCHEMA_MAP:
            if isinstance(value, dict):
                for name, item in value.items():
                    yield (keyword, name), item
        else:
            yield (keyword,), value


@dataclass(frozen=True)
class Regex:
    """One regular expression of a schema (a `pattern` value or a `patternProperties` key) and
    where it is (a JSON pointer)."""

    source: str
    pointer: str


@dataclass(frozen=True)
class Scan:
    """What one walk over a schema found: its `$ref`s and regular expressions in document
    order, and whether any subschema below the root names itself (`$id`, `id`) or an anchor,
    which only a crawl of the document makes resolvable."""

    refs: list[Ref]
    embedded_names: bool
    regexes: list[Regex]


# Keywords by which a subschema can be found other than by its JSON pointer.
_NAMING_KEYWORDS = ("$id", "id", "$anchor", "$dynamicAnchor", "$recursiveAnchor")


def scan(document: Any, draft: Draft) -> Scan:
    """Walk every subschema of `document`; `SchemaTooDeep` when they nest deeper than
    `MAX_SCHEMA_DEPTH`.

    An `$id` (`id` in draft 4), the root's included, moves the base for everything inside it,
    except where `$ref` makes its siblings inert (draft 7 and before); these are the rules by
    which `referencing` gives `JsonNative.base_uri`, so the bases agree with its registry.
    """
    refs: list[Ref] = []
    regexes: list[Regex] = []
    embedded_names = False
    stack: list[tuple[Any, tuple[str | int, ...], str, int]] = [(document, (), ROOT_URI, 0)]
    while stack:
        work_budget.check()
        node, path, node_base, depth = stack.pop()
        if not isinstance(node, dict):
            continue
        if depth > MAX_SCHEMA_DEPTH:
            raise SchemaTooDeep(f"Schema is nested more than {MAX_SCHEMA_DEPTH} levels deep (subschemas)")
        if depth and not embedded_names:
            embedded_names = any(keyword in node for keyword in _NAMING_KEYWORDS)
        ref = node.get("$ref")
        overridden = isinstance(ref, str) and draft.ref_overrides
        identifier = node.get(draft.id_keyword)
        if isinstance(identifier, str) and not overridden and not identifier.startswith("#"):
            node_base = urldefrag(urljoin(node_base, identifier))[0]
        if isinstance(ref, str):
            refs.append(Ref(ref, node_base, pointer((*path, "$ref"))))
        _find_regexes(node, path, regexes)
        for relative, child in reversed(list(children(node, SUBSCHEMA_KEYWORDS))):
            stack.append((child, path + relative, node_base, depth + 1))
    return Scan(refs, embedded_names, regexes)


def _find_regexes(node: dict[str, Any], path: tuple[str | int, ...], regexes: list[Regex]) -> None:
    pattern = node.get("pattern")
    if isinstance(pattern, str):
        regexes.append(Regex(pattern, pointer((*path, "pattern"))))
    by_pattern = node.get("patternProperties")
    if isinstance(by_pattern, dict):
        regexes.extend(Regex(key, pointer((*path, "patternProperties", key))) for key in by_pattern)


def keyword_of(path: Sequence[str | int]) -> str | None:
    """The schema keyword a path into a schema document ends in: the last step that names a
    keyword rather than a property name, an array index or a position inside a keyword's data.
    None for the root itself."""
    keyword: str | None = None
    expect = "keyword"
    for part in path:
        if expect == "member" or (expect == "items" and isinstance(part, int)):
            expect = "keyword"
        elif expect in ("keyword", "items") and isinstance(part, str):
            keyword = part
            shape = SUBSCHEMA_KEYWORDS.get(part)
            if shape == SCHEMA_OR_ARRAY:
                expect = "items"  # a schema, or an array of them
            elif shape in (SCHEMA_ARRAY, SCHEMA_MAP):
                expect = "member"
            else:
                expect = "keyword" if shape == SCHEMA else "data"
        else:
            expect = "data"
    return keyword
