"""`/schemas...`, and the SchemaString reply of `GET /schemas/ids/{id}`."""
from __future__ import annotations

import pytest

from api_client import Api
from api_samples import ENUM, RECORD_V1, RECORD_V2, same_schema

BY_ID_KEYS = {"schema", "schemaType", "guid", "ts", "deleted", "subject", "version"}


def test_schema_types_lists_the_formats(api: Api) -> None:
    reply = api.get("/schemas/types")
    assert reply.status == 200 and "AVRO" in reply.json


def test_schema_by_id_has_the_8x_shape(api: Api) -> None:
    registered = api.registered("s", RECORD_V1)
    body = api.get(f"/schemas/ids/{registered['id']}").json
    assert set(body) == BY_ID_KEYS
    assert (body["subject"], body["version"], body["guid"]) == ("s", 1, registered["guid"])
    assert body["schemaType"] == "AVRO" and same_schema(body["schema"], RECORD_V1)


def test_schema_by_id_with_fetch_max_id(api: Api) -> None:
    first = api.registered("a", RECORD_V1)
    api.registered("b", ENUM)
    body = api.get(f"/schemas/ids/{first['id']}", fetchMaxId="true").json
    assert body["maxId"] == 2
    assert "maxId" not in api.get(f"/schemas/ids/{first['id']}").json


def test_fetch_max_id_counts_an_id_whose_schema_was_hard_deleted(api: Api) -> None:
    """A migration reserves the source's maxId on the target, so a hard-deleted highest id
    must still be reported: a consumer may hold records framed with it."""
    first = api.registered("a", RECORD_V1)
    api.registered("b", ENUM)
    assert api.delete("/subjects/b").status == 200
    assert api.delete("/subjects/b", permanent="true").status == 200
    body = api.get(f"/schemas/ids/{first['id']}", fetchMaxId="true").json
    assert body["maxId"] == 2


def test_schema_by_id_subject_hint_picks_the_holder(api: Api) -> None:
    api.set_config(compatibility="NONE")
    api.registered("a", RECORD_V1)
    api.registered("b", ENUM)
    api.registered("b", RECORD_V1)
    body = api.get("/schemas/ids/1", subject="b").json
    assert (body["subject"], body["version"]) == ("b", 2)


def test_raw_schema_by_id_is_the_text_itself(api: Api) -> None:
    api.registered("s", RECORD_V1)
    reply = api.get("/schemas/ids/1/schema")
    assert reply.status == 200 and reply.raw == api.get("/schemas/ids/1").json["schema"]
    assert reply.headers["Content-Type"] == "application/vnd.schemaregistry.v1+json"


def test_raw_schema_of_unknown_id_is_40403(api: Api) -> None:
    assert api.get("/schemas/ids/5/schema").error_code == 40403


@pytest.mark.parametrize("path", ["/schemas/ids/abc", "/schemas/ids/1.5", "/schemas/ids/99999999999",
                                  "/schemas/ids/abc/subjects"])
def test_non_integer_id_is_a_plain_404(api: Api, path: str) -> None:
    reply = api.get(path)
    assert (reply.status, reply.error_code) == (404, 404)


def test_subjects_and_versions_for_an_id(api: Api) -> None:
    api.set_config(compatibility="NONE")
    api.registered("b", RECORD_V1)
    api.registered("a", ENUM)
    api.registered("a", RECORD_V1)
    assert api.get("/schemas/ids/1/subjects").json == ["a", "b"]
    assert api.get("/schemas/ids/1/versions").json == [{"subject": "a", "version": 2}, {"subject": "b", "version": 1}]
    assert api.get("/schemas/ids/1/subjects", offset="1").json == ["b"]
    assert api.get("/schemas/ids/1/versions", limit="1").json == [{"subject": "a", "version": 2}]


def test_subjects_for_an_id_hide_soft_deleted_unless_asked(api: Api) -> None:
    api.registered("a", RECORD_V1)
    api.registered("b", RECORD_V1)
    api.delete_subject("b")
    assert api.get("/schemas/ids/1/subjects").json == ["a"]
    assert api.get("/schemas/ids/1/subjects", deleted="true").json == ["a", "b"]
    assert api.get("/schemas/ids/1/versions", deleted="True").json == [
        {"subject": "a", "version": 1}, {"subject": "b", "version": 1}]


@pytest.mark.parametrize("suffix", ["", "/subjects", "/versions"])
def test_unknown_id_is_40403(api: Api, suffix: str) -> None:
    assert api.get(f"/schemas/ids/42{suffix}").error_code == 40403


def test_schema_of_a_fully_soft_deleted_subject_is_still_served(api: Api) -> None:
    api.registered("s", RECORD_V1)
    api.delete_subject("s")
    body = api.get("/schemas/ids/1").json
    assert body["deleted"] is True


def test_schema_of_hard_deleted_versions_is_gone(api: Api) -> None:
    api.registered("s", RECORD_V1)
    api.delete_subject("s")
    api.delete_subject("s", permanent="true")
    assert api.get("/schemas/ids/1").error_code == 40403


# ---------------------------------------------------------------- GET /schemas
@pytest.fixture
def listing(api: Api) -> None:
    api.registered("b", RECORD_V1)
    api.registered("b", RECORD_V2)
    api.registered("a", ENUM)
    api.registered("c", RECORD_V1)
    api.delete_subject("c")


@pytest.mark.parametrize("params, expected", [
    ({}, [("a", 1), ("b", 1), ("b", 2)]),
    ({"deleted": "true"}, [("a", 1), ("b", 1), ("b", 2), ("c", 1)]),
    ({"latestOnly": "true"}, [("a", 1), ("b", 2)]),
    ({"subjectPrefix": "b"}, [("b", 1), ("b", 2)]),
    ({"offset": "1", "limit": "1"}, [("b", 1)]),
])
def test_schema_listing(api: Api, listing: None, params: dict, expected: list) -> None:
    body = api.get("/schemas", **params).json
    assert [(item["subject"], item["version"]) for item in body] == expected
    assert all({"id", "schema", "schemaType", "guid"} <= set(item) for item in body)


# ---------------------------------------------------------------- GUIDs
def test_schema_by_guid(api: Api) -> None:
    registered = api.registered("s", RECORD_V1)
    body = api.get(f"/schemas/guids/{registered['guid']}").json
    assert body["guid"] == registered["guid"] and same_schema(body["schema"], RECORD_V1)
    assert "subject" not in body and "version" not in body
    assert api.get(f"/schemas/guids/{registered['guid']}/ids").json == [{"context": ".", "id": registered["id"]}]


@pytest.mark.parametrize("guid", ["00000000-0000-0000-0000-000000000000", "not-a-uuid"])
def test_unknown_guid(api: Api, guid: str) -> None:
    assert api.get(f"/schemas/guids/{guid}").error_code == 40403
    assert api.get(f"/schemas/guids/{guid}/ids").json == []
