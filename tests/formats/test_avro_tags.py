"""Editing inline `confluent:tags` in Avro schemas (`AvroFormat.modify_tags`, app/formats/avro/tags.py).

Expected texts are the canonical (Java writer) texts; where a tag property is new it comes
after the entity's other properties, as Jackson's `ObjectNode.replace` appends it.
"""
from __future__ import annotations

import json
from typing import Any

import pytest

from app.formats.avro import AvroFormat
from app.formats.base import EntityTags, SchemaParseError, SchemaTagEditor

AVRO = AvroFormat()
TAGS = "confluent:tags"


def rec(name: str, fields: list[dict[str, Any]], **extra: Any) -> dict[str, Any]:
    return {"type": "record", "name": name, "fields": fields, **extra}


def fld(name: str, type_: Any, **extra: Any) -> dict[str, Any]:
    return {"name": name, "type": type_, **extra}


def record_tags(*tags: str, path: str = "n.Order") -> EntityTags:
    return EntityTags(path, "sr_record", tags)


def field_tags(path: str, *tags: str) -> EntityTags:
    return EntityTags(path, "sr_field", tags)


ADDRESS = rec("Address", [fld("street", "string"), fld("zip", "string")])
ORDER = rec("Order", [fld("id", "long"), fld("address", ADDRESS)], namespace="n")
FOREIGN = rec("Order", [fld("id", "long"), fld("item", rec("Item", [fld("sku", "string")], namespace="other"))],
              namespace="n")
CONTAINERS = rec("Order", [
    fld("maybe", ["null", rec("A", [fld("a", "int")])]),
    fld("list", {"type": "array", "items": rec("B", [fld("b", "int")])}),
    fld("dict", {"type": "map", "values": rec("C", [fld("c", "int")])}),
], namespace="n")
TWICE = rec("Order", [fld("home", ADDRESS), fld("work", "n.Address")], namespace="n")
TAGGED = rec("Order", [fld("id", "long", **{TAGS: ["PII"], "x": 1})], namespace="n", **{TAGS: ["A", "B"]})


def edited(schema: dict[str, Any], add: list[EntityTags], remove: list[EntityTags] = ()) -> dict[str, Any]:
    parsed = AVRO.parse(json.dumps(schema), {})
    return json.loads(AVRO.modify_tags(parsed, add, list(remove)).canonical)


def at(document: dict[str, Any], *steps: Any) -> dict[str, Any]:
    """Follow steps from the root: an int indexes a record's fields (or a union's branches),
    a string is a key."""
    node: Any = document
    for step in steps:
        if isinstance(step, int):
            node = node[step] if isinstance(node, list) else node["fields"][step]
        else:
            node = node[step]
    return node


# (name, schema, add, remove, steps to the entity, expected tags or None for "no property")
EDITS = [
    ("record_tag_on_the_root", ORDER, [record_tags("PII")], [], (), ["PII"]),
    ("field_tag", ORDER, [field_tags("n.Order.id", "PII")], [], (0,), ["PII"]),
    ("nested_record_by_its_full_name", ORDER, [record_tags("GEO", path="n.Address")], [], (1, "type"), ["GEO"]),
    ("nested_record_field", ORDER, [field_tags("n.Address.zip", "PII")], [], (1, "type", 1), ["PII"]),
    ("record_in_another_namespace", FOREIGN, [field_tags("other.Item.sku", "SKU")], [], (1, "type", 0), ["SKU"]),
    ("namespace_less_path_matches_any_namespace", FOREIGN, [field_tags("Item.sku", "SKU")], [], (1, "type", 0), ["SKU"]),
    ("leading_dot_is_ignored", ORDER, [field_tags(".n.Order.id", "PII")], [], (0,), ["PII"]),
    ("record_inside_a_union", CONTAINERS, [field_tags("n.A.a", "T")], [], (0, "type", 1, 0), ["T"]),
    ("record_inside_an_array", CONTAINERS, [field_tags("n.B.b", "T")], [], (1, "type", "items", 0), ["T"]),
    ("record_inside_a_map", CONTAINERS, [field_tags("n.C.c", "T")], [], (2, "type", "values", 0), ["T"]),
    ("added_tags_follow_existing_ones_once", TAGGED, [record_tags("C", "A")], [], (), ["A", "B", "C"]),
    ("repeated_entities_are_united", ORDER, [record_tags("A"), record_tags("B", "A")], [], (), ["A", "B"]),
    ("remove_a_tag", TAGGED, [], [record_tags("A")], (), ["B"]),
    ("removing_the_last_tag_drops_the_property", TAGGED, [], [field_tags("n.Order.id", "PII")], (0,), None),
    ("removing_an_absent_tag_changes_nothing", TAGGED, [], [record_tags("Z")], (), ["A", "B"]),
    ("adding_happens_before_removing", ORDER, [record_tags("A", "B")], [record_tags("B")], (), ["A"]),
    ("empty_tag_lists_leave_an_untagged_entity_alone", ORDER, [record_tags()], [], (), None),
    ("a_named_type_used_twice_is_tagged_where_defined", TWICE, [field_tags("n.Address.zip", "PII")], [],
     (0, "type", 1), ["PII"]),
]


@pytest.mark.parametrize("schema, add, remove, steps, expected", [case[1:] for case in EDITS],
                         ids=[case[0] for case in EDITS])
def test_tag_edits(schema: dict[str, Any], add: list[EntityTags], remove: list[EntityTags],
                   steps: tuple[Any, ...], expected: list[str] | None) -> None:
    assert at(edited(schema, add, remove), *steps).get(TAGS) == expected


def test_only_the_named_entity_changes() -> None:
    result = edited(ORDER, [field_tags("n.Address.zip", "PII")])
    at(result, 1, "type", 1).pop(TAGS)
    assert result == json.loads(AVRO.parse(json.dumps(ORDER), {}).canonical)


def test_new_tag_property_comes_after_other_properties_and_an_existing_one_keeps_its_place() -> None:
    schema = rec("R", [fld("a", "int", x=1, **{TAGS: ["OLD"]}, y=2)], z=3)
    text = AVRO.modify_tags(AVRO.parse(json.dumps(schema), {}),
                            [field_tags("R.a", "NEW"), record_tags("T", path="R")], []).canonical
    assert text == ('{"type":"record","name":"R","fields":[{"name":"a","type":"int","x":1,'
                    '"confluent:tags":["OLD","NEW"],"y":2}],"z":3,"confluent:tags":["T"]}')


def test_the_given_parsed_schema_is_not_modified() -> None:
    parsed = AVRO.parse(json.dumps(ORDER), {})
    before = parsed.canonical
    AVRO.modify_tags(parsed, [record_tags("PII"), field_tags("n.Address.zip", "PII")], [])
    assert parsed.native.schema.props == {}
    assert AVRO.formatted(parsed, "resolved") == before


def test_avro_is_a_tag_editor() -> None:
    assert isinstance(AVRO, SchemaTagEditor)


def test_referenced_types_keep_being_written_by_name() -> None:
    base = json.dumps(rec("Base", [fld("id", "long")], namespace="com.example"))
    parsed = AVRO.parse(json.dumps(rec("Outer", [fld("base", "com.example.Base")])), {"base.avsc": base})
    text = AVRO.modify_tags(parsed, [field_tags("Outer.base", "PII")], []).canonical
    assert json.loads(text)["fields"][0] == {"name": "base", "type": "com.example.Base", TAGS: ["PII"]}


# (name, schema, entity, message)
UNKNOWN = [
    ("unknown_record", ORDER, record_tags("T", path="n.Nope"), "No matching path 'n.Nope' found in the schema"),
    ("unknown_field", ORDER, field_tags("n.Order.nope", "T"), "No matching path 'n.Order.nope' found in the schema"),
    ("wrong_namespace", ORDER, field_tags("m.Order.id", "T"), "No matching path 'm.Order.id' found in the schema"),
    ("field_path_without_record", ORDER, field_tags("id", "T"), "No matching path 'id' found in the schema"),
    ("field_of_a_nested_record_by_field_chain", ORDER, field_tags("n.Order.address.zip", "T"),
     "No matching path 'n.Order.address.zip' found in the schema"),
    ("record_path_naming_a_field", ORDER, record_tags("T", path="n.Order.id"),
     "No matching path 'n.Order.id' found in the schema"),
    ("tag_property_that_is_not_an_array", rec("R", [fld("a", "int", **{TAGS: "PII"})]), field_tags("R.a", "T"),
     "The confluent:tags property of 'R.a' is not an array"),
]


@pytest.mark.parametrize("schema, entity, message", [case[1:] for case in UNKNOWN], ids=[case[0] for case in UNKNOWN])
def test_entities_that_cannot_be_edited_are_refused_with_confluents_message(
    schema: dict[str, Any], entity: EntityTags, message: str
) -> None:
    with pytest.raises(SchemaParseError) as raised:
        edited(schema, [entity])
    assert raised.value.message == message


def test_types_from_references_cannot_be_tagged_through_the_referrer() -> None:
    base = json.dumps(rec("Base", [fld("id", "long")], namespace="com.example"))
    parsed = AVRO.parse(json.dumps(rec("Outer", [fld("base", "com.example.Base")])), {"base.avsc": base})
    with pytest.raises(SchemaParseError):
        AVRO.modify_tags(parsed, [field_tags("com.example.Base.id", "PII")], [])
