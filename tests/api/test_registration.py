"""POST /subjects/{s}/versions."""
from __future__ import annotations

import json
import re

import pytest

from api_client import Api
from api_samples import ENUM, RECORD_V1, RECORD_V2, STRING, record, same_schema

UUID = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$")


def test_register_reply_has_the_8x_shape(api: Api) -> None:
    reply = api.register("s", RECORD_V1)
    assert reply.status == 200  # not 201
    assert reply.headers["Content-Type"] == "application/vnd.schemaregistry.v1+json"
    body = reply.json
    assert {"id", "version", "guid", "schemaType", "schema"} <= set(body) <= {
        "id", "version", "guid", "schemaType", "schema", "references", "metadata", "ruleSet", "ts", "deleted"}
    assert (body["id"], body["version"], body["schemaType"]) == (1, 1, "AVRO")
    assert UUID.match(body["guid"])
    assert same_schema(body["schema"], RECORD_V1)
    assert "references" not in body and "metadata" not in body  # NON_EMPTY


@pytest.mark.parametrize("schema", [RECORD_V1, ENUM, STRING], ids=["record", "enum", "primitive"])
def test_registered_schema_reads_back_by_version_and_id(api: Api, schema: str) -> None:
    registered = api.registered("s", schema)
    by_version = api.version("s", 1).json
    assert same_schema(by_version["schema"], schema)
    by_id = api.get(f"/schemas/ids/{registered['id']}").json
    assert by_id["schema"] == by_version["schema"]


def test_reregistering_returns_the_existing_version(api: Api) -> None:
    first = api.registered("s", RECORD_V1)
    again = api.registered("s", json.dumps(json.loads(RECORD_V1), indent=4))  # formatting does not matter
    assert (again["id"], again["version"]) == (first["id"], first["version"])
    assert api.versions("s").json == [1]


def test_same_schema_under_another_subject_reuses_the_id(api: Api) -> None:
    first = api.registered("a", RECORD_V1)
    second = api.registered("b", RECORD_V1)
    assert second["id"] == first["id"] and second["version"] == 1


def test_new_schema_gets_the_next_id_and_version(api: Api) -> None:
    api.registered("s", RECORD_V1)
    reply = api.registered("s", RECORD_V2)
    assert (reply["id"], reply["version"]) == (2, 2)


def test_registering_an_older_schema_again_returns_its_version(api: Api) -> None:
    api.registered("s", RECORD_V1)
    api.registered("s", RECORD_V2)
    again = api.registered("s", RECORD_V1)
    assert (again["id"], again["version"]) == (1, 1)


def test_unknown_body_properties_are_ignored(api: Api) -> None:
    reply = api.register("s", RECORD_V1, somethingNew={"x": 1}, schemaTagsToAdd=[])
    assert reply.status == 200


def test_explicit_schema_type_avro_is_accepted(api: Api) -> None:
    assert api.register("s", RECORD_V1, schemaType="AVRO").status == 200


def test_explicit_version_must_be_the_next_one(api: Api) -> None:
    assert api.register("s", RECORD_V1, version=5).error_code == 42201
    reply = api.registered("s", RECORD_V1, version=1)
    assert reply["version"] == 1
    stored = api.version("s", 1).json
    assert stored["metadata"]["properties"]["confluent:version"] == "1"


def test_metadata_is_stored_returned_and_part_of_the_identity(api: Api) -> None:
    owner_a = {"properties": {"owner": "a"}}
    owner_b = {"properties": {"owner": "b"}}
    first = api.registered("s", RECORD_V1, metadata=owner_a)
    assert first["metadata"] == owner_a
    second = api.registered("s", RECORD_V1, metadata=owner_b)
    assert second["id"] != first["id"] and second["version"] == 2
    assert api.version("s", 1).json["metadata"] == owner_a
    assert api.get(f"/schemas/ids/{second['id']}").json["metadata"] == owner_b


def test_same_text_with_other_metadata_under_another_subject_gets_a_new_id(api: Api) -> None:
    first = api.registered("a", RECORD_V1)
    other = api.registered("b", RECORD_V1, metadata={"properties": {"team": "x"}})
    assert other["id"] != first["id"]


def test_new_version_without_metadata_inherits_the_latest(api: Api) -> None:
    api.registered("s", RECORD_V1, metadata={"properties": {"owner": "a"}})
    api.registered("s", RECORD_V2)
    assert api.version("s", 2).json["metadata"] == {"properties": {"owner": "a"}}


def test_empty_schema_with_metadata_makes_a_metadata_only_version(api: Api) -> None:
    first = api.registered("s", RECORD_V1)
    reply = api.registered("s", "", metadata={"properties": {"owner": "a"}})
    assert reply["version"] == 2 and reply["id"] != first["id"]
    assert same_schema(api.version("s", 2).json["schema"], RECORD_V1)


def test_empty_schema_on_an_empty_subject_is_invalid(api: Api) -> None:
    assert api.register("s", "").error_code == 42201
    assert api.post("/subjects/s/versions", {}).error_code == 42201


# Two texts that differ only in the order of custom properties: equal once normalized.
PROPS_AB = record("Rec", [{"name": "f1", "type": "string"}], a="1", b="2")
PROPS_BA = record("Rec", [{"name": "f1", "type": "string"}], b="2", a="1")


@pytest.mark.parametrize("flag", ["true", "True", "TRUE"])
def test_normalize_query_flag_makes_equivalent_texts_one_schema(api: Api, flag: str) -> None:
    first = api.registered("a", PROPS_AB, params={"normalize": flag})
    second = api.registered("b", PROPS_BA, params={"normalize": flag})
    assert second["id"] == first["id"]
    lookup = api.post("/subjects/a", {"schema": PROPS_BA}, normalize=flag)
    assert lookup.status == 200 and lookup.json["id"] == first["id"]


def test_without_normalize_equivalent_texts_are_different_schemas(api: Api) -> None:
    first = api.registered("a", PROPS_AB)
    second = api.registered("b", PROPS_BA)
    assert second["id"] != first["id"]


def test_normalize_in_config_applies_even_when_the_query_says_false(api: Api) -> None:
    api.set_config(normalize=True)
    first = api.registered("a", PROPS_AB, params={"normalize": "False"})
    second = api.registered("b", PROPS_BA, params={"normalize": "False"})
    assert second["id"] == first["id"]


def test_force_skips_the_compatibility_check(api: Api) -> None:
    api.registered("s", RECORD_V1)
    incompatible = record("Rec", [{"name": "f1", "type": "int"}])
    assert api.register("s", incompatible).status == 409
    assert api.register("s", incompatible, params={"force": "TRUE"}).status == 200


def test_format_only_shapes_the_reply_text(api: Api) -> None:
    reply = api.register("s", RECORD_V1, params={"format": "no-such-format"})
    assert reply.status == 200 and same_schema(reply.json["schema"], RECORD_V1)


def test_avro_schema_type_can_be_left_out_as_in_7x(database_url: str) -> None:
    from app.server.factory import create_app
    from app.settings import Settings

    client = create_app(Settings(database_url=database_url, avro_schema_type_in_replies=False)).test_client()
    registered = client.post("/subjects/legacy/versions", json={"schema": '"string"'}).get_json()
    assert "schemaType" not in registered
    assert "schemaType" not in client.get("/schemas/ids/1").get_json()
    assert "schemaType" not in client.get("/subjects/legacy/versions/1").get_json()


@pytest.mark.parametrize("schema_type", ["AVRO", "JSON"])
def test_a_lone_surrogate_in_a_schema_is_stored_escaped(api: Api, schema_type: str) -> None:
    # "\ud800" decodes to a code point UTF-8 cannot carry: the stored text keeps it escaped.
    text = (
        '{"type":"record","name":"R","doc":"\\ud800","fields":[]}' if schema_type == "AVRO"
        else '{"type":"object","description":"\\ud800"}'
    )
    registered = api.registered("s", text, schemaType=schema_type)
    stored = api.get(f"/schemas/ids/{registered['id']}").json["schema"]
    assert "\\uD800" in stored
    assert api.registered("s", text, schemaType=schema_type)["id"] == registered["id"]
