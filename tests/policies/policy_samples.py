"""Avro documents the rule tests share, written as a client might send them (primitives
as objects, nested definitions, unions, containers of records, recursion)."""
from __future__ import annotations

import json
from typing import Any

ADDRESS = {"type": "record", "name": "Address", "doc": "At", "fields": [
    {"name": "city", "type": {"type": "string"}, "doc": "City"},
    {"name": "Zip", "type": "string"},
]}
ORDER: dict[str, Any] = {
    "type": "record", "name": "Order", "namespace": "com.acme.orders", "doc": "An order", "fields": [
        {"name": "id", "type": "long", "doc": "Key"},
        {"name": "amount", "type": {"type": "bytes", "logicalType": "decimal", "precision": 9, "scale": 2}},
        {"name": "ship_to", "type": ["null", ADDRESS], "default": None, "doc": "Destination"},
        {"name": "lines", "type": {"type": "array", "items": {"type": "record", "name": "Line", "fields": [
            {"name": "sku", "type": "string", "doc": "Stock unit"},
            {"name": "next", "type": ["null", "Line"], "doc": "Linked list"},
        ]}}, "doc": "Lines"},
        {"name": "tags", "type": {"type": "map", "values": {"type": "enum", "name": "Tag", "symbols": ["GIFT", "rush"]}},
         "doc": "Tags"},
        {"name": "created", "type": {"type": "long", "logicalType": "timestamp-millis"}, "doc": "When"},
        {"name": "price", "type": "float", "doc": "Price"},
        {"name": "digest", "type": {"type": "fixed", "name": "Md5", "size": 16}, "doc": "Digest"},
    ],
}


def text(document: Any) -> str:
    return json.dumps(document)


def with_fields(*fields: dict[str, Any], **top: Any) -> str:
    document = {"type": "record", "name": "R", "namespace": "com.acme", "doc": "d", "fields": list(fields)}
    document.update(top)
    return text(document)


def wide_record(count: int) -> str:
    """A documented, well-named record of `count` fields of mixed kinds (the bench's input)."""
    kinds: list[Any] = ["long", "string", ["null", "string"], {"type": "long", "logicalType": "timestamp-millis"},
                        {"type": "array", "items": "string"}, "double"]
    fields = [{"name": f"field_{i}", "type": kinds[i % len(kinds)], "doc": f"Field {i}"} for i in range(count)]
    return text({"type": "record", "name": "Wide", "namespace": "com.acme.bench", "doc": "Wide", "fields": fields})


STRICT_SET = {"rules": [
    {"rule": "doc-required", "params": {"on": ["record", "field"]}},
    {"rule": "name-pattern", "params": {"field": "snake_case"}},
    {"rule": "forbidden-types", "severity": "warning", "params": {"types": ["float"]}},
]}
# Field 1 has no doc and field 3 is not snake_case: two errors; the float is a warning.
NON_COMPLIANT = with_fields(
    {"name": "id", "type": "long", "doc": "Key"},
    {"name": "amount", "type": "int"},
    {"name": "price", "type": "float", "doc": "Price"},
    {"name": "Amount", "type": "int", "doc": "Upper"},
)
COMPLIANT = with_fields({"name": "id", "type": "long", "doc": "Key"}, {"name": "price", "type": "float", "doc": "P"})
