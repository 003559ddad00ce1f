"""Time the JSON Schema compatibility checker on its own: compare + incompatible of object
schemas with 100 properties (and 100 fields of Avro beside it, for scale).

    python bench/json_schema_checker.py

Prints microseconds per call; nothing is asserted (speed targets live in benchmarks). The
documents are decoded once; each call builds the checker's model of both sides from them,
as every compatibility check does.
"""
from __future__ import annotations

import json
import sys
import time
from dataclasses import replace
from pathlib import Path
from typing import Any, Callable

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from app.formats.avro import AvroFormat  # noqa: E402
from app.formats.json_schema.diff import compare, incompatible  # noqa: E402
from app.formats.json_schema.model import build_native  # noqa: E402

KINDS: list[dict[str, Any]] = [
    {"type": "integer"},
    {"type": "string", "maxLength": 64},
    {"type": ["string", "null"]},
    {"type": "array", "items": {"type": "number"}},
    {"type": "object", "properties": {"x": {"type": "boolean"}}},
    {"enum": ["a", "b", "c"]},
]


def object_schema(properties: int, widened: bool = False) -> dict[str, Any]:
    def kind(i: int) -> dict[str, Any]:
        schema = KINDS[i % len(KINDS)]
        if widened and schema == {"type": "integer"}:
            return {"type": "number"}  # the reader widens integer to number
        return schema

    schema = {
        "type": "object",
        "properties": {f"f{i}": kind(i) for i in range(properties)},
        "required": [f"f{i}" for i in range(0, properties, 3)],
        "additionalProperties": False,
    }
    return json.loads(json.dumps(schema))  # as decoded from a request: no shared subschemas


def avro_record(fields: int) -> str:
    kinds = ["int", "string", ["null", "string"], {"type": "array", "items": "double"}]
    return json.dumps({"type": "record", "name": "R",
                       "fields": [{"name": f"f{i}", "type": kinds[i % len(kinds)]} for i in range(fields)]})


def per_call(fn: Callable[[], object], runs: int) -> float:
    fn()
    start = time.perf_counter()
    for _ in range(runs):
        fn()
    return (time.perf_counter() - start) / runs * 1e6


def main() -> None:
    writer = build_native(object_schema(100), {})
    same = build_native(object_schema(100), {})
    widened = build_native(object_schema(100, widened=True), {})

    def check(reader):
        return lambda: incompatible(compare(writer, reader), "STRICT")

    print(f"JSON compare+incompatible, identical 100 properties  {per_call(check(same), 300):8.1f} us")
    print(f"JSON compare+incompatible, 17 widened of 100         {per_call(check(widened), 300):8.1f} us")
    def fresh(reader):
        # A copy of each native is a schema the checker has not modelled yet.
        return lambda: incompatible(compare(replace(writer), replace(reader)), "STRICT")

    print(f"JSON first check of a pair (models built), identical {per_call(fresh(same), 300):8.1f} us")
    print(f"JSON first check of a pair (models built), widened   {per_call(fresh(widened), 300):8.1f} us")
    text = json.dumps(object_schema(100))

    def parsed_then_checked():
        return compare(build_native(json.loads(text), {}), same)

    print(f"JSON build_native + compare (decode done), 100 props {per_call(parsed_then_checked, 300):8.1f} us")
    avro = AvroFormat()
    record, other = avro.parse(avro_record(100), {}), avro.parse(avro_record(100), {})
    avro_check = per_call(lambda: avro.can_read(record, other), 300)
    print(f"Avro can_read of two parses, 100 fields              {avro_check:8.1f} us")


if __name__ == "__main__":
    main()
