"""`schemaType: "JSON"` through the API: registration, lookup, reads, normalize and references,
on both databases."""
from __future__ import annotations

import json
import urllib.error
import urllib.request
from collections.abc import Callable
from typing import Any

import pytest

from api_client import V1_JSON, Api, enc

from app.formats.json_schema.subschemas import MAX_SCHEMA_DEPTH

JSON = "JSON"
PERSON = '{"type": "object", "properties": {"name": {"type": "string"}, "age": {"type": "integer", "minimum": 0}}}'
PERSON_CANONICAL = '{"type":"object","properties":{"name":{"type":"string"},"age":{"type":"integer","minimum":0}}}'
# PERSON with every object's keys in another order: the same schema once normalized
PERSON_REORDERED = '{"properties": {"age": {"minimum": 0, "type": "integer"}, "name": {"type": "string"}}, "type": "object"}'
PERSON_SORTED = '{"properties":{"age":{"minimum":0,"type":"integer"},"name":{"type":"string"}},"type":"object"}'

ADDRESS = '{"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}'
CUSTOMER = '{"type": "object", "properties": {"address": {"$ref": "address.json"}}}'
ADDRESS_REF = {"name": "address.json", "subject": "address", "version": 1}


def test_schema_types_list_json(api: Api) -> None:
    assert JSON in api.get("/schemas/types").json


def test_json_schema_is_stored_as_compact_json_with_its_key_order(api: Api) -> None:
    reply = api.registered("person", PERSON, schemaType=JSON)
    assert (reply["schemaType"], reply["schema"]) == (JSON, PERSON_CANONICAL)
    assert api.version("person", 1).json["schema"] == PERSON_CANONICAL
    by_id = api.get(f"/schemas/ids/{reply['id']}").json
    assert (by_id["schemaType"], by_id["schema"]) == (JSON, PERSON_CANONICAL)
    assert api.get(f"/schemas/ids/{reply['id']}/schema").raw == PERSON_CANONICAL


def test_the_same_json_schema_spelled_differently_is_the_same_version(api: Api) -> None:
    first = api.registered("person", PERSON, schemaType=JSON)
    again = api.registered("person", json.dumps(json.loads(PERSON), indent=2), schemaType=JSON)
    assert (again["id"], again["version"]) == (first["id"], 1)
    found = api.post("/subjects/person", {"schema": PERSON, "schemaType": JSON}).json
    assert (found["id"], found["version"], found["schemaType"]) == (first["id"], 1, JSON)


def test_key_order_makes_another_schema_unless_normalized(api: Api) -> None:
    first = api.registered("person", PERSON, schemaType=JSON)
    other = api.registered("other", PERSON_REORDERED, schemaType=JSON)
    assert other["id"] != first["id"]
    normalized = api.registered("sorted", PERSON, schemaType=JSON, params={"normalize": "true"})
    assert normalized["schema"] == PERSON_SORTED
    same = api.registered("sorted", PERSON_REORDERED, schemaType=JSON, params={"normalize": "true"})
    assert (same["id"], same["version"]) == (normalized["id"], 1)
    found = api.post("/subjects/sorted", {"schema": PERSON_REORDERED, "schemaType": JSON}, normalize="true").json
    assert found["id"] == normalized["id"]


def test_json_and_avro_texts_that_are_equal_are_different_schemas(api: Api) -> None:
    avro_text = '{"type":"string"}'
    as_json = api.registered("j", avro_text, schemaType=JSON)
    as_avro = api.registered("a", avro_text)
    assert as_json["id"] != as_avro["id"] and as_avro["schemaType"] == "AVRO"


@pytest.mark.parametrize("fmt", ["resolved", "serialized", "anything"])
def test_reads_with_a_format_serve_the_canonical_text(api: Api, fmt: str) -> None:
    reply = api.registered("person", PERSON, schemaType=JSON)
    assert api.version("person", 1, format=fmt).json["schema"] == PERSON_CANONICAL
    assert api.get(f"/schemas/ids/{reply['id']}", format=fmt).json["schema"] == PERSON_CANONICAL


def test_an_invalid_json_schema_is_42201_naming_keyword_and_pointer(api: Api) -> None:
    bad = '{"type": "object", "properties": {"age": {"type": "integer", "minimum": "zero"}}}'
    reply = api.register("person", bad, schemaType=JSON)
    assert (reply.status, reply.error_code) == (422, 42201)
    assert reply.json["message"] == (
        "Invalid schema of type JSON, details: #/properties/age/minimum: 'zero' is not of type 'number' "
        "(keyword 'minimum')"
    )
    assert api.get("/subjects").json == []


def test_a_json_array_is_not_a_schema(api: Api) -> None:
    reply = api.register("s", "[1, 2]", schemaType=JSON)
    assert reply.json == {
        "error_code": 42201,
        "message": "Invalid schema of type JSON, details: Invalid JSON schema: expected an object or boolean "
                   "at the root, found ARRAY",
    }


def test_boolean_schemas_register(api: Api) -> None:
    assert api.registered("yes", "true", schemaType=JSON)["schema"] == "true"
    assert api.registered("no", "false", schemaType=JSON)["schema"] == "false"


def test_a_schema_referencing_another_subject_registers_and_reads_back(api: Api) -> None:
    api.registered("address", ADDRESS, schemaType=JSON)
    customer = api.registered("customer", CUSTOMER, schemaType=JSON, references=[ADDRESS_REF])
    assert customer["references"] == [ADDRESS_REF]
    assert api.version("customer", 1).json["references"] == [ADDRESS_REF]
    assert api.get("/subjects/address/versions/1/referencedby").json == [customer["id"]]
    found = api.post("/subjects/customer", {"schema": CUSTOMER, "schemaType": JSON, "references": [ADDRESS_REF]})
    assert found.json["id"] == customer["id"]


def test_a_ref_to_a_reference_not_sent_is_42201(api: Api) -> None:
    api.registered("address", ADDRESS, schemaType=JSON)
    reply = api.register("customer", CUSTOMER, schemaType=JSON)
    assert reply.json == {
        "error_code": 42201,
        "message": "Invalid schema of type JSON, details: #/properties/address/$ref: cannot resolve $ref "
                   "'address.json' (a referenced schema must be listed in the references under that name)",
    }


def test_a_reference_to_a_missing_version_is_42201(api: Api) -> None:
    reply = api.register("customer", CUSTOMER, schemaType=JSON, references=[ADDRESS_REF])
    assert reply.json == {
        "error_code": 42201,
        "message": 'Invalid schema of type JSON, details: No schema reference found for subject "address" '
                   "and version 1",
    }


def test_references_resolve_transitively_and_against_the_root_id(api: Api) -> None:
    api.registered("address", ADDRESS, schemaType=JSON)
    customer_ref = {"name": "https://example.com/schemas/customer.json", "subject": "customer", "version": 1}
    api.registered("customer", CUSTOMER, schemaType=JSON, references=[ADDRESS_REF])
    order = json.dumps({
        "$id": "https://example.com/schemas/order.json",
        "type": "object",
        "properties": {"buyer": {"$ref": "customer.json"}, "shipTo": {"$ref": "customer.json#/properties/address"}},
    })
    reply = api.registered("order", order, schemaType=JSON, references=[customer_ref])
    assert reply["references"] == [customer_ref]


def test_normalize_sorts_the_references(api: Api) -> None:
    api.registered("address", ADDRESS, schemaType=JSON)
    api.registered("person", PERSON, schemaType=JSON)
    both = json.dumps({"properties": {"a": {"$ref": "address.json"}, "p": {"$ref": "person.json"}}})
    person_ref = {"name": "person.json", "subject": "person", "version": 1}
    reply = api.registered("both", both, schemaType=JSON, references=[person_ref, ADDRESS_REF],
                           params={"normalize": "true"})
    assert reply["references"] == [ADDRESS_REF, person_ref]


@pytest.mark.parametrize("schema", [
    {"definitions": {"node": {"type": "object", "properties": {"next": {"$ref": "#/definitions/node"}}}},
     "$ref": "#/definitions/node"},
    {"$schema": "https://json-schema.org/draft/2020-12/schema",
     "$defs": {"leaf": {"$anchor": "leaf", "type": "string"}},
     "type": "array", "items": {"$ref": "#leaf"}},
    {"type": "object", "properties": {"children": {"type": "array", "items": {"$ref": "#"}}}},
], ids=["definitions", "anchor-2020-12", "recursive-root"])
def test_local_refs_register(api: Api, schema: dict) -> None:
    assert api.register("s", json.dumps(schema), schemaType=JSON).status == 200


def test_validate_fields_sees_the_top_level_properties(api: Api) -> None:
    api.set_config("person", validateFields=True)
    reserved = {"properties": {"confluent:reserved": "age"}}
    reply = api.register("person", PERSON, schemaType=JSON, metadata=reserved)
    assert reply.status == 409 and "age" in reply.json["message"]
    without_age = json.dumps({"type": "object", "properties": {"name": {"type": "string"}}})
    assert api.register("person", without_age, schemaType=JSON, metadata=reserved).status == 200


def nested_any_of(levels: int, leaf: dict[str, Any]) -> dict[str, Any]:
    """The shape that costs the metaschema check the most frames a level (draft 2019-09 anyOf)."""
    schema: dict[str, Any] = leaf
    for _ in range(levels):
        schema = {"anyOf": [schema, {"type": "null"}]}
    return {"$schema": "https://json-schema.org/draft/2019-09/schema", **schema}


def post_live(url: str, body: dict[str, Any]) -> tuple[int, Any]:
    request = urllib.request.Request(url, json.dumps(body).encode(), {"Content-Type": V1_JSON}, method="POST")
    try:
        with urllib.request.urlopen(request, timeout=30) as reply:
            return reply.status, json.loads(reply.read())
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read())


def test_under_gunicorn_deep_json_schemas_register_compare_or_are_42201(
    live_server: str, unique_subject: Callable[[str], str]
) -> None:
    subject = enc(unique_subject("deep-json"))
    at_bound = nested_any_of(MAX_SCHEMA_DEPTH, {"type": "string", "maxLength": 10})
    status, registered = post_live(f"{live_server}/subjects/{subject}/versions",
                                   {"schema": json.dumps(at_bound), "schemaType": JSON})
    assert status == 200, registered
    wider = nested_any_of(MAX_SCHEMA_DEPTH, {"type": "string", "maxLength": 20})
    check = post_live(f"{live_server}/compatibility/subjects/{subject}/versions",
                      {"schema": json.dumps(wider), "schemaType": JSON})
    assert check == (200, {"is_compatible": True})
    too_deep = nested_any_of(MAX_SCHEMA_DEPTH + 1, {"type": "string"})
    status, refused = post_live(f"{live_server}/subjects/{subject}/versions",
                                {"schema": json.dumps(too_deep), "schemaType": JSON})
    assert (status, refused["error_code"]) == (422, 42201)
    assert refused["message"].endswith(f"Schema is nested more than {MAX_SCHEMA_DEPTH} levels deep (subschemas)")


def test_a_subject_config_normalize_sorts_json_keys_without_the_query(api: Api) -> None:
    api.set_config("sorted", normalize=True)
    assert api.registered("sorted", PERSON, schemaType=JSON)["schema"] == PERSON_SORTED
    again = api.registered("sorted", PERSON_REORDERED, schemaType=JSON, params={"normalize": "false"})
    assert again["version"] == 1


def test_import_mode_stores_a_schema_the_metaschema_refuses_and_reads_it_back(api: Api) -> None:
    """IMPORT copies another registry's schemas as they are (Confluent skips validation there),
    and a stored schema is read again without the metaschema check."""
    lax = '{"type":"object","properties":{"age":{"minimum":"zero"}}}'
    assert api.register("s", lax, schemaType=JSON).error_code == 42201
    api.set_mode("IMPORT")
    imported = api.registered("s", lax, schemaType=JSON, id=100, version=1)
    api.set_mode("READWRITE")
    assert imported["schema"] == lax
    assert api.get("/schemas/ids/100", format="anything").json["schema"] == lax
    check = api.post("/compatibility/subjects/s/versions/latest", {"schema": PERSON, "schemaType": JSON})
    assert check.status == 200, check
