"""Schemas and records the client tests share."""
from __future__ import annotations

import json
from typing import Any


def user_version(n: int) -> str:
    """Version n (1..5) of a User record, each BACKWARD-compatible with the one before (every
    added field has a default)."""
    fields: list[dict[str, Any]] = [{"name": "name", "type": "string"}]
    extra = [
        {"name": "age", "type": "int", "default": 0},
        {"name": "email", "type": ["null", "string"], "default": None},
        {"name": "score", "type": "double", "default": 0.0},
        {"name": "tags", "type": {"type": "array", "items": "string"}, "default": []},
    ]
    fields += extra[: n - 1]
    return json.dumps({"type": "record", "name": "User", "namespace": "com.example", "fields": fields})


def user_record(n: int, i: int) -> dict[str, Any]:
    """A record of version n; `i` varies the values."""
    record: dict[str, Any] = {"name": f"user-{i}"}
    if n >= 2:
        record["age"] = i % 120
    if n >= 3:
        record["email"] = None if i % 3 else f"u{i}@example.com"
    if n >= 4:
        record["score"] = i / 7
    if n >= 5:
        record["tags"] = [f"t{i % 5}"]
    return record


USER_V1, USER_V2, USER_V3, USER_V4, USER_V5 = (user_version(n) for n in range(1, 6))
