"""The compatibility endpoints' finer rules and `schemaType`."""
from __future__ import annotations

import pytest

from api_client import Api
from api_samples import BASE, BASE_NAME, INVALID, OUTER, RECORD_INT, RECORD_V1, RECORD_V2

from app.formats import FORMATS

REF = {"name": BASE_NAME, "subject": "base", "version": 1}


@pytest.mark.parametrize("path", [
    "/compatibility/subjects/empty/versions/latest",
    "/compatibility/subjects/empty/versions",
])
def test_schema_is_parsed_even_with_nothing_to_compare(api: Api, path: str) -> None:
    assert api.post(path, {"schema": RECORD_V1}).json == {"is_compatible": True}
    invalid = api.post(path, {"schema": INVALID})
    assert invalid.status == 422 and invalid.error_code == 42201
    verbose = api.post(path, {"schema": INVALID}, verbose="true").json
    assert verbose["is_compatible"] is False
    assert verbose["messages"][0].startswith("Invalid schema of type AVRO, details: ")


@pytest.mark.parametrize("normalize", ["true", "True", "false"])
def test_normalize_does_not_change_the_verdict(api: Api, normalize: str) -> None:
    api.registered("s", RECORD_V1)
    ok = api.post("/compatibility/subjects/s/versions/latest", {"schema": RECORD_V2}, normalize=normalize)
    bad = api.post("/compatibility/subjects/s/versions", {"schema": RECORD_INT}, normalize=normalize)
    assert (ok.json, bad.json) == ({"is_compatible": True}, {"is_compatible": False})


def test_normalize_from_config_applies_to_the_check(api: Api) -> None:
    api.registered("s", RECORD_V1)
    api.set_config("s", normalize=True)
    reply = api.post("/compatibility/subjects/s/versions", {"schema": RECORD_INT}, normalize="false", verbose="true")
    assert reply.json["is_compatible"] is False


def test_check_resolves_references(api: Api) -> None:
    api.registered("base", BASE)
    api.registered("outer", OUTER, references=[REF])
    reply = api.post("/compatibility/subjects/outer/versions", {"schema": OUTER, "references": [REF]})
    assert reply.json == {"is_compatible": True}
    latest_ref = {**REF, "version": -1}
    assert api.post("/compatibility/subjects/outer/versions/1", {"schema": OUTER, "references": [latest_ref]}).json == {
        "is_compatible": True
    }


def test_missing_reference_is_an_invalid_schema(api: Api) -> None:
    api.registered("outer", RECORD_V1)
    missing = {**REF, "version": 9}
    reply = api.post("/compatibility/subjects/outer/versions", {"schema": OUTER, "references": [missing]})
    assert reply.error_code == 42201
    assert reply.json["message"] == (
        'Invalid schema of type AVRO, details: No schema reference found for subject "base" and version 9'
    )


@pytest.mark.parametrize("schema_type", ["XML", "avro", "json", "protobuf"])
def test_unknown_schema_type_is_42201(api: Api, schema_type: str) -> None:
    api.registered("s", RECORD_V1)
    body = {"schema": RECORD_V1, "schemaType": schema_type}
    message = f"Invalid schema type {schema_type}; this server supports {', '.join(FORMATS)}"
    assert api.post("/compatibility/subjects/s/versions/latest", body).json == {"error_code": 42201, "message": message}
    assert api.post("/compatibility/subjects/s/versions", body, verbose="true").json == {
        "is_compatible": False, "messages": [message]
    }
    assert api.register("s", RECORD_V1, schemaType=schema_type).json == {"error_code": 42201, "message": message}
    assert api.post("/subjects/s", body).json == {"error_code": 42201, "message": message}


def test_schema_type_absent_and_avro_are_the_same_schema(api: Api) -> None:
    absent = api.registered("s", RECORD_V1)
    explicit = api.registered("s", RECORD_V1, schemaType="AVRO")
    assert (absent["id"], absent["version"]) == (explicit["id"], explicit["version"])
    assert absent["schemaType"] == "AVRO"
    assert api.post("/subjects/s", {"schema": RECORD_V1, "schemaType": "AVRO"}).json["version"] == 1


def test_invalid_schema_message_follows_confluents_template(api: Api) -> None:
    reply = api.register("s", INVALID)
    assert reply.error_code == 42201
    assert reply.json["message"].startswith("Invalid schema of type AVRO, details: ")
