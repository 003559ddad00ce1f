"""Where the subschemas of a JSON Schema are, and one walk that visits them all without recursing.

The walk serves three purposes: it bounds how deeply schemas nest (the metaschema validation of
`jsonschema` takes up to 12 Python frames per level), it finds every `$ref` together with its
JSON pointer and the base URI it resolves against, and it names the keyword a metaschema error
is about. It follows the keywords that hold subschemas in any draft from 4 to 2020-12, and
nothing else: values of `enum`, `const`, `default`, `examples` and of unknown keywords are data,
even when they look like schemas.
"""
from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any
from urllib.parse import urljoin, urldefrag

from app.formats.json_schema.drafts import Draft
from app.formats.json_schema.errors import InvalidJsonSchema
from app.formats.json_schema.model import ROOT_URI

# How many subschemas may nest inside each other. At 12 frames a level (the deepest the
# metaschema validators go, draft 2019-09 `anyOf`) this leaves over 400 of Python's 1,000 frames
# to the caller. Real schemas nest a few levels; ones generated from deep documents a few tens.
MAX_SCHEMA_DEPTH = 40

# keyword -> the shape of its value: a schema, an array of schemas, or a name -> schema object.
SCHEMA = "schema"
SCHEMA_ARRAY = "array"
SCHEMA_MAP = "map"
SUBSCHEMA_KEYWORDS: dict[str, str] = {
    **dict.fromkeys(
        ("additionalItems", "additionalProperties", "contains", "contentSchema", "else", "if", "items", "not",
         "propertyNames", "then", "unevaluatedItems", "unevaluatedProperties"),
        SCHEMA,
    ),
    **dict.fromkeys(("allOf", "anyOf", "oneOf", "prefixItems"), SCHEMA_ARRAY),
    **dict.fromkeys(("$defs", "definitions", "dependencies", "dependentSchemas", "patternProperties", "properties"),
                    SCHEMA_MAP),
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


def _children(node: dict[str, Any]) -> Iterator[tuple[tuple[str | int, ...], Any]]:
    """(relative path, subschema) for each subschema directly inside `node`."""
    for keyword, value in node.items():
        shape = SUBSCHEMA_KEYWORDS.get(keyword)
        if shape is None:
            continue
        if shape == SCHEMA_ARRAY or (keyword == "items" and isinstance(value, list)):
            if isinstance(value, list):
                for index, item in enumerate(value):
                    yield (keyword, index), item
        elif shape == SCHEMA_MAP:
            if isinstance(value, dict):
                for name, item in value.items():
                    yield (keyword, name), item
        else:
            yield (keyword,), value


def walk_refs(document: Any, draft: Draft) -> list[Ref]:
    """Every `$ref` in `document`, in document order;
    `SchemaTooDeep` when its subschemas nest deeper than `MAX_SCHEMA_DEPTH`.

    An `$id` (`id` in draft 4), the root's included, moves the base for everything inside it,
    except where `$ref` makes its siblings inert (draft 7 and before); these are the rules by
    which `referencing` gives `JsonNative.base_uri`, so the bases agree with its registry.
    """
    refs: list[Ref] = []
    stack: list[tuple[Any, tuple[str | int, ...], str, int]] = [(document, (), ROOT_URI, 0)]
    while stack:
        node, path, node_base, depth = stack.pop()
        if not isinstance(node, dict):
            continue
        if depth > MAX_SCHEMA_DEPTH:
            raise SchemaTooDeep(f"Schema is nested more than {MAX_SCHEMA_DEPTH} levels deep (subschemas)")
        ref = node.get("$ref")
        overridden = isinstance(ref, str) and draft.ref_overrides
        identifier = node.get(draft.id_keyword)
        if isinstance(identifier, str) and not overridden and not identifier.startswith("#"):
            node_base = urldefrag(urljoin(node_base, identifier))[0]
        if isinstance(ref, str):
            refs.append(Ref(ref, node_base, pointer((*path, "$ref"))))
        children = list(_children(node))
        for relative, child in reversed(children):
            stack.append((child, path + relative, node_base, depth + 1))
    return refs


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
            if part == "items":
                expect = "items"  # a schema, or an array of them
            elif shape in (SCHEMA_ARRAY, SCHEMA_MAP):
                expect = "member"
            else:
                expect = "keyword" if shape == SCHEMA else "data"
        else:
            expect = "data"
    return keyword
