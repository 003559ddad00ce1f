"""`FieldTags` for JSON Schema: properties carrying `confluent:tags`, as the clients' field
transforms read them (a property's own tags; definitions are walked where the document
keeps them, so a tagged field of a referenced-by-pointer object is listed once, under its
definition's path)."""
from __future__ import annotations

from collections import deque
from typing import Any

from app.formats import work_budget

TAGS_PROPERTY = "confluent:tags"
_CHILD_MAPS = ("properties", "definitions", "$defs")
_CHILD_LISTS = ("allOf", "anyOf", "oneOf")


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
