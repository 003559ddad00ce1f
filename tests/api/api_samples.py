"""Avro schemas the API tests register, and small builders for more.

Compatibility facts the tests rely on (BACKWARD = the new schema reads data written with
the old one):
* RECORD_V2 adds a field with a default to RECORD_V1, so it is backward compatible;
* RECORD_INT changes `f1` from string to int, which a reader of either cannot accept.
"""
from __future__ import annotations

import json
from typing import Any


def record(name: str, fields: list[dict[str, Any]], **extra: Any) -> str:
    return json.dumps({"type": "record", "name": name, "fields": fields, **extra})


def field(name: str, type_: Any, **extra: Any) -> dict[str, Any]:
    return {"name": name, "type": type_, **extra}


RECORD_V1 = record("Rec", [field("f1", "string")])
RECORD_V2 = record("Rec", [field("f1", "string"), field("f2", "int", default=0)])
RECORD_V3 = record("Rec", [field("f1", "string"), field("f2", "int", default=0), field("f3", "long", default=0)])
RECORD_INT = record("Rec", [field("f1", "int")])
ENUM = json.dumps({"type": "enum", "name": "Colour", "symbols": ["RED", "GREEN"]})
STRING = json.dumps("string")
INVALID = json.dumps({"type": "record", "name": "Broken"})  # a record without `fields`

# A named type meant to be referenced, and a schema that uses it by full name.
BASE = record("Base", [field("id", "long")], namespace="com.example")
BASE_NAME = "com.example.Base"
OUTER = record("Outer", [field("base", BASE_NAME)])


def same_schema(a: str, b: str) -> bool:
    """Equal as JSON documents: the registry may re-serialize the text it stores."""
    return json.loads(a) == json.loads(b)
