"""`/subjects...` reads and lookups."""
from __future__ import annotations

import pytest

from api_client import Api
from api_samples import RECORD_V1, RECORD_V2, RECORD_V3, same_schema

SCHEMA_KEYS = {"subject", "version", "id", "guid", "schemaType", "schema", "ts", "deleted"}


@pytest.fixture
def three_versions(api: Api) -> None:
    for schema in (RECORD_V1, RECORD_V2, RECORD_V3):
        api.registered("s", schema)


# ---------------------------------------------------------------- GET /subjects
def test_subjects_are_listed_in_string_order(api: Api) -> None:
    for subject in ("b", "a", "B"):
        api.registered(subject, RECORD_V1)
    assert api.get("/subjects").json == ["B", "a", "b"]


@pytest.mark.parametrize("params, expected", [
    ({}, ["live"]),
    ({"deleted": "true"}, ["gone", "live"]),
    ({"deleted": "TRUE"}, ["gone", "live"]),
    ({"deletedOnly": "true"}, ["gone"]),
    ({"deletedOnly": "true", "deleted": "false"}, ["gone"]),
    ({"subjectPrefix": "li"}, ["live"]),
    ({"subjectPrefix": "zz"}, []),
    ({"deleted": "true", "offset": "1"}, ["live"]),
    ({"deleted": "true", "limit": "1"}, ["gone"]),
    # The Python client sends these; Confluent does not read them, neither do we.
    ({"subject": "gone", "deleted_only": "true"}, ["live"]),
])
def test_subject_listing_filters(api: Api, params: dict, expected: list) -> None:
    api.registered("live", RECORD_V1)
    api.registered("gone", RECORD_V1)
    api.delete_subject("gone")
    assert api.get("/subjects", **params).json == expected


# ---------------------------------------------------------------- versions
@pytest.mark.parametrize("params, expected", [
    ({}, [1, 3]),
    ({"deleted": "true"}, [1, 2, 3]),
    ({"deletedOnly": "true"}, [2]),
    ({"deletedAsNegative": "true"}, [1, -2, 3]),
    ({"offset": "1"}, [3]),
    ({"limit": "1"}, [1]),
    ({"deleted": "true", "offset": "1", "limit": "1"}, [2]),
    ({"deleted_only": "true"}, [1, 3]),
])
def test_version_listing_filters(api: Api, three_versions: None, params: dict, expected: list) -> None:
    api.delete_version("s", 2)
    assert api.versions("s", **params).json == expected


def test_version_listing_of_unknown_subject_is_40401(api: Api) -> None:
    assert api.versions("nobody").error_code == 40401


def test_get_version_has_the_schema_shape(api: Api) -> None:
    registered = api.registered("s", RECORD_V1)
    body = api.version("s", 1).json
    assert set(body) == SCHEMA_KEYS
    assert (body["subject"], body["version"]) == ("s", 1)
    assert (body["id"], body["guid"]) == (registered["id"], registered["guid"])
    assert body["schemaType"] == "AVRO" and body["deleted"] is False and isinstance(body["ts"], int)


@pytest.mark.parametrize("segment", ["latest", "LATEST", "Latest", "-1"])
def test_latest_means_highest_live_version(api: Api, three_versions: None, segment: str) -> None:
    api.delete_version("s", 3)
    assert api.version("s", segment).json["version"] == 2
    assert api.version("s", segment, deleted="true").json["version"] == 2


def test_latest_with_only_soft_deleted_versions(api: Api) -> None:
    api.registered("s", RECORD_V1)
    api.delete_subject("s")
    assert api.version("s", "latest").error_code == 40401
    reply = api.version("s", "latest", deleted="true")
    assert reply.error_code == 40402 and "-1" in reply.json["message"]


@pytest.mark.parametrize("segment", ["0", "-2", "abc", "1.5", "2147483648"])
def test_malformed_version_is_42202(api: Api, segment: str) -> None:
    api.registered("s", RECORD_V1)
    assert api.version("s", segment).error_code == 42202


def test_raw_schema_endpoint_returns_the_text_itself(api: Api) -> None:
    api.registered("s", RECORD_V1)
    for path in ("/subjects/s/versions/1/schema", "/subjects/s/versions/latest/schema"):
        reply = api.get(path)
        assert reply.status == 200
        assert reply.headers["Content-Type"] == "application/vnd.schemaregistry.v1+json"
        assert reply.raw == api.version("s", 1).json["schema"]


# ---------------------------------------------------------------- lookup
def test_lookup_finds_the_registered_version(api: Api) -> None:
    api.registered("s", RECORD_V1)
    registered = api.registered("s", RECORD_V2)
    reply = api.post("/subjects/s", {"schema": RECORD_V2})
    assert reply.status == 200
    assert set(reply.json) == SCHEMA_KEYS
    assert (reply.json["subject"], reply.json["version"], reply.json["id"]) == ("s", 2, registered["id"])
    assert same_schema(reply.json["schema"], RECORD_V2)


@pytest.mark.parametrize("arrange, params, code", [
    ("nothing", {}, 40401),
    ("other schema", {}, 40403),
    ("soft deleted", {}, 40401),
])
def test_lookup_failures(api: Api, arrange: str, params: dict, code: int) -> None:
    if arrange == "other schema":
        api.registered("s", RECORD_V2)
    if arrange == "soft deleted":
        api.registered("s", RECORD_V1)
        api.delete_subject("s")
    assert api.post("/subjects/s", {"schema": RECORD_V1}, **params).error_code == code


def test_lookup_with_deleted_finds_a_soft_deleted_version(api: Api) -> None:
    api.registered("s", RECORD_V1)
    api.delete_subject("s")
    reply = api.post("/subjects/s", {"schema": RECORD_V1}, deleted="True")
    assert reply.status == 200 and reply.json["deleted"] is True


@pytest.mark.parametrize("body", [{}, {"schema": None}, {"schema": "  "}, {"schemaType": "AVRO"}])
@pytest.mark.parametrize("arrange, params, code", [
    ("nothing", {}, 40401),
    ("registered", {}, 40403),
    ("soft deleted", {}, 40401),
    ("soft deleted", {"deleted": "true"}, 40403),
])
def test_lookup_without_a_schema_matches_nothing(api: Api, body: dict, arrange: str, params: dict,
                                                 code: int) -> None:
    """Confluent's lookup treats a missing or blank schema as matching no version: 40401 when
    the subject has no version in scope, 40403 otherwise; never 42201."""
    if arrange != "nothing":
        api.registered("s", RECORD_V1)
    if arrange == "soft deleted":
        api.delete_subject("s")
    before = api.snapshot()
    reply = api.post("/subjects/s", body, **params)
    assert (reply.status, reply.error_code) == (404, code), reply
    assert api.snapshot() == before


def test_lookup_validates_the_schema_first(api: Api) -> None:
    assert api.post("/subjects/nobody", {"schema": "{not avro"}).error_code == 42201


def test_lookup_without_metadata_finds_the_version_that_has_it(api: Api) -> None:
    api.registered("s", RECORD_V1, metadata={"properties": {"owner": "a"}})
    reply = api.post("/subjects/s", {"schema": RECORD_V1})
    assert reply.status == 200 and reply.json["metadata"] == {"properties": {"owner": "a"}}


# ---------------------------------------------------------------- /subjects/{s}/metadata
@pytest.fixture
def owners(api: Api) -> None:
    api.registered("s", RECORD_V1, metadata={"properties": {"owner": "a", "tier": "1"}})
    api.registered("s", RECORD_V2, metadata={"properties": {"owner": "b", "tier": "1"}})
    api.registered("s", RECORD_V3)  # inherits owner b


@pytest.mark.parametrize("query, version", [
    ("key=owner&value=a", 1),
    ("key=owner&value=b", 3),
    ("key=tier&value=1", 3),
    ("key=owner&value=a&key=tier&value=1", 1),
    ("key=owner&value=b&key=extra", 3),  # an unpaired key is ignored
    ("key=owner&value=b&key=owner&value=a", 1),  # a repeated key keeps its last value
    ("", 3),  # no pairs: the newest version with any metadata
])
def test_latest_with_metadata_scans_from_the_newest(api: Api, owners: None, query: str, version: int) -> None:
    reply = api.client.get(f"/subjects/s/metadata?{query}")
    assert reply.status_code == 200, reply.data
    assert reply.get_json(force=True)["version"] == version


def test_latest_with_metadata_errors(api: Api, owners: None) -> None:
    assert api.get("/subjects/s/metadata", key="owner", value="zz").error_code == 40403
    assert api.get("/subjects/nobody/metadata", key="owner", value="a").error_code == 40401
