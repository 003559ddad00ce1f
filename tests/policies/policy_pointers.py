"""Resolving the JSON pointers violations carry, in the document a client sent."""
from __future__ import annotations

import json
from typing import Any


def resolve(text: str, pointer: str) -> Any:
    """The element `pointer` names in the JSON `text`; KeyError/IndexError when it names none."""
    node: Any = json.loads(text)
    if pointer == "":
        return node
    assert pointer.startswith("/"), pointer
    for part in pointer[1:].split("/"):
        part = part.replace("~1", "/").replace("~0", "~")
        node = node[int(part)] if isinstance(node, list) else node[part]
    return node
