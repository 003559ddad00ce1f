"""`FieldTags` for JSON Schema: properties carrying `confluent:tags`, as the clients' field
transforms read them (a property's own tags; definitions are walked where the document
keeps them, so a tagged field of a referenced-by-pointer object is listed once, under its
definition's path).

`TaggedEntities`, for `findTags`: objects (`sr_record`) and properties (`sr_field`) with
tags, named as Confluent's `JsonSchema.inlineTaggedEntities` names them: a path of the
subschema kinds walked through, `object` for an object, `array` for an array's items,
`allOf.0` (the criterion and the branch's index) for a combination, `conditional.if` ...,
`not`, and `definitions.NAME` / `$defs.NAME` under the object holding them; a property is
its object's path and its name (`object.address.object.city`). An object that is a
property's own schema is not a record. Branches are taken in document order (Confluent
sorts them by its own comparator, which may order a list differently)."""
from __future__ import annotations

from collections import deque
from typing import Any

from app.formats import work_budget
from app.formats.base import FIELD_ENTITY, RECORD_ENTITY, EntityTags

TAGS_PROPERTY = "confluent:tags"
_CHILD_MAPS = ("properties", "definitions", "$defs")
_CHILD_LISTS = ("allOf", "anyOf", "oneOf")
_CONDITIONS = ("if", "then", "else")


def field_tags(document: Any) -> dict[str, tuple[str, ...]]:
    found: dict[str, tuple[str, ...]] = {}
    pending: deque[tuple[str, Any]] = deque([("", document)])
    while pending:  # iterative: documents may nest deeply
        path, node = pending.popleft()  # breadth first, in order; a list's pop(0) is quadratic
        work_budget.check()
        if not isinstance(node, dict):
            continue
        tags = node.get(TAGS_PROPERTY)
        if path and isinstance(tags, list) and tags:
            found[path] = tuple(dict.fromkeys(str(tag) for tag in tags))
        for key in _CHILD_MAPS:
            children = node.get(key)
            if isinstance(children, dict):
                prefix = path if key == "properties" else f"{path}{'.' if path else ''}{key}"
                pending.extend((f"{prefix}{'.' if prefix else ''}{name}", child) for name, child in children.items())
        items = node.get("items")
        if isinstance(items, dict):
            pending.append((path, items))
        for key in _CHILD_LISTS:
            branches = node.get(key)
            if isinstance(branches, list):
                pending.extend((path, branch) for branch in branches)
    return found


def tagged_entities(document: Any) -> list[EntityTags]:
    found: list[EntityTags] = []
    visited: set[str] = set()
    # (subschema, scope, whether it is a property's own schema), depth-first in document order
    pending: list[tuple[Any, str, bool]] = [(document, "", False)]
    while pending:  # iterative: documents may nest deeply
        node, scope, in_field = pending.pop()
        work_budget.check()
        if not isinstance(node, dict):
            continue
        children: list[tuple[Any, str, bool]] = []
        criterion = next((key for key in _CHILD_LISTS if isinstance(node.get(key), list)), None)
        if criterion is not None:
            children = [(branch, f"{scope}{criterion}.{index}.", False)
                        for index, branch in enumerate(node[criterion])]
        elif node.get("type") == "array" or "items" in node:
            children = [(node.get("items"), f"{scope}array.", False)]
        elif node.get("type") == "object" or isinstance(node.get("properties"), dict):
            path = f"{scope}object"
            if path in visited:
                continue
            visited.add(path)
            tags = _own_tags(node)
            if tags and not in_field:
                found.append(EntityTags(path, RECORD_ENTITY, tags))
            properties = node.get("properties")
            for name, child in (properties.items() if isinstance(properties, dict) else ()):
                tags = _own_tags(child)
                if tags:
                    found.append(EntityTags(f"{path}.{name}", FIELD_ENTITY, tags))
                children.append((child, f"{path}.{name}.", True))
            for key in ("definitions", "$defs"):
                named = node.get(key)
                children.extend((child, f"{path}.{key}.{name}.", False)
                                for name, child in (named.items() if isinstance(named, dict) else ()))
        elif any(key in node for key in _CONDITIONS):
            children = [(node[key], f"{scope}conditional.{key}.", False) for key in _CONDITIONS if key in node]
        elif "not" in node:
            children = [(node["not"], f"{scope}not.", False)]
        pending.extend(reversed(children))
    return found


def _own_tags(node: Any) -> tuple[str, ...]:
    tags = node.get(TAGS_PROPERTY) if isinstance(node, dict) else None
    return tuple(dict.fromkeys(str(tag) for tag in tags)) if isinstance(tags, list) else ()
