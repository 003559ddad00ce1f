"""A JSON Schema as an outline (`app.formats.base.Node`): properties as fields, definitions
as named types.

A property's children are its own properties (an object) or its items' (an array of
objects), so paths read `address.city`; a `$ref` shows the name it points to and nothing
below it (the definition has its own node), which keeps recursive schemas finite.
Properties pair up by name under the same parent. Each node's locations are the pointers
the checker (`diff`) reports for it: `#/properties/a` and `#/required/a` for a root
property, `#/properties/addr/properties/city` below it.
"""
from __future__ import annotations

import json
from typing import Any

from app.formats.base import FIELD_NODE, GROUP_NODE, TYPE_NODE, Node

# Keywords a diff compares and the tree shows besides type, default and description.
_CONSTRAINTS = (
    "const", "enum", "format", "pattern", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum",
    "multipleOf", "minLength", "maxLength", "minItems", "maxItems", "uniqueItems", "minProperties",
    "maxProperties", "additionalProperties", "contentEncoding", "contentMediaType",
)
_DEFINITIONS = ("$defs", "definitions")


def outline(document: Any) -> Node:
    """The root node of a schema document (an object, or `true`/`false`)."""
    if not isinstance(document, dict):
        return Node("", "", GROUP_NODE, json.dumps(document), "")
    children = list(_properties(document, "", "#"))
    for keyword in _DEFINITIONS:
        definitions = document.get(keyword)
        if isinstance(definitions, dict):
            children += [_definition(keyword, name, schema) for name, schema in definitions.items()]
    title = document.get("title") if isinstance(document.get("title"), str) else None
    return Node(
        "", title or "", TYPE_NODE if title else GROUP_NODE, label(document), "", _default(document),
        _doc(document), tuple(children), _detail(document), named=title, named_kind="schema" if title else "",
    )


def label(schema: Any) -> str:
    """`string`, `integer|null`, `array<string>`, `Address` (a `$ref`), `oneOf<...>`, `enum`."""
    if not isinstance(schema, dict):
        return json.dumps(schema)
    ref = schema.get("$ref")
    if isinstance(ref, str):
        return ref.rstrip("/").rsplit("/", 1)[-1] or ref
    kind = schema.get("type")
    if isinstance(kind, list):
        text = "|".join(str(k) for k in kind)
    elif isinstance(kind, str):
        text = kind
    else:
        text = ""
    if text == "array" and "items" in schema and isinstance(schema["items"], (dict, bool)):
        return f"array<{label(schema['items'])}>"
    for combinator in ("oneOf", "anyOf", "allOf"):
        branches = schema.get(combinator)
        if isinstance(branches, list) and not text:
            return f"{combinator}<" + ", ".join(label(b) for b in branches) + ">"
    if not text:
        if "enum" in schema:
            return "enum"
        if "const" in schema:
            return "const"
        if "properties" in schema:
            return "object"
        return "any"
    return text


def _properties(schema: dict[str, Any], parent: str, pointer: str) -> list[Node]:
    """The nodes of an object schema's properties (or of its array items' properties)."""
    properties = schema.get("properties")
    if not isinstance(properties, dict):
        items = schema.get("items")
        if isinstance(items, dict) and isinstance(items.get("properties"), dict):
            return _properties(items, parent, f"{pointer}/items")
        return []
    required = schema.get("required") if isinstance(schema.get("required"), list) else []
    nodes = []
    for name, sub in properties.items():
        path = f"{parent}.{name}" if parent else name
        at = f"{pointer}/properties/{_escape(name)}"
        detail = _detail(sub)
        if name in required:
            detail = {"required": True, **detail}
        children = _properties(sub, path, at) if isinstance(sub, dict) else []
        nodes.append(Node(
            path, name, FIELD_NODE, label(sub), name, _default(sub), _doc(sub), tuple(children), detail,
            locations=(at, f"{pointer}/required/{_escape(name)}"),
        ))
    return nodes


def _definition(keyword: str, name: str, schema: Any) -> Node:
    path = f"{keyword}.{name}"
    at = f"#/{keyword}/{_escape(name)}"
    children = _properties(schema, path, at) if isinstance(schema, dict) else []
    return Node(
        path, name, TYPE_NODE, label(schema), f"{keyword}/{name}", _default(schema), _doc(schema),
        tuple(children), _detail(schema), locations=(at,), named=name, named_kind="definition",
    )


def _detail(schema: Any) -> dict[str, Any]:
    if not isinstance(schema, dict):
        return {}
    return {key: schema[key] for key in _CONSTRAINTS if key in schema and not isinstance(schema[key], dict)}


def _default(schema: Any) -> str | None:
    if isinstance(schema, dict) and "default" in schema:
        return json.dumps(schema["default"], ensure_ascii=False)
    return None


def _doc(schema: Any) -> str | None:
    if isinstance(schema, dict) and isinstance(schema.get("description"), str):
        return schema["description"]
    return None


def _escape(name: str) -> str:
    """A JSON pointer token, as the checker writes property names into its locations."""
    return name.replace("~", "~0").replace("/", "~1")
