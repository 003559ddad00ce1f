"""Contexts, qualified subjects and the `/contexts/{ctx}/...` URL prefix."""
from __future__ import annotations

import pytest

from api_client import Api
from api_samples import ENUM, RECORD_V1


def test_contexts_start_with_the_default_one(api: Api) -> None:
    assert api.get("/contexts").json == ["."]
    api.registered(":.zeta:s", RECORD_V1)
    api.registered(":.alpha:s", RECORD_V1)
    assert api.get("/contexts").json == [".", ".alpha", ".zeta"]
    assert api.get("/contexts", contextPrefix=".al").json == [".alpha"]
    assert api.get("/contexts", offset="1", limit="1").json == [".alpha"]


def test_each_context_has_its_own_ids(api: Api) -> None:
    api.registered("s", ENUM)
    reply = api.registered(":.ctx:s", RECORD_V1)
    assert reply["id"] == 1
    assert api.version(":.ctx:s", 1).json["subject"] == ":.ctx:s"


def test_qualified_subjects_are_listed_in_qualified_form(api: Api) -> None:
    api.registered("plain", RECORD_V1)
    api.registered(":.ctx:s", RECORD_V1)
    assert api.get("/subjects").json == [":.ctx:s", "plain"]
    assert api.get("/subjects", subjectPrefix=":.ctx:").json == [":.ctx:s"]


@pytest.mark.parametrize("path, params, expected", [
    ("/contexts/ctx/subjects", {}, [":.ctx:s"]),
    ("/contexts/.ctx/subjects", {}, [":.ctx:s"]),
    ("/contexts/:.ctx:/subjects", {}, [":.ctx:s"]),
    ("/contexts/ctx/subjects/", {"subjectPrefix": "s"}, [":.ctx:s"]),
    ("/contexts/ctx/subjects/s/versions", {}, [1]),
    ("/contexts/ctx/subjects/:.ctx:s/versions", {}, [1]),
])
def test_context_url_prefix_lists(api: Api, path: str, params: dict, expected: list) -> None:
    api.registered(":.ctx:s", RECORD_V1)
    api.registered("other", RECORD_V1)
    assert api.get(path, **params).json == expected


def test_context_url_prefix_reads_register_and_schemas(api: Api) -> None:
    reply = api.post("/contexts/ctx/subjects/s/versions", {"schema": RECORD_V1})
    assert reply.status == 200 and reply.json["id"] == 1
    assert api.versions(":.ctx:s").json == [1]
    assert api.get("/contexts/ctx/schemas/ids/1").json["subject"] == ":.ctx:s"
    assert api.get("/contexts/ctx/schemas/ids/1", subject="s").json["subject"] == ":.ctx:s"
    assert [s["subject"] for s in api.get("/contexts/ctx/schemas").json] == [":.ctx:s"]
    assert api.post("/contexts/ctx/compatibility/subjects/s/versions/", {"schema": RECORD_V1}).json == {
        "is_compatible": True}


def test_plain_subject_hint_finds_the_schema_in_another_context(api: Api) -> None:
    api.registered(":.ctx:orders-value", RECORD_V1)
    body = api.get("/schemas/ids/1", subject="orders-value").json
    assert body["subject"] == ":.ctx:orders-value"


def test_schema_by_id_without_hint_searches_the_default_context(api: Api) -> None:
    api.registered(":.ctx:s", RECORD_V1)
    assert api.get("/schemas/ids/1").error_code == 40403


def test_context_url_prefix_config_and_mode(api: Api) -> None:
    assert api.put("/contexts/ctx/config", {"compatibility": "NONE"}).status == 200
    assert api.get("/config/:.ctx:").json == {"compatibilityLevel": "NONE"}
    assert api.put("/contexts/ctx/config/s", {"compatibility": "FULL"}).status == 200
    assert api.get("/config/:.ctx:s").json == {"compatibilityLevel": "FULL"}
    assert api.put("/contexts/ctx/mode/s", {"mode": "READONLY"}).status == 200
    assert api.get("/mode/:.ctx:s").json == {"mode": "READONLY"}


@pytest.mark.parametrize("path", ["/contexts/a:b/subjects", "/contexts/a:b:c/config"])
def test_context_name_with_a_colon_is_400(api: Api, path: str) -> None:
    reply = api.get(path)
    assert (reply.status, reply.error_code) == (400, 400)


@pytest.mark.parametrize("spelling", ["ctx", ".ctx", ":.ctx:"])
def test_delete_context(api: Api, spelling: str) -> None:
    api.registered(":.ctx:s", RECORD_V1)
    assert api.delete(f"/contexts/{spelling}").error_code == 42211
    api.delete_subject(":.ctx:s")
    assert api.delete(f"/contexts/{spelling}").error_code == 42211  # soft-deleted subjects count
    api.delete_subject(":.ctx:s", permanent="true")
    reply = api.delete(f"/contexts/{spelling}")
    assert (reply.status, reply.raw) == (204, "")
    assert api.get("/contexts").json == ["."]


def test_delete_unknown_context_is_204(api: Api) -> None:
    assert api.delete("/contexts/nothing").status == 204


def test_listings_default_to_their_documented_scope(api: Api) -> None:
    api.registered("plain", RECORD_V1)
    api.registered(":.ctx:s", RECORD_V1)
    assert api.get("/subjects", subjectPrefix=":*:").json == [":.ctx:s", "plain"]
    assert [s["subject"] for s in api.get("/schemas").json] == ["plain"]  # default context only
    assert [s["subject"] for s in api.get("/schemas", subjectPrefix=":*:").json] == [":.ctx:s", "plain"]


def test_an_empty_subject_prefix_lists_only_the_default_context(api: Api) -> None:
    api.registered("plain", RECORD_V1)
    api.registered(":.ctx:s", RECORD_V1)
    assert api.get("/subjects", subjectPrefix="").json == ["plain"]
    assert api.get("/subjects").json == [":.ctx:s", "plain"]
