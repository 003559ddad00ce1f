"""Schemas whose types are shared by many paths, for the cost tests and `bench/compat_cost.py`:
a checker or a diff that handles each path instead of each pair of types does 2^depth work
on them."""
from __future__ import annotations

from typing import Any


def avro_shared_chain(depth: int, leaf: str) -> dict[str, Any]:
    """Avro record Di with field `a` holding D(i-1) written inline and field `b` naming it,
    down to D0, whose one field `v` has type `leaf`."""
    schema: dict[str, Any] = {"type": "record", "name": "D0", "fields": [{"name": "v", "type": leaf}]}
    for i in range(1, depth + 1):
        schema = {"type": "record", "name": f"D{i}",
                  "fields": [{"name": "a", "type": schema}, {"name": "b", "type": f"D{i - 1}"}]}
    return schema


def avro_wide_record(fields: int, type_: str) -> dict[str, Any]:
    """Avro record W with `fields` fields f0, f1, ... all of type `type_`: changing the type
    makes one incompatibility per field."""
    return {"type": "record", "name": "W", "fields": [{"name": f"f{i}", "type": type_} for i in range(fields)]}
