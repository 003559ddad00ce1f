"""Schemas and records shared by the pipeline tests: one subject evolving over three versions
(seed 004's rolling upgrade), and a schema with every logical type and union shape."""
from __future__ import annotations

import json

EVENT_V1 = json.dumps({"type": "record", "name": "Event", "namespace": "shop", "fields": [
    {"name": "id", "type": "long"},
    {"name": "name", "type": "string"},
]})
EVENT_V2 = json.dumps({"type": "record", "name": "Event", "namespace": "shop", "fields": [
    {"name": "id", "type": "long"},
    {"name": "name", "type": "string"},
    {"name": "email", "type": ["null", "string"], "default": None},
    {"name": "score", "type": "double", "default": 1.5},
]})
EVENT_V3 = json.dumps({"type": "record", "name": "Event", "namespace": "shop", "fields": [
    {"name": "id", "type": "long"},
    {"name": "name", "type": "string"},
    {"name": "email", "type": ["null", "string"], "default": None},
    {"name": "score", "type": "double", "default": 1.5},
    {"name": "tags", "type": {"type": "array", "items": "string"}, "default": []},
]})


def event(version: int, n: int) -> dict:
    record = {"id": n, "name": f"user-{n}"}
    if version >= 2:
        record.update(email=None if n % 3 == 0 else f"u{n}@example.com", score=n / 4)
    if version >= 3:
        record["tags"] = [f"t{n % 5}"] * (n % 3)
    return record


EVERYTHING = json.dumps({"type": "record", "name": "Everything", "namespace": "t", "fields": [
    {"name": "flag", "type": "boolean"},
    {"name": "small", "type": "int"},
    {"name": "big", "type": "long"},
    {"name": "ratio", "type": "float"},
    {"name": "precise", "type": "double"},
    {"name": "text", "type": "string"},
    {"name": "blob", "type": "bytes"},
    {"name": "digest", "type": {"type": "fixed", "name": "Digest", "size": 4}},
    {"name": "colour", "type": {"type": "enum", "name": "Colour", "symbols": ["RED", "GREEN"]}},
    {"name": "items", "type": {"type": "array", "items": "int"}},
    {"name": "attrs", "type": {"type": "map", "values": ["null", "long"]}},
    {"name": "inner", "type": {"type": "record", "name": "Inner", "fields": [{"name": "x", "type": "int"}]}},
    {"name": "maybe", "type": ["null", "string"]},
    {"name": "either", "type": ["null", "int", "string"]},
    {"name": "day", "type": {"type": "int", "logicalType": "date"}},
    {"name": "at_ms", "type": {"type": "long", "logicalType": "timestamp-millis"}},
    {"name": "at_us", "type": {"type": "long", "logicalType": "timestamp-micros"}},
    {"name": "local_ms", "type": {"type": "long", "logicalType": "local-timestamp-millis"}},
    {"name": "local_us", "type": {"type": "long", "logicalType": "local-timestamp-micros"}},
    {"name": "amount", "type": {"type": "bytes", "logicalType": "decimal", "precision": 10, "scale": 2}},
    {"name": "fixed_amount", "type": {"type": "fixed", "name": "Amt", "size": 8, "logicalType": "decimal",
                                      "precision": 12, "scale": 3}},
    {"name": "uid", "type": {"type": "string", "logicalType": "uuid"}},
    {"name": "clock_ms", "type": {"type": "int", "logicalType": "time-millis"}},
    {"name": "clock_us", "type": {"type": "long", "logicalType": "time-micros"}},
    {"name": "again", "type": "Inner"},
]})
