"""`$ref` in JSON Schemas: references to other subjects by their reference name,
local pointers and anchors, recursive schemas, and the refusal of a `$ref` that resolves to
nothing. `dependencies` are what the core hands `parse`: reference name -> schema text,
transitive ones included."""
from __future__ import annotations

import json

import pytest
from support.conformance import DATA

from app.formats.base import SchemaParseError
from app.formats.json_schema import JsonSchemaFormat

JSON_FORMAT = JsonSchemaFormat()
ADDRESS = json.dumps({"type": "object", "properties": {"city": {"type": "string"}},
                      "definitions": {"zip": {"type": "string", "pattern": "^[0-9]{5}$"}}})
DRAFT_2020 = "https://json-schema.org/draft/2020-12/schema"


def parse(schema: object, dependencies: dict[str, str] | None = None):
    return JSON_FORMAT.parse(json.dumps(schema), dependencies or {})


def refusal(schema: object, dependencies: dict[str, str] | None = None) -> str:
    with pytest.raises(SchemaParseError) as raised:
        parse(schema, dependencies)
    return raised.value.message


# (reference name, the $ref in the root, the root's $id)
BY_NAME = [
    ("address.json", "address.json", None),
    ("address.json", "./address.json", None),
    ("address.json", "address.json#/definitions/zip", None),
    ("schemas/address.json", "schemas/address.json", None),
    ("https://example.com/schemas/address.json", "https://example.com/schemas/address.json", None),
    ("https://example.com/schemas/address.json", "address.json", "https://example.com/schemas/order.json"),
    ("address.json", "address.json", "https://example.com/schemas/order.json"),
    ("address.json", "https://example.com/schemas/address.json#/properties/city",
     "https://example.com/schemas/order.json"),
]


@pytest.mark.parametrize("name, ref, root_id", BY_NAME)
def test_a_ref_finds_a_reference_by_its_name(name: str, ref: str, root_id: str | None) -> None:
    schema = {"type": "object", "properties": {"home": {"$ref": ref}}}
    if root_id:
        schema["$id"] = root_id
    native = parse(schema, {name: ADDRESS}).native
    found = native.registry.resolver(base_uri=native.base_uri).lookup(ref).contents
    assert found in (json.loads(ADDRESS), {"type": "string"}, json.loads(ADDRESS)["definitions"]["zip"])


def test_references_resolve_transitively_between_dependencies() -> None:
    customer = json.dumps({"type": "object", "properties": {"address": {"$ref": "address.json"}}})
    dependencies = {"address.json": ADDRESS, "customer.json": customer}
    native = parse({"properties": {"buyer": {"$ref": "customer.json"}}}, dependencies).native
    resolved = native.resolver().lookup("customer.json")
    inner = resolved.resolver.lookup(resolved.contents["properties"]["address"]["$ref"])
    assert inner.contents == json.loads(ADDRESS)


def test_a_dependency_with_its_own_id_is_found_by_it() -> None:
    address = json.dumps({"$id": "https://example.com/address", "type": "string"})
    native = parse({"$ref": "https://example.com/address"}, {"address.json": address}).native
    assert native.resolver().lookup("https://example.com/address").contents["type"] == "string"


@pytest.mark.parametrize("schema, detail", [
    ({"properties": {"home": {"$ref": "address.json"}}},
     "#/properties/home/$ref: cannot resolve $ref 'address.json' (a referenced schema must be listed in the "
     "references under that name)"),
    ({"items": [{"$ref": "https://example.com/other.json"}]},
     "#/items/0/$ref: cannot resolve $ref 'https://example.com/other.json' (a referenced schema must be listed "
     "in the references under that name)"),
    ({"properties": {"home": {"$ref": "#/definitions/missing"}}},
     "#/properties/home/$ref: cannot resolve $ref '#/definitions/missing' (no such location or anchor in the "
     "schema)"),
    ({"$schema": DRAFT_2020, "$defs": {"a": {"$ref": "#nowhere"}}},
     "#/$defs/a/$ref: cannot resolve $ref '#nowhere' (no such location or anchor in the schema)"),
])
def test_an_unresolvable_ref_is_refused_with_its_pointer(schema: dict, detail: str) -> None:
    assert refusal(schema) == "Invalid schema of type JSON, details: " + detail


def test_a_ref_into_a_reference_that_lacks_the_target_is_refused() -> None:
    message = refusal({"$ref": "address.json#/definitions/street"}, {"address.json": ADDRESS})
    assert message.endswith("cannot resolve $ref 'address.json#/definitions/street' (a referenced schema must be "
                            "listed in the references under that name)")


def test_a_stored_schema_with_an_unresolvable_ref_is_still_read() -> None:
    text = json.dumps({"properties": {"home": {"$ref": "address.json"}}})
    assert JSON_FORMAT.parse(text, {}, strict=False).canonical == text.replace(" ", "")


LOCAL = {
    "definitions": {"definitions": {"node": {"type": "string"}}, "$ref": "#/definitions/node"},
    "defs-2020-12": {"$schema": DRAFT_2020, "$defs": {"node": {"type": "string"}}, "$ref": "#/$defs/node"},
    "anchor-2019-09": {"$schema": "https://json-schema.org/draft/2019-09/schema",
                       "$defs": {"n": {"$anchor": "node", "type": "string"}}, "items": {"$ref": "#node"}},
    "anchor-2020-12": {"$schema": DRAFT_2020, "$defs": {"n": {"$anchor": "node"}}, "items": {"$ref": "#node"}},
    "plain-name-id-draft-7": {"definitions": {"n": {"$id": "#node", "type": "string"}}, "items": {"$ref": "#node"}},
    "recursive-root": {"type": "object", "properties": {"children": {"type": "array", "items": {"$ref": "#"}}}},
    "recursive-definition": {"definitions": {"tree": {"type": "object", "properties": {
        "left": {"$ref": "#/definitions/tree"}, "right": {"$ref": "#/definitions/tree"}}}},
        "$ref": "#/definitions/tree"},
    "escaped-pointer": {"definitions": {"a/b": {"type": "string"}, "c~d": {"type": "number"}},
                        "anyOf": [{"$ref": "#/definitions/a~1b"}, {"$ref": "#/definitions/c~0d"}]},
    "nested-id": {"$id": "https://example.com/root.json", "definitions": {
        "inner": {"$id": "inner.json", "definitions": {"x": {"type": "string"}},
                  "properties": {"y": {"$ref": "#/definitions/x"}}}},
        "properties": {"a": {"$ref": "inner.json"}}},
    "dynamic-2020-12": {"$schema": DRAFT_2020, "$dynamicAnchor": "node", "type": "object",
                        "properties": {"child": {"$dynamicRef": "#node"}}},
    "metaschema": {"$ref": "http://json-schema.org/draft-07/schema#"},
}


@pytest.mark.parametrize("schema", LOCAL.values(), ids=LOCAL.keys())
def test_local_refs_and_recursive_schemas_resolve(schema: dict) -> None:
    assert json.loads(parse(schema).canonical) == schema


def test_confluents_recursive_schema_example_parses() -> None:
    text = (DATA / "json-schema" / "recursive-schema.json").read_text(encoding="utf-8")
    native = JSON_FORMAT.parse(text, {}).native
    assert native.resolver().lookup("#/definitions/Category").contents["type"] == "object"


@pytest.mark.parametrize("schema", [
    {"enum": [{"$ref": "nowhere.json"}]},
    {"const": {"$ref": "#/nowhere"}},
    {"default": {"$ref": "nowhere.json"}, "examples": [{"$ref": "nowhere.json"}]},
    {"x-vendor": {"$ref": "nowhere.json"}},
], ids=["enum", "const", "default-examples", "unknown-keyword"])
def test_a_ref_inside_data_is_not_a_reference(schema: dict) -> None:
    assert json.loads(parse(schema).canonical) == schema


def test_a_property_named_ref_is_a_property() -> None:
    schema = {"type": "object", "properties": {"$ref": {"type": "string"}}}
    assert JSON_FORMAT.field_names(parse(schema)) == {"$ref"}
