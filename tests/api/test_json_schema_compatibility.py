"""JSON Schema compatibility through the API: the checker's verdicts in the
verbose reply and the 409 message, worded as Confluent words them, and the subject's
`compatibilityPolicy` choosing between Confluent's STRICT and LENIENT rules."""
from __future__ import annotations

import json

import pytest

from api_client import Api
from support.json_samples import shared_definitions

JSON = "JSON"
OPEN = json.dumps({"type": "object", "properties": {"name": {"type": "string", "maxLength": 10}}})
NARROWER = json.dumps({"type": "object", "properties": {"name": {"type": "string", "maxLength": 5}}})
WIDER = json.dumps({"type": "object", "properties": {"name": {"type": "string", "maxLength": 20}}})
CLOSED = json.dumps({"type": "object", "properties": {"name": {"type": "string", "maxLength": 10}},
                     "additionalProperties": False})
NARROWED_ENTRY = ('{errorType:"MAX_LENGTH_DECREASED", description:"The value at path \'#/properties/name/maxLength\' '
                  "in the new schema is less than its value in the old schema'}")
CLOSED_ENTRY = ('{errorType:"ADDITIONAL_PROPERTIES_REMOVED", description:"The keyword at path '
                "'#/additionalProperties' in the new schema is not present in the old schema'}")


def check(api: Api, subject: str, schema: str) -> dict:
    reply = api.post(f"/compatibility/subjects/{subject}/versions/latest", {"schema": schema, "schemaType": JSON},
                     verbose="true")
    assert reply.status == 200, reply
    return reply.json


@pytest.mark.parametrize("new, compatible", [(WIDER, True), (OPEN, True), (NARROWER, False)],
                         ids=["maxLength-increased", "same", "maxLength-decreased"])
def test_backward_reader_new_against_writer_old(api: Api, new: str, compatible: bool) -> None:
    api.registered("s", OPEN, schemaType=JSON)
    assert check(api, "s", new)["is_compatible"] is compatible


def test_forward_swaps_reader_and_writer(api: Api) -> None:
    api.set_config("s", compatibility="FORWARD")
    api.registered("s", OPEN, schemaType=JSON)
    assert check(api, "s", NARROWER)["is_compatible"] is True  # old (reader) takes all the new writes
    assert check(api, "s", WIDER)["is_compatible"] is False


def test_the_verbose_reply_and_the_409_name_the_change_and_its_pointer(api: Api) -> None:
    api.registered("s", OPEN, schemaType=JSON)
    trailer = ["{oldSchemaVersion: 1}", f"{{oldSchema: '{json.dumps(json.loads(OPEN), separators=(',', ':'))}'}}",
               "{validateFields: 'false', compatibility: 'BACKWARD'}"]
    assert check(api, "s", NARROWER) == {"is_compatible": False, "messages": [NARROWED_ENTRY, *trailer]}
    reply = api.register("s", NARROWER, schemaType=JSON)
    assert (reply.status, reply.error_code) == (409, 40901)
    assert reply.json["message"] == (
        'Schema being registered is incompatible with an earlier schema for subject "s", '
        f"details: [{', '.join([NARROWED_ENTRY, *trailer])}]"
    )


def test_closing_an_open_content_model_is_refused_strictly_and_allowed_leniently(api: Api) -> None:
    api.registered("s", OPEN, schemaType=JSON)
    assert check(api, "s", CLOSED)["messages"][0] == CLOSED_ENTRY
    api.set_config("s", compatibilityPolicy="lenient")
    assert check(api, "s", CLOSED) == {"is_compatible": True, "messages": []}
    assert api.registered("s", CLOSED, schemaType=JSON)["version"] == 2


def test_a_lenient_global_policy_reaches_subjects_without_one(api: Api) -> None:
    api.registered("s", OPEN, schemaType=JSON)
    api.set_config(compatibilityPolicy="LENIENT")
    try:
        assert check(api, "s", CLOSED)["is_compatible"] is True
    finally:
        api.set_config(compatibilityPolicy=None)


def test_json_against_an_avro_version_is_a_different_schema_type(api: Api) -> None:
    api.registered("s", '{"type":"string"}')
    reply = check(api, "s", OPEN)
    assert reply["is_compatible"] is False and reply["messages"][0] == "Incompatible because of different schema type"


def test_a_referenced_schema_takes_part_in_the_check(api: Api) -> None:
    api.registered("name", json.dumps({"type": "string", "maxLength": 10}), schemaType=JSON)
    api.set_config("name", compatibility="NONE")
    api.registered("name", json.dumps({"type": "string", "maxLength": 5}), schemaType=JSON)
    outer = json.dumps({"type": "object", "properties": {"name": {"$ref": "name.json"}}})
    api.registered("outer", outer, schemaType=JSON, references=[{"name": "name.json", "subject": "name", "version": 1}])
    body = {"schema": outer, "schemaType": JSON, "references": [{"name": "name.json", "subject": "name", "version": 2}]}
    reply = api.post("/compatibility/subjects/outer/versions/latest", body, verbose="true").json
    assert reply["is_compatible"] is False
    assert reply["messages"][0].startswith('{errorType:"MAX_LENGTH_DECREASED"')


KEYED = json.dumps({"type": "object", "propertyNames": {"pattern": "^[a-z]+$"}})
ANY_KEY = json.dumps({"type": "object"})


def test_dropping_property_names_registers_under_backward(api: Api) -> None:
    """The reader takes any key now: compatible (Confluent ignores the keyword altogether)."""
    api.registered("s", KEYED, schemaType=JSON)
    assert api.registered("s", ANY_KEY, schemaType=JSON)["version"] == 2


def test_adding_property_names_is_refused_under_backward(api: Api) -> None:
    api.registered("s", ANY_KEY, schemaType=JSON)
    assert check(api, "s", KEYED)["messages"][0] == (
        '{errorType:"PROPERTY_NAMES_ADDED", description:"The keyword at path \'#/propertyNames\' in the new '
        "schema is not present in the old schema'}")
    assert api.register("s", KEYED, schemaType=JSON).error_code == 40901


def test_a_change_shared_along_two_to_the_thirty_paths_is_reported_once(api: Api) -> None:
    api.registered("s", json.dumps(shared_definitions(30, "string")), schemaType=JSON)
    messages = check(api, "s", json.dumps(shared_definitions(30, "integer")))["messages"]
    changes = [m for m in messages if m.startswith("{errorType:")]
    assert changes == ['{errorType:"TYPE_CHANGED", description:"A type at path \'#/' + "/".join(["properties/a"] * 30)
                       + "' is different between the new schema and the old schema'}"]
