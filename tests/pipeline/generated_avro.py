"""Generated Avro record schemas and random records of them, as fastavro writes them: the
pipeline's parity tests run both decoder (and encoder) paths over these."""
from __future__ import annotations

import itertools
import random
from datetime import date, datetime, timezone
from decimal import Decimal
from typing import Any

from hypothesis import strategies as st

_names = itertools.count()

LEAVES = st.sampled_from([
    "boolean", "int", "long", "float", "double", "string", "bytes",
    {"type": "int", "logicalType": "date"},
    {"type": "long", "logicalType": "timestamp-micros"},
    {"type": "long", "logicalType": "timestamp-millis"},
    {"type": "bytes", "logicalType": "decimal", "precision": 9, "scale": 2},
    "enum", "fixed",
])


def _named(kind: str) -> dict[str, Any]:
    name = f"T{next(_names)}"
    if kind == "enum":
        return {"type": "enum", "name": name, "symbols": ["A", "B", "C"]}
    return {"type": "fixed", "name": name, "size": 3}


def _leaf(kind: Any) -> Any:
    return _named(kind) if kind in ("enum", "fixed") else kind


def _record(fields: list[Any]) -> dict[str, Any]:
    return {"type": "record", "name": f"R{next(_names)}",
            "fields": [{"name": f"f{i}", "type": kind} for i, kind in enumerate(fields)]}


def _composite(inner: st.SearchStrategy, general_unions: bool = True) -> st.SearchStrategy:
    shapes = [
        st.lists(inner, min_size=1, max_size=3).map(_record),
        inner.map(lambda items: {"type": "array", "items": items}),
        inner.map(lambda values: {"type": "map", "values": values}),
        inner.map(lambda kind: ["null", kind] if not isinstance(kind, list) else kind),
    ]
    if general_unions:
        shapes += [st.just(["null", "int", "string"]), st.just(["int", "long"]), st.just(["string", "bytes", "double"])]
    return st.one_of(*shapes)


def _records(general_unions: bool) -> st.SearchStrategy:
    fields = st.recursive(LEAVES.map(_leaf), lambda inner: _composite(inner, general_unions), max_leaves=6)
    return st.lists(fields, min_size=1, max_size=5).map(_record)


SCHEMAS = _records(general_unions=True)
# Only unions of null and one type: what a DataFrame's columns can hold again once decoded
# (a general union decodes to a struct of member0.., which is no longer the union's value).
COLUMN_SCHEMAS = _records(general_unions=False)


def value_of(schema: Any, rng: random.Random) -> Any:
    """A random value of `schema` as fastavro writes it."""
    if isinstance(schema, list):
        member = rng.choice(schema)
        return None if member == "null" else value_of(member, rng)
    if isinstance(schema, dict) and "logicalType" in schema:
        return {
            "date": lambda: date(2000, 1, 1) if rng.random() < 0.5 else date(1969, 12, rng.randint(1, 31)),
            "timestamp-micros": lambda: datetime.fromtimestamp(rng.randint(-10**9, 10**9) + rng.randint(0, 999_999)
                                                               / 1e6, tz=timezone.utc),
            "timestamp-millis": lambda: datetime.fromtimestamp(rng.randint(-10**9, 10**9), tz=timezone.utc),
            "decimal": lambda: Decimal(rng.randint(-10**8, 10**8)).scaleb(-2),
        }[schema["logicalType"]]()
    kind = schema["type"] if isinstance(schema, dict) else schema
    if kind == "record":
        return {field["name"]: value_of(field["type"], rng) for field in schema["fields"]}
    if kind == "array":
        return [value_of(schema["items"], rng) for _ in range(rng.randint(0, 3))]
    if kind == "map":
        return {f"k{i}": value_of(schema["values"], rng) for i in range(rng.randint(0, 3))}
    if kind == "enum":
        return rng.choice(schema["symbols"])
    if kind == "fixed":
        return bytes(rng.randrange(256) for _ in range(schema["size"]))
    return {
        "boolean": lambda: rng.random() < 0.5, "int": lambda: rng.randint(-2**31, 2**31 - 1),
        "long": lambda: rng.randint(-2**63, 2**63 - 1), "float": lambda: rng.choice([0.5, -2.25, 1e10]),
        "double": lambda: rng.uniform(-1e6, 1e6), "string": lambda: rng.choice(["", "é", "x" * rng.randint(1, 9)]),
        "bytes": lambda: rng.randbytes(rng.randint(0, 4)),
    }[kind]()
