"""`POST /subjects/{s}` (lookup) finds a version holding the same schema spelled otherwise, as
Confluent's lookup does by comparing parsed schemas: a JSON Schema with its keys in another
order. Protobuf needs no such step (its canonical text is printed from the parsed file, and
Confluent's comparison of parsed files keeps declaration order). On both databases."""
from __future__ import annotations

import json

import pytest
from api_client import Api

from app.core.registration import lookup

JSON = "JSON"
PERSON = {"type": "object", "properties": {"name": {"type": "string"}, "age": {"type": "integer", "minimum": 0}}}
PERSON_CANONICAL = '{"type":"object","properties":{"name":{"type":"string"},"age":{"type":"integer","minimum":0}}}'
REORDERED = {"properties": {"age": {"minimum": 0, "type": "integer"}, "name": {"type": "string"}}, "type": "object"}


def find(api: Api, subject: str, schema: dict, **params: str) -> dict:
    reply = api.post(f"/subjects/{subject}", {"schema": json.dumps(schema), "schemaType": JSON}, **params)
    return reply.json


def test_a_json_schema_with_its_keys_in_another_order_finds_the_version(api: Api) -> None:
    registered = api.registered("person", json.dumps(PERSON), schemaType=JSON)
    found = find(api, "person", REORDERED)
    assert (found["id"], found["version"], found["schema"]) == (registered["id"], 1, PERSON_CANONICAL)


def test_the_newest_version_spelled_otherwise_is_found(api: Api) -> None:
    api.registered("person", json.dumps(PERSON), schemaType=JSON)
    second = api.registered("person", json.dumps(REORDERED), schemaType=JSON)
    assert second["version"] == 2
    third_spelling = {"type": "object", "properties": {"age": {"type": "integer", "minimum": 0},
                                                       "name": {"type": "string"}}}
    assert find(api, "person", third_spelling)["version"] == 2


def test_a_value_spelled_as_another_number_type_is_another_schema(api: Api) -> None:
    """`0` and `0.0` are different JSON values to Confluent's comparison, in any key order."""
    api.registered("person", json.dumps(PERSON), schemaType=JSON)
    other = json.loads(json.dumps(REORDERED))
    other["properties"]["age"]["minimum"] = 0.0
    assert find(api, "person", other)["error_code"] == 40403


def test_a_deleted_version_spelled_otherwise_is_found_only_when_deleted_ones_are_asked_for(api: Api) -> None:
    api.registered("person", json.dumps(PERSON), schemaType=JSON)
    api.registered("person", json.dumps({"type": "object"}), schemaType=JSON)
    assert api.delete_version("person", 1).status == 200
    assert find(api, "person", REORDERED)["error_code"] == 40403
    assert find(api, "person", REORDERED, deleted="true")["version"] == 1


def test_a_version_with_other_metadata_does_not_match_another_spelling(api: Api) -> None:
    api.registered("person", json.dumps(PERSON), schemaType=JSON,
                   metadata={"properties": {"owner": "team-a"}})
    reply = api.post("/subjects/person", {"schema": json.dumps(REORDERED), "schemaType": JSON,
                                          "metadata": {"properties": {"owner": "team-b"}}})
    assert reply.json["error_code"] == 40403


def test_only_the_newest_versions_are_compared(api: Api, monkeypatch: pytest.MonkeyPatch) -> None:
    """The comparison reads a bounded number of versions, however long the subject."""
    monkeypatch.setattr(lookup, "SPELLING_SCAN_LIMIT", 2)
    api.set_config("person", compatibility="NONE")
    api.registered("person", json.dumps(PERSON), schemaType=JSON)
    for n in range(2):
        api.registered("person", json.dumps({"type": "string", "maxLength": n + 1}), schemaType=JSON)
    assert find(api, "person", REORDERED)["error_code"] == 40403
    monkeypatch.setattr(lookup, "SPELLING_SCAN_LIMIT", 3)
    assert find(api, "person", REORDERED)["version"] == 1


PROTO = 'syntax = "proto3";\npackage p;\nmessage A { string x = 1; int32 y = 2; }\n'


def test_a_protobuf_schema_with_other_whitespace_and_comments_is_found_by_its_text(api: Api) -> None:
    registered = api.registered("p", PROTO, schemaType="PROTOBUF")
    respelled = 'syntax = "proto3";  // file\npackage p;\n\nmessage A {\n  string x = 1;\n  /* y */ int32 y = 2;\n}\n'
    found = api.post("/subjects/p", {"schema": respelled, "schemaType": "PROTOBUF"}).json
    assert (found["id"], found["version"]) == (registered["id"], 1)


def test_a_protobuf_schema_with_fields_declared_in_another_order_is_another_schema(api: Api) -> None:
    api.registered("p", PROTO, schemaType="PROTOBUF")
    reordered = 'syntax = "proto3";\npackage p;\nmessage A { int32 y = 2; string x = 1; }\n'
    assert api.post("/subjects/p", {"schema": reordered, "schemaType": "PROTOBUF"}).json["error_code"] == 40403
