"""A JSON Schema as an outline (`app.formats.base.Node`): properties as fields, definitions
as named types, and every other subschema the checker compares as a node of its own.

A property's children are its own properties (an object) or its items' (an array of
objects), so paths read `address.city`; a `$ref` shows the name it points to and nothing
below it (the definition has its own node), which keeps recursive schemas finite.
Subschemas that are not properties get a node named after their keyword, so that whatever
they hold is diffed, shown and indexed: `allOf[0]`, `oneOf[1]`, `anyOf[2]` (a combination's
members, by position), `items[0]` (`prefixItems[0]` in 2020-12: a tuple's positions), `not`,
`additionalProperties`, `additionalItems`, `unevaluatedProperties`, `unevaluatedItems`,
`contains`, `dependencies.foo` (one per property a dependency hangs on). Their paths read
`payment.oneOf[1].iban`. A keyword whose value is a boolean is detail of its owner instead.

Nodes pair up by property name, or by keyword and position, under the same parent. Each
node's locations are the pointers the checker (`diff`) reports for it: `#/properties/a`
and `#/required/a` for a root property, `#/properties/addr/properties/city` below it,
`#/items/0` for a tuple position in every draft, `#/additionalItems` also for 2020-12's
`items` beside `prefixItems`, `#/dependencies/foo` for `dependentRequired` and
`dependentSchemas` as for `dependencies`.
"""
from __future__ import annotations

import json
from typing import Any

from app.formats.base import FIELD_NODE, GROUP_NODE, TYPE_NODE, Declaration, Node

# Keywords a diff compares and the tree shows besides type, default and description. Those
# that may hold a schema are detail only when they hold a boolean (`_SINGLE` makes a node of
# a schema).
_CONSTRAINTS = (
    "const", "enum", "format", "pattern", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum",
    "multipleOf", "minLength", "maxLength", "minItems", "maxItems", "uniqueItems", "minContains", "maxContains",
    "minProperties", "maxProperties", "additionalProperties", "additionalItems", "unevaluatedProperties",
    "unevaluatedItems", "contains", "contentEncoding", "contentMediaType",
)
_DEFINITIONS = ("$defs", "definitions")
_COMBINATIONS = ("allOf", "anyOf", "oneOf")
# Keywords holding one subschema, each reported at its own pointer segment.
_SINGLE = ("not", "additionalProperties", "unevaluatedProperties", "unevaluatedItems", "contains")
_DEPENDENCIES = ("dependencies", "dependentRequired", "dependentSchemas")


def outline(document: Any) -> Node:
    """The root node of a schema document (an object, or `true`/`false`)."""
    if not isinstance(document, dict):
        return Node("", "", GROUP_NODE, json.dumps(document), "", declared=_written_as(document))
    children = _children(document, "", "#")
    for keyword in _DEFINITIONS:
        definitions = document.get(keyword)
        if isinstance(definitions, dict):
            children += [_definition(keyword, name, schema) for name, schema in definitions.items()]
    title = document.get("title") if isinstance(document.get("title"), str) else None
    return Node(
        "", title or "", TYPE_NODE if title else GROUP_NODE, label(document), "", _default(document),
        _doc(document), tuple(children), _detail(document), named=title, named_kind="schema" if title else "",
        declared=_written_as(document),
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
    if text in ("array", "") and isinstance(schema.get("items"), (dict, bool)) and "prefixItems" not in schema:
        return f"array<{label(schema['items'])}>"
    for combinator in _COMBINATIONS:
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


def written(schema: Any) -> str:
    """How a person reads the type: `string`, `integer | null`, `array of string`, `Address`
    (a `$ref`), `one of string, integer`, `enum`. Unlike `label`, which diffs compare and the
    search index stores, free to change with how pages should read."""
    if not isinstance(schema, dict):
        return "anything" if schema is True else "nothing" if schema is False else json.dumps(schema)
    ref = schema.get("$ref")
    if isinstance(ref, str):
        return ref.rstrip("/").rsplit("/", 1)[-1] or ref
    kind = schema.get("type")
    text = " | ".join(str(k) for k in kind) if isinstance(kind, list) else kind if isinstance(kind, str) else ""
    if text in ("array", "") and isinstance(schema.get("items"), (dict, bool)) and "prefixItems" not in schema:
        items = written(schema["items"])
        return f"array of ({items})" if " " in items else f"array of {items}"
    for combinator, words in _COMBINATION_WORDS.items():
        branches = schema.get(combinator)
        if isinstance(branches, list) and not text:
            return f"{words} " + ", ".join(written(b) for b in branches)
    if text:
        return text
    return next((word for key, word in _UNTYPED_WORDS if key in schema), "any")


_COMBINATION_WORDS = {"allOf": "all of", "anyOf": "any of", "oneOf": "one of"}
_UNTYPED_WORDS = (("enum", "enum"), ("const", "const"), ("properties", "object"))


def _written_as(schema: Any) -> Declaration:
    """A schema that is only an `enum` is written as its values: `"a" | "b"`."""
    if isinstance(schema, dict) and "type" not in schema and isinstance(schema.get("enum"), list):
        values = " | ".join(json.dumps(v, ensure_ascii=False) for v in schema["enum"])
        return Declaration(after=values, spells=("type", "enum"))
    return Declaration(after=written(schema), spells=("type",))


def _children(schema: dict[str, Any], parent: str, pointer: str) -> list[Node]:
    """The nodes below a schema: its properties, then its other subschemas. The single
    schema of an array's `items` is transparent: its own children stand for the array's."""
    nodes = _properties(schema, parent, pointer)
    items = schema.get("items")
    positions = schema.get("prefixItems", items if isinstance(items, list) else None)
    if isinstance(positions, list):
        keyword = "prefixItems" if "prefixItems" in schema else "items"
        nodes += [
            _keyword_node(f"{keyword}[{i}]", f"/items/{i}", sub, parent, f"{pointer}/items/{i}")
            for i, sub in enumerate(positions)
        ]
        if isinstance(items, dict):  # 2020-12: `items` beside `prefixItems`, reported as additionalItems
            nodes.append(_keyword_node("items", "/additionalItems", items, parent, f"{pointer}/additionalItems"))
    elif isinstance(items, dict):
        nodes += _children(items, parent, f"{pointer}/items")
    if isinstance(schema.get("additionalItems"), dict):
        nodes.append(_keyword_node(
            "additionalItems", "/additionalItems", schema["additionalItems"], parent, f"{pointer}/additionalItems"))
    for keyword in _SINGLE:
        if isinstance(schema.get(keyword), dict):
            nodes.append(_keyword_node(keyword, f"/{keyword}", schema[keyword], parent, f"{pointer}/{keyword}"))
    for keyword in _COMBINATIONS:
        branches = schema.get(keyword)
        if isinstance(branches, list):
            nodes += [
                _keyword_node(f"{keyword}[{i}]", f"/{keyword}/{i}", sub, parent, f"{pointer}/{keyword}/{i}")
                for i, sub in enumerate(branches)
            ]
    for keyword in _DEPENDENCIES:
        dependencies = schema.get(keyword)
        if isinstance(dependencies, dict):
            nodes += [_dependency(keyword, name, value, parent, pointer) for name, value in dependencies.items()]
    return nodes


def _properties(schema: dict[str, Any], parent: str, pointer: str) -> list[Node]:
    """The nodes of an object schema's properties."""
    properties = schema.get("properties")
    if not isinstance(properties, dict):
        return []
    required = schema.get("required") if isinstance(schema.get("required"), list) else []
    nodes = []
    for name, sub in properties.items():
        path = f"{parent}.{name}" if parent else name
        at = f"{pointer}/properties/{_escape(name)}"
        detail = _detail(sub)
        if name in required:
            detail = {"required": True, **detail}
        children = _children(sub, path, at) if isinstance(sub, dict) else []
        nodes.append(Node(
            path, name, FIELD_NODE, label(sub), name, _default(sub), _doc(sub), tuple(children), detail,
            locations=(at, f"{pointer}/required/{_escape(name)}"), declared=_written_as(sub),
        ))
    return nodes


def _keyword_node(name: str, key: str, schema: Any, parent: str, at: str) -> Node:
    """A subschema that is not a property (a combination's member, a tuple position, `not`,
    ...): named after its keyword, keyed by its pointer below the parent (a leading `/`, which
    no ordinary property name has). A boolean schema is a node without children."""
    path = f"{parent}.{name}" if parent else name
    children = _children(schema, path, at) if isinstance(schema, dict) else []
    return Node(
        path, name, GROUP_NODE, label(schema), key, _default(schema), _doc(schema),
        tuple(children), _detail(schema), locations=(at,), declared=_written_as(schema),
    )


def _dependency(keyword: str, name: str, value: Any, parent: str, pointer: str) -> Node:
    """What the presence of property `name` requires: other properties (`requires`), or a
    schema the object must then also match (shown like any subschema)."""
    at = f"{pointer}/dependencies/{_escape(name)}"
    if isinstance(value, dict):
        return _keyword_node(f"{keyword}.{name}", f"/{keyword}/{name}", value, parent, at)
    path = f"{parent}.{keyword}.{name}" if parent else f"{keyword}.{name}"
    requires = [v for v in value if isinstance(v, str)] if isinstance(value, list) else []
    return Node(
        path, f"{keyword}.{name}", GROUP_NODE, "dependency", f"/{keyword}/{name}",
        detail={"requires": requires}, locations=(at,),
    )


def _definition(keyword: str, name: str, schema: Any) -> Node:
    path = f"{keyword}.{name}"
    at = f"#/{keyword}/{_escape(name)}"
    children = _children(schema, path, at) if isinstance(schema, dict) else []
    return Node(
        path, name, TYPE_NODE, label(schema), f"{keyword}/{name}", _default(schema), _doc(schema),
        tuple(children), _detail(schema), locations=(at,), named=name, named_kind="definition",
        declared=_written_as(schema),
    )


def _detail(schema: Any) -> dict[str, Any]:
    if not isinstance(schema, dict):
        return {}
    found = {key: schema[key] for key in _CONSTRAINTS if key in schema and not isinstance(schema[key], dict)}
    if isinstance(schema.get("items"), bool):  # `items: false`: no items (or none past prefixItems)
        found["items"] = schema["items"]
    return found


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
