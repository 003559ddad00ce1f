"""The structural diff, table-driven per format: each case names the rows it expects (change,
path, attributes changed) and both verdicts, which come from the format's own `can_read`.
"Backward" means the new version reads data written with the old one; "forward" the reverse.
"""
from __future__ import annotations

import json
from typing import Any, NamedTuple

import pytest

from app.core.errors import InvalidSchema
from app.core.outline_index import outline_rows
from app.core.browse.structural_diff import ADDED, CHANGED, REMOVED, LocationIndex, structural_diff
from app.formats import FORMATS, work_budget
from support.shared_types import avro_shared_chain, avro_wide_record


def avro(*fields: dict[str, Any], name: str = "Order") -> str:
    return json.dumps({"type": "record", "name": name, "namespace": "com.acme", "fields": list(fields)})


def json_schema(properties: dict[str, Any], required: tuple[str, ...] = (), closed: bool = True) -> str:
    document: dict[str, Any] = {"type": "object", "properties": properties}
    if required:
        document["required"] = list(required)
    if closed:
        document["additionalProperties"] = False
    return json.dumps(document)


def proto(body: str) -> str:
    return f'syntax = "proto3";\npackage acme;\nmessage Order {{\n{body}\n}}\n'


ADDRESS = {"type": "record", "name": "Address", "fields": [{"name": "city", "type": "string"}]}
ADDRESS_INT_CITY = {"type": "record", "name": "Address", "fields": [{"name": "city", "type": "int"}]}
COLOR = {"type": "enum", "name": "Color", "symbols": ["RED", "GREEN"]}
COLOR_MORE = {"type": "enum", "name": "Color", "symbols": ["RED", "GREEN", "BLUE"]}


class Case(NamedTuple):
    schema_type: str
    old: str
    new: str
    rows: set[tuple[str, str, tuple[str, ...]]]  # (change, path, changed attributes)
    backward: bool
    forward: bool
    # (direction, path) of reasons expected on the row at that path
    reasons_on: set[tuple[str, str]] = set()


CASES = {
    "avro field added with default": Case(
        "AVRO",
        avro({"name": "id", "type": "long"}),
        avro({"name": "id", "type": "long"}, {"name": "note", "type": "string", "default": ""}),
        {(ADDED, "note", ())}, backward=True, forward=True,
    ),
    "avro field added without default": Case(
        "AVRO",
        avro({"name": "id", "type": "long"}),
        avro({"name": "id", "type": "long"}, {"name": "amount", "type": "int"}),
        {(ADDED, "amount", ())}, backward=False, forward=True, reasons_on={("backward", "amount")},
    ),
    "avro field removed": Case(
        "AVRO",
        avro({"name": "id", "type": "long"}, {"name": "amount", "type": "int"}),
        avro({"name": "id", "type": "long"}),
        {(REMOVED, "amount", ())}, backward=True, forward=False, reasons_on={("forward", "amount")},
    ),
    "avro type promotion": Case(
        "AVRO",
        avro({"name": "amount", "type": "int"}),
        avro({"name": "amount", "type": "long"}),
        {(CHANGED, "amount", ("type",))}, backward=True, forward=False, reasons_on={("forward", "amount")},
    ),
    "avro enum symbol added": Case(
        "AVRO",
        avro({"name": "color", "type": COLOR}),
        avro({"name": "color", "type": COLOR_MORE}),
        {(CHANGED, "color", ("symbols",))}, backward=True, forward=False, reasons_on={("forward", "color")},
    ),
    "avro union branch added": Case(
        "AVRO",
        avro({"name": "note", "type": ["null", "string"], "default": None}),
        avro({"name": "note", "type": ["null", "string", "int"], "default": None}),
        {(CHANGED, "note", ("type",))}, backward=True, forward=False, reasons_on={("forward", "note")},
    ),
    "avro nested record field changed": Case(
        "AVRO",
        avro({"name": "address", "type": ADDRESS}),
        avro({"name": "address", "type": ADDRESS_INT_CITY}),
        {(CHANGED, "address.city", ("type",))}, backward=False, forward=False,
        reasons_on={("backward", "address.city"), ("forward", "address.city")},
    ),
    "avro rename by alias": Case(
        "AVRO",
        avro({"name": "amount", "type": "int"}),
        avro({"name": "total", "type": "int", "aliases": ["amount"]}),
        {(CHANGED, "total", ("name", "aliases"))}, backward=True, forward=False, reasons_on={("forward", "total")},
    ),
    "avro default and doc changed": Case(
        "AVRO",
        avro({"name": "note", "type": "string", "default": "a", "doc": "old"}),
        avro({"name": "note", "type": "string", "default": "b", "doc": "new"}),
        {(CHANGED, "note", ("default", "doc"))}, backward=True, forward=True,
    ),
    "json property added to a closed object": Case(
        "JSON",
        json_schema({"id": {"type": "integer"}}),
        json_schema({"id": {"type": "integer"}, "note": {"type": "string"}}),
        {(ADDED, "note", ())}, backward=True, forward=False, reasons_on={("forward", "note")},
    ),
    "json property removed from a closed object": Case(
        "JSON",
        json_schema({"id": {"type": "integer"}, "note": {"type": "string"}}),
        json_schema({"id": {"type": "integer"}}),
        {(REMOVED, "note", ())}, backward=False, forward=True, reasons_on={("backward", "note")},
    ),
    "json property made required": Case(
        "JSON",
        json_schema({"id": {"type": "integer"}}),
        json_schema({"id": {"type": "integer"}}, required=("id",)),
        {(CHANGED, "id", ("required",))}, backward=False, forward=True, reasons_on={("backward", "id")},
    ),
    "json nested property type and constraint changed": Case(
        "JSON",
        json_schema({"address": {"type": "object", "properties": {"zip": {"type": "string", "maxLength": 5}}}}),
        json_schema({"address": {"type": "object", "properties": {"zip": {"type": "string", "maxLength": 10}}}}),
        {(CHANGED, "address.zip", ("maxLength",))}, backward=True, forward=False,
        reasons_on={("forward", "address.zip")},
    ),
    "protobuf field renamed keeps its number": Case(
        "PROTOBUF",
        proto("  string note = 1;"),
        proto("  string remark = 1;"),
        {(CHANGED, "Order.remark", ("name",))}, backward=True, forward=True,
    ),
    "protobuf field added": Case(
        "PROTOBUF",
        proto("  string note = 1;"),
        proto("  string note = 1;\n  int64 amount = 2;"),
        {(ADDED, "Order.amount", ())}, backward=True, forward=True,
    ),
    "protobuf scalar kind changed": Case(
        "PROTOBUF",
        proto("  string note = 1;"),
        proto("  int64 note = 1;"),
        {(CHANGED, "Order.note", ("type",))}, backward=False, forward=False,
        reasons_on={("backward", "Order.note"), ("forward", "Order.note")},
    ),
    "protobuf field moved into a oneof": Case(
        "PROTOBUF",
        proto("  string a = 1;\n  string b = 2;"),
        proto("  oneof choice {\n    string a = 1;\n    string b = 2;\n  }"),
        {(CHANGED, "Order.a", ("oneof",)), (CHANGED, "Order.b", ("oneof",)), (ADDED, "Order.choice", ())},
        backward=False, forward=True, reasons_on={("backward", "Order.choice")},
    ),
    "protobuf proto2 default changed": Case(
        "PROTOBUF",
        'syntax = "proto2";\npackage acme;\nmessage Order {\n  optional int32 qty = 1 [default = 1];\n}\n',
        'syntax = "proto2";\npackage acme;\nmessage Order {\n  optional int32 qty = 1 [default = 2];\n}\n',
        {(CHANGED, "Order.qty", ("default",))}, backward=True, forward=True,
    ),
    "json property of an allOf member changed": Case(
        "JSON",
        json.dumps({"allOf": [{"$ref": "#/definitions/Base"}, {"properties": {"zip": {"type": "string"}}}],
                    "definitions": {"Base": {"type": "object"}}}),
        json.dumps({"allOf": [{"$ref": "#/definitions/Base"}, {"properties": {"zip": {"type": "integer"}}}],
                    "definitions": {"Base": {"type": "object"}}}),
        {(CHANGED, "allOf[1].zip", ("type",))}, backward=False, forward=False,
        reasons_on={("backward", "allOf[1].zip"), ("forward", "allOf[1].zip")},
    ),
    "json oneOf member added": Case(
        "JSON",
        json.dumps({"properties": {"pay": {"oneOf": [{"type": "string"}]}}}),
        json.dumps({"properties": {"pay": {"oneOf": [{"type": "string"}, {"type": "integer"}]}}}),
        {(CHANGED, "pay", ("type",)), (ADDED, "pay.oneOf[1]", ())}, backward=True, forward=False,
        reasons_on={("forward", "pay")},
    ),
    "json dependency added": Case(
        "JSON",
        json.dumps({"properties": {"card": {"type": "string"}, "cvv": {"type": "string"}}}),
        json.dumps({"properties": {"card": {"type": "string"}, "cvv": {"type": "string"}},
                    "dependencies": {"card": ["cvv"]}}),
        {(ADDED, "dependencies.card", ())}, backward=False, forward=True,
        reasons_on={("backward", "dependencies.card")},
    ),
    "json tuple position type changed": Case(
        "JSON",
        json.dumps({"type": "array", "items": [{"type": "string"}, {"type": "number"}], "additionalItems": False}),
        json.dumps({"type": "array", "items": [{"type": "string"}, {"type": "string"}], "additionalItems": False}),
        {(CHANGED, "items[1]", ("type",))}, backward=False, forward=False,
        reasons_on={("backward", "items[1]"), ("forward", "items[1]")},
    ),
    "json additionalItems schema changed": Case(
        "JSON",
        json.dumps({"type": "array", "items": [{"type": "string"}], "additionalItems": {"type": "number"}}),
        json.dumps({"type": "array", "items": [{"type": "string"}], "additionalItems": {"type": "integer"}}),
        {(CHANGED, "additionalItems", ("type",))}, backward=False, forward=True,
        reasons_on={("backward", "additionalItems")},
    ),
    "json not schema changed": Case(
        "JSON",
        json.dumps({"not": {"type": "number"}}),
        json.dumps({"not": {"type": "integer"}}),
        {(CHANGED, "not", ("type",))}, backward=True, forward=False, reasons_on={("forward", "not")},
    ),
}


@pytest.mark.parametrize("case", CASES.values(), ids=CASES.keys())
def test_rows_and_verdicts(case: Case) -> None:
    fmt = FORMATS[case.schema_type]
    old, new = fmt.parse(case.old, {}), fmt.parse(case.new, {})

    found = structural_diff(FORMATS, old, new)

    assert {(r.change, r.path, tuple(c.attribute for c in r.changes)) for r in found.rows} == case.rows
    assert found.backward.ok is case.backward
    assert found.forward.ok is case.forward
    # The verdicts are can_read's, both ways.
    assert found.backward.ok is (not fmt.can_read(new, old))
    assert found.forward.ok is (not fmt.can_read(old, new))
    on_rows = {(reason.direction, row.path) for row in found.rows for reason in row.reasons}
    assert case.reasons_on <= on_rows
    # Every reason sits on a row, names the node it concerns ("" for the schema as a whole)
    # and carries the message Confluent gives.
    assert found.old_outline is not None and found.new_outline is not None
    paths = {n.path for root in (found.old_outline, found.new_outline) for n in root.walk()}
    placed = [reason for row in found.rows for reason in row.reasons]
    for reason in (*found.backward.reasons, *found.forward.reasons):
        assert reason.message.startswith("{errorType:")
        assert reason.path in paths
        assert reason in placed


def test_a_reason_names_the_nested_field_its_location_points_to() -> None:
    fmt = FORMATS["AVRO"]
    old = fmt.parse(avro({"name": "id", "type": "long"}, {"name": "address", "type": ADDRESS}), {})
    new = fmt.parse(avro({"name": "id", "type": "long"}, {"name": "address", "type": ADDRESS_INT_CITY}), {})

    found = structural_diff(FORMATS, old, new)

    (reason,) = found.backward.reasons
    assert reason.location == "/fields/1/type/fields/0/type"
    assert reason.path == "address.city"
    assert "reader type: INT not compatible with writer type: STRING" in reason.message


def test_a_nullable_record_keeps_its_fields_below_the_field() -> None:
    fmt = FORMATS["AVRO"]
    old = fmt.parse(avro({"name": "address", "type": ["null", ADDRESS], "default": None}), {})
    new = fmt.parse(avro({"name": "address", "type": ["null", ADDRESS_INT_CITY], "default": None}), {})

    found = structural_diff(FORMATS, old, new)

    (row,) = found.rows
    assert (row.change, row.path) == (CHANGED, "address.city")
    # Java checks a union read by a union branch by branch and reports the union itself
    # (MISSING_UNION_BRANCH at /fields/0/type): the reason names `address`, and sits on the
    # one changed row below it.
    assert {(r.type, r.path) for r in found.backward.reasons} == {("MISSING_UNION_BRANCH", "address")}
    assert {r.path for r in row.reasons} == {"address"}


def test_a_recursive_record_is_outlined_once() -> None:
    fmt = FORMATS["AVRO"]
    node = {"type": "record", "name": "Node", "fields": [
        {"name": "value", "type": "int"}, {"name": "next", "type": ["null", "Node"], "default": None},
    ]}
    parsed = fmt.parse(json.dumps(node), {})

    root = fmt.outline(parsed)

    assert [n.path for n in root.walk()] == ["", "value", "next"]
    assert root.children[1].type == "union<null, Node>"


def test_different_schema_types_have_no_structural_diff() -> None:
    old = FORMATS["AVRO"].parse(avro({"name": "id", "type": "long"}), {})
    new = FORMATS["JSON"].parse(json_schema({"id": {"type": "integer"}}), {})

    found = structural_diff(FORMATS, old, new)

    assert not found.comparable and found.rows == ()
    assert "different schema types (AVRO and JSON)" in (found.explanation or "")
    assert not found.backward.ok and not found.forward.ok
    assert found.backward.reasons[0].message == "Incompatible because of different schema type"


def test_identical_versions_have_no_rows() -> None:
    fmt = FORMATS["PROTOBUF"]
    text = proto("  string note = 1;\n  map<string, int32> counts = 2;")

    found = structural_diff(FORMATS, fmt.parse(text, {}), fmt.parse(text, {}))

    assert found.identical and found.backward.ok and found.forward.ok


def test_protobuf_outline_shows_numbers_labels_oneofs_and_maps() -> None:
    fmt = FORMATS["PROTOBUF"]
    text = proto("  repeated string tags = 1;\n  map<string, int64> counts = 2;\n"
                 "  oneof payment {\n    string card = 3;\n  }\n  enum Kind {\n    A = 0;\n    B = 1;\n  }")

    root = fmt.outline(fmt.parse(text, {}))

    by_path = {n.path: n for n in root.walk()}
    assert by_path["Order.tags"].detail == {"number": 1, "label": "repeated"}
    assert by_path["Order.counts"].type == "map<string, int64>"
    assert by_path["Order.card"].detail == {"number": 3, "oneof": "payment"}
    assert by_path["Order.Kind"].detail == {"symbols": ["A = 0", "B = 1"]}
    assert by_path["Order"].named == "acme.Order"


def test_json_schema_outline_shows_required_constraints_and_definitions() -> None:
    fmt = FORMATS["JSON"]
    document = {
        "type": "object", "required": ["id"],
        "properties": {
            "id": {"type": "integer", "minimum": 1, "description": "the <id>"},
            "kind": {"enum": ["a", "b"], "default": "a"},
            "home": {"$ref": "#/definitions/Address"},
        },
        "definitions": {"Address": {"type": "object", "properties": {"city": {"type": "string"}}}},
    }

    root = fmt.outline(fmt.parse(json.dumps(document), {}))

    by_path = {n.path: n for n in root.walk()}
    assert by_path["id"].detail == {"required": True, "minimum": 1}
    assert by_path["id"].doc == "the <id>"
    assert by_path["kind"].detail == {"enum": ["a", "b"]} and by_path["kind"].default == '"a"'
    assert by_path["home"].type == "Address"
    assert by_path["definitions.Address.city"].type == "string"
    assert by_path["definitions.Address"].named == "Address"


def test_locations_resolve_to_the_longest_matching_node() -> None:
    fmt = FORMATS["JSON"]
    root = fmt.outline(fmt.parse(json_schema({"a": {"type": "object", "properties": {"b": {"type": "string"}}}}), {}))

    index = LocationIndex([root])
    assert index.resolve("#/properties/a/properties/b/type").path == "a.b"  # type: ignore[union-attr]
    assert index.resolve("#/required/a").path == "a"  # type: ignore[union-attr]
    assert index.resolve("#/properties/ab") is None  # a prefix only on a segment boundary


def test_a_reason_whose_node_shows_no_change_gets_a_row_of_its_own() -> None:
    # Which members of a oneOf pair up is not in the outline: the reason at `#/` (the root,
    # unchanged) has two changed rows below it, so it gets the root's own row.
    fmt = FORMATS["JSON"]
    member = {"type": "object", "properties": {"a": {"type": "string"}, "b": {"type": "string"}},
              "additionalProperties": False}
    changed = {**member, "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}}}
    old = fmt.parse(json.dumps({"oneOf": [{"type": "string"}, member]}), {})
    new = fmt.parse(json.dumps({"oneOf": [{"type": "string"}, changed]}), {})

    found = structural_diff(FORMATS, old, new)

    root = next(row for row in found.rows if row.path == "")
    assert (root.change, root.changes) == (CHANGED, ())
    assert {(r.direction, r.type) for r in root.reasons} == {
        ("backward", "COMBINED_TYPE_SUBSCHEMAS_CHANGED"), ("forward", "COMBINED_TYPE_SUBSCHEMAS_CHANGED")}
    assert {(r.change, r.path) for r in found.rows} == {
        (CHANGED, ""), (CHANGED, "oneOf[1].a"), (CHANGED, "oneOf[1].b")}


def test_json_schema_outline_expands_combinations_and_other_subschemas() -> None:
    fmt = FORMATS["JSON"]
    document = {
        "type": "object",
        "properties": {
            "pay": {"anyOf": [{"type": "object", "properties": {"iban": {"type": "string", "description": "d"}}},
                              {"type": "null"}]},
            "point": {"type": "array", "items": [{"type": "number"}, {"type": "number"}],
                      "additionalItems": {"type": "string"}},
        },
        "allOf": [{"properties": {"id": {"type": "integer"}}, "required": ["id"]}],
        "oneOf": [{"required": ["a"]}, {"required": ["b"]}],
        "not": {"properties": {"legacy": {"const": True}}},
        "dependencies": {"card": ["cvv"], "vip": {"properties": {"tier": {"type": "integer"}}}},
        "additionalProperties": {"type": "string"},
    }

    root = fmt.outline(fmt.parse(json.dumps(document), {}))

    by_path = {n.path: n for n in root.walk()}
    assert by_path["pay.anyOf[0].iban"].type == "string" and by_path["pay.anyOf[0].iban"].doc == "d"
    assert by_path["pay.anyOf[0].iban"].locations[0] == "#/properties/pay/anyOf/0/properties/iban"
    assert by_path["pay.anyOf[1]"].type == "null"
    assert [by_path[f"point.items[{i}]"].locations for i in (0, 1)] == [
        ("#/properties/point/items/0",), ("#/properties/point/items/1",)]
    assert by_path["point.additionalItems"].type == "string"
    assert by_path["allOf[0].id"].detail == {"required": True}
    assert {"oneOf[0]", "oneOf[1]", "not", "not.legacy", "additionalProperties"} <= set(by_path)
    assert by_path["dependencies.card"].detail == {"requires": ["cvv"]}
    assert by_path["dependencies.vip.tier"].locations[0] == "#/dependencies/vip/properties/tier"
    # Properties below combinations are fields: the search index finds them.
    fields = {row.path for row in outline_rows(root) if row.kind == "field"}
    assert {"pay.anyOf[0].iban", "allOf[0].id", "not.legacy", "dependencies.vip.tier"} <= fields
    assert "oneOf[0]" not in fields  # a member is not a field


def test_json_schema_2020_12_prefix_items_and_items_beside_them() -> None:
    fmt = FORMATS["JSON"]
    document = {"$schema": "https://json-schema.org/draft/2020-12/schema", "type": "array",
                "prefixItems": [{"type": "string"}], "items": {"type": "integer"}}

    root = fmt.outline(fmt.parse(json.dumps(document), {}))

    by_path = {n.path: n for n in root.walk()}
    # Confluent reports positions as #/items/N and `items` beside `prefixItems` as #/additionalItems.
    assert by_path["prefixItems[0]"].locations == ("#/items/0",)
    assert by_path["items"].locations == ("#/additionalItems",) and by_path["items"].type == "integer"


def test_protobuf_outline_shows_proto2_defaults_oneofs_and_imported_types() -> None:
    fmt = FORMATS["PROTOBUF"]
    text = ('syntax = "proto2";\npackage acme;\nimport "google/protobuf/timestamp.proto";\n'
            'message Order {\n  optional string note = 1 [default = "<b>\\"hi\\""];\n'
            '  optional Kind kind = 2 [default = B];\n  optional google.protobuf.Timestamp at = 3;\n'
            '  oneof pay {\n    string card = 4;\n    int64 cash = 5;\n  }\n'
            '  enum Kind {\n    A = 0;\n    B = 1;\n  }\n}\n')

    root = fmt.outline(fmt.parse(text, {}))

    by_path = {n.path: n for n in root.walk()}
    assert by_path["Order.note"].default == '"<b>\\"hi\\""'
    assert by_path["Order.kind"].default == "B" and by_path["Order.kind"].type == "Order.Kind"
    assert by_path["Order.at"].type == "google.protobuf.Timestamp"
    assert by_path["Order.at"].detail["import"] == "google/protobuf/timestamp.proto"
    assert by_path["Order.pay"].detail == {"fields": ["card = 4", "cash = 5"]}
    assert by_path["Order.pay"].locations == ("#/Order/pay",)


def test_protobuf_comments_are_not_part_of_the_outline() -> None:
    # The registry stores the formatted text without comments (as Confluent does), so a
    # commented text and its stored form must diff as identical.
    fmt = FORMATS["PROTOBUF"]
    commented = fmt.parse(proto("  // The note.\n  string note = 1; // trailing"), {})
    stored = fmt.parse(commented.canonical, {})
    assert "//" not in stored.canonical

    found = structural_diff(FORMATS, stored, commented)

    assert found.identical


def test_a_type_shared_on_forty_levels_is_one_row_with_one_reason_each_way() -> None:
    fmt = FORMATS["AVRO"]
    old, new = (fmt.parse(json.dumps(avro_shared_chain(40, leaf)), {}) for leaf in ("string", "int"))

    found = structural_diff(FORMATS, old, new)

    assert [(r.change, r.path) for r in found.rows] == [(CHANGED, "a." * 40 + "v")]
    assert [r.direction for r in found.rows[0].reasons] == ["backward", "forward"]
    assert len(found.backward.reasons) == len(found.forward.reasons) == 1
    # and a wide change files each of its 2 x 300 reasons on its own field's row
    wide_old, wide_new = (fmt.parse(json.dumps(avro_wide_record(300, t)), {}) for t in ("string", "int"))
    rows = structural_diff(FORMATS, wide_old, wide_new).rows
    assert [(r.path, len(r.reasons)) for r in rows] == [(f"f{i}", 2) for i in range(300)]


def test_a_diff_past_the_request_budget_is_a_42201() -> None:
    fmt = FORMATS["AVRO"]
    old, new = (fmt.parse(json.dumps(avro_wide_record(300, t)), {}) for t in ("string", "int"))

    with work_budget.limited(1e-9), pytest.raises(InvalidSchema, match="took longer than the registry allows"):
        structural_diff(FORMATS, old, new)


@pytest.mark.parametrize("schema_type, old, new", [
    ("AVRO", avro({"name": "id", "type": "long"}), avro({"name": "id", "type": "string"})),
    ("JSON", json_schema({"id": {"type": "integer"}}), json_schema({"id": {"type": "string"}})),
    ("PROTOBUF", proto("int64 id = 1;"), proto("string id = 1;")),
], ids=["avro", "json", "protobuf"])
def test_a_reason_carries_confluents_entry_and_its_sentence_for_people(schema_type: str, old: str, new: str) -> None:
    fmt = FORMATS[schema_type]

    found = structural_diff(FORMATS, fmt.parse(old, {}), fmt.parse(new, {}))

    reason = found.backward.reasons[0]
    assert reason.message.startswith("{errorType:")  # Confluent's entry, as the REST API answers
    assert not reason.description.startswith("{") and "errorType" not in reason.description
    assert "new schema" in reason.description  # labelled as registration labels the sides
    assert reason.description.split(":")[0] in reason.message
