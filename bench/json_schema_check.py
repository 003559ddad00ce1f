"""Time the JSON Schema format on its own, next to Avro at the same size: parsing a 100-property
schema and checking a pair of them, the way a registration with BACKWARD compatibility does.

    python bench/json_schema_check.py

The pair differs as the Avro pair of bench/avro_checker.py does: every sixth property widens
(JSON `integer` -> `number`, Avro `int` -> `long`), which both checkers accept. The JSON
checker keeps its model of each parsed schema; the "first check" row gives it copies it has
not modelled yet, which is what a check against a just-parsed candidate costs. Prints
microseconds per call; nothing is asserted (speed targets live in benchmarks).

The last rows are the JSON checker's worst shape: definitions D1..Dn whose two properties
both refer to D(n-1), so 2^n paths lead to D0, whose type the reader changes. The checker
compares and reports each pair of types once, so the cost grows with n, not 2^n.
"""
from __future__ import annotations

import json
import sys
from dataclasses import replace
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))  # the shared-definitions shape

from avro_checker import per_call, record  # noqa: E402

from app.formats.avro import AvroFormat  # noqa: E402
from app.formats.base import ParsedSchema  # noqa: E402
from app.formats.json_schema import JsonSchemaFormat  # noqa: E402
from support.json_samples import shared_definitions  # noqa: E402

PROPERTIES = 100
KINDS = [
    {"type": "integer"},
    {"type": "integer", "minimum": 0},
    {"type": "string", "maxLength": 64},
    {"type": ["null", "string"]},
    {"type": "array", "items": {"type": "integer"}},
    {"type": "object", "additionalProperties": {"type": "number"}},
]


def json_object(properties: int, widened: bool = False) -> str:
    def kind(i: int) -> dict:
        schema = KINDS[i % len(KINDS)]
        if widened and schema == {"type": "integer"}:
            return {"type": "number"}  # the reader accepts any number where integers were written
        return schema

    return json.dumps({
        "$schema": "http://json-schema.org/draft-07/schema#",
        "title": "R",
        "type": "object",
        "properties": {f"f{i}": kind(i) for i in range(properties)},
        "required": [f"f{i}" for i in range(0, properties, 2)],
    })


SHARED_LEVELS = (16, 20, 40)


def unmodelled(schema: ParsedSchema) -> ParsedSchema:
    """The same schema under a new native object, which no checker cache has seen."""
    return ParsedSchema(schema.schema_type, schema.canonical, replace(schema.native))


def main() -> None:
    formats = {
        "JSON": (JsonSchemaFormat(), json_object(PROPERTIES), json_object(PROPERTIES, widened=True)),
        "AVRO": (AvroFormat(), record(PROPERTIES), record(PROPERTIES, promoted=True)),
    }
    print(f"{PROPERTIES} properties/fields        JSON us    AVRO us")
    rows: dict[str, dict[str, float]] = {}
    for name, (fmt, writer_text, reader_text) in formats.items():
        writer, reader = fmt.parse(writer_text, {}), fmt.parse(reader_text, {})
        assert fmt.can_read(reader, writer) == [], name
        rows.setdefault("parse (new schema)", {})[name] = per_call(lambda: fmt.parse(reader_text, {}), 300)
        rows.setdefault("check identical pair", {})[name] = per_call(lambda: fmt.can_read(writer, writer), 300)
        rows.setdefault("check widened pair", {})[name] = per_call(lambda: fmt.can_read(reader, writer), 300)
        rows.setdefault("first check, widened pair", {})[name] = per_call(
            lambda: fmt.can_read(unmodelled(reader), unmodelled(writer)), 300
        )
    # A registration parses the candidate and checks it before any model of it exists.
    rows["parse + first check"] = {
        name: rows["parse (new schema)"][name] + rows["first check, widened pair"][name] for name in formats
    }
    for label, figures in rows.items():
        print(f"{label:28s} {figures['JSON']:9.1f} {figures['AVRO']:10.1f}")
    fmt = JsonSchemaFormat()
    for levels in SHARED_LEVELS:
        writer = fmt.parse(json.dumps(shared_definitions(levels, "string")), {})
        reader = fmt.parse(json.dumps(shared_definitions(levels, "integer")), {})
        first = per_call(lambda: fmt.can_read(unmodelled(reader), unmodelled(writer)), 50)
        print(f"shared defs, 2^{levels} paths: first check {first:9.1f} us")


if __name__ == "__main__":
    main()
