"""JSON schemas and records shared by the JSON Schema serializer tests (tests/client, tests/interop),
and the compatibility checker's worst shape (`shared_definitions`) for its tests and bench.

The referencing schemas name what they reference the way Confluent's users do: a file-like
reference name in `$ref`, registered as a reference with that `name`.
"""
from __future__ import annotations

import json
from typing import Any

ADDRESS = json.dumps({
    "$schema": "http://json-schema.org/draft-07/schema#",
    "title": "Address", "type": "object",
    "properties": {"city": {"type": "string", "minLength": 1}, "zip": {"type": "string", "pattern": "^[0-9]{5}$"}},
    "required": ["city"],
})
CUSTOMER = json.dumps({
    "$schema": "http://json-schema.org/draft-07/schema#",
    "title": "Customer", "type": "object",
    "properties": {"id": {"type": "integer", "minimum": 1}, "vip": {"type": "boolean"}},
    "required": ["id"], "additionalProperties": False,
})
# Customer with an address: references address.json (so an order reaches it only transitively).
CUSTOMER_WITH_ADDRESS = json.dumps({
    "$schema": "http://json-schema.org/draft-07/schema#",
    "title": "Customer", "type": "object",
    "properties": {"id": {"type": "integer", "minimum": 1}, "address": {"$ref": "address.json"}},
    "required": ["id", "address"],
})
ORDER = json.dumps({
    "$schema": "http://json-schema.org/draft-07/schema#",
    "title": "Order", "type": "object",
    "properties": {
        "buyer": {"$ref": "customer.json"},
        "total": {"type": "number", "minimum": 0},
        "lines": {"type": "array", "items": {"$ref": "#/definitions/line"}},
    },
    "required": ["buyer", "total"],
    "definitions": {"line": {"type": "object", "properties": {"sku": {"type": "string"}, "qty": {"type": "integer"}},
                             "required": ["sku", "qty"]}},
})


def event_version(n: int) -> str:
    """Version n (1..3) of a closed Event schema: each adds an optional property, which a closed
    content model allows under BACKWARD (an open one would not: old data may hold anything there)."""
    properties: dict[str, Any] = {"name": {"type": "string"}}
    extra = [("count", {"type": "integer"}), ("tags", {"type": "array", "items": {"type": "string"}})]
    properties.update(extra[: n - 1])
    return json.dumps({"title": "Event", "type": "object", "properties": properties, "required": ["name"],
                       "additionalProperties": False})


def event_record(n: int, i: int) -> dict[str, Any]:
    record: dict[str, Any] = {"name": f"event-{i}"}
    if n >= 2:
        record["count"] = i
    if n >= 3:
        record["tags"] = [f"t{i % 4}", "ü"]
    return record


EVENT_V1, EVENT_V2, EVENT_V3 = (event_version(n) for n in range(1, 4))
ORDER_RECORD = {"buyer": {"id": 42, "vip": True}, "total": 9.5, "lines": [{"sku": "a-1", "qty": 2}]}


def shared_definitions(levels: int, leaf: str) -> dict[str, Any]:
    """A draft 2020-12 schema of definitions D1..Dn whose properties `a` and `b` both refer to
    D(n-1), so that 2^n paths lead to D0, `{"type": leaf}`; the root refers to Dn."""
    definitions: dict[str, Any] = {"D0": {"type": leaf}}
    for i in range(1, levels + 1):
        below = {"$ref": f"#/$defs/D{i - 1}"}
        definitions[f"D{i}"] = {"type": "object", "properties": {"a": below, "b": dict(below)}}
    return {"$schema": "https://json-schema.org/draft/2020-12/schema", "$defs": definitions,
            "$ref": f"#/$defs/D{levels}"}
