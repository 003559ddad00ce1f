"""Each format declares its outline's nodes as its own language writes them (`Node.declaration`),
which the UI prints in its field trees and diffs; `type`, which diffs compare and the search
index stores, stays as it was."""
from __future__ import annotations

import json

from app.formats import FORMATS
from app.formats.base import Node


def declared(schema_type: str, text: str) -> dict[str, str]:
    """Path -> the node's declaration as a page reads it: before, name, after."""
    fmt = FORMATS[schema_type]
    root: Node = fmt.outline(fmt.parse(text, {}))
    out = {}
    for node in root.walk():
        d = node.declaration
        out[node.path] = " ".join(part for part in (d.before, node.name, d.after) if part)
    return out


def test_protobuf_fields_read_as_the_proto_text_declares_them() -> None:
    text = (
        'syntax = "proto3";\npackage shop;\nmessage Item {\n  int64 id = 1;\n  repeated string tags = 4;\n'
        "  map<string, int32> counts = 5;\n  optional string note = 9;\n"
        "  oneof payment {\n    string card = 6;\n    int64 cash = 7;\n  }\n"
        "  enum Kind {\n    UNKNOWN = 0;\n    BOOK = 1;\n  }\n  Kind kind = 8;\n  map<string, Kind> kinds = 10;\n"
        "  message Price {\n    Kind kind = 1;\n  }\n}\n"
    )

    found = declared("PROTOBUF", text)

    assert found["Item"] == "message Item"
    assert found["Item.id"] == "int64 id = 1"
    assert found["Item.tags"] == "repeated string tags = 4"
    assert found["Item.counts"] == "map<string, int32> counts = 5"
    assert found["Item.note"] == "optional string note = 9"
    assert found["Item.card"] == "string card = 6"
    assert found["Item.payment"] == "oneof payment { string card = 6; int64 cash = 7; }"
    assert found["Item.Kind"] == "enum Kind { UNKNOWN = 0; BOOK = 1; }"
    # a type nested in the field's message by its name there; from deeper, by its path
    assert found["Item.kind"] == "Kind kind = 8"
    assert found["Item.kinds"] == "map<string, Kind> kinds = 10"
    assert found["Item.Price.kind"] == "Item.Kind kind = 1"


def test_protobuf_declarations_spell_number_label_and_default_so_pages_do_not_repeat_them() -> None:
    text = 'syntax = "proto2";\nmessage Item {\n  optional int32 size = 1 [default = 7];\n}\n'
    fmt = FORMATS["PROTOBUF"]

    size = next(n for n in fmt.outline(fmt.parse(text, {})).walk() if n.name == "size")

    assert (size.declaration.before, size.declaration.after) == ("optional int32", "= 1 [default = 7]")
    assert {"type", "number", "label", "default"} <= set(size.declaration.spells)
    assert size.type == "int32" and size.detail["label"] == "optional"  # what diffs compare is unchanged


def test_avro_types_read_as_unions_arrays_maps_names_and_logical_types() -> None:
    text = json.dumps({"type": "record", "name": "User", "namespace": "com.acme", "fields": [
        {"name": "email", "type": ["null", "string"], "default": None},
        {"name": "tags", "type": {"type": "array", "items": "string"}},
        {"name": "scores", "type": {"type": "map", "values": "long"}},
        {"name": "created", "type": {"type": "long", "logicalType": "timestamp-millis"}},
        {"name": "balance", "type": {"type": "bytes", "logicalType": "decimal", "precision": 10, "scale": 2}},
        {"name": "home", "type": ["null", {"type": "record", "name": "Address", "fields": [
            {"name": "city", "type": "string"}]}]},
        {"name": "work", "type": "Address"},
    ]})

    found = declared("AVRO", text)

    assert found[""] == "record User"
    assert found["email"] == "email null | string"
    assert found["tags"] == "tags array<string>"
    assert found["scores"] == "scores map<long>"
    assert found["created"] == "created long (timestamp-millis)"
    assert found["balance"] == "balance bytes (decimal(10, 2))"
    assert found["home"] == "home null | Address"
    assert found["work"] == "work Address"


def test_json_schema_types_read_as_words() -> None:
    text = json.dumps({"type": "object", "properties": {
        "name": {"type": "string"},
        "tags": {"type": "array", "items": {"type": "string"}},
        "age": {"type": ["integer", "null"]},
        "grid": {"type": "array", "items": {"type": "array", "items": {"type": ["number", "null"]}}},
        "pay": {"oneOf": [{"type": "string"}, {"$ref": "#/$defs/Card"}]},
        "kind": {"enum": ["a", "b"]},
    }, "$defs": {"Card": {"type": "object"}}})

    found = declared("JSON", text)

    assert found["name"] == "name string"
    assert found["tags"] == "tags array of string"
    assert found["age"] == "age integer | null"
    assert found["grid"] == "grid array of (array of (number | null))"
    assert found["pay"] == "pay one of string, Card"
    assert found["kind"] == 'kind "a" | "b"'
