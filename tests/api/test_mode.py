"""`/mode[/{s}]` and what modes allow."""
from __future__ import annotations

import pytest

from api_client import Api
from api_samples import ENUM, RECORD_V1, RECORD_V2


def test_mode_defaults_to_readwrite(api: Api) -> None:
    assert api.get("/mode").json == {"mode": "READWRITE"}


@pytest.mark.parametrize("sent", ["READONLY", "readonly", "ReadOnly"])
def test_put_echoes_the_body_as_sent(api: Api, sent: str) -> None:
    reply = api.put("/mode", {"mode": sent})
    assert reply.status == 200 and reply.json == {"mode": sent}
    assert api.get("/mode").json == {"mode": "READONLY"}


def test_subject_mode_and_default_to_global(api: Api) -> None:
    assert api.get("/mode/s").error_code == 40409
    assert api.get("/mode/s", defaultToGlobal="true").json == {"mode": "READWRITE"}
    api.set_mode("READONLY", "s")
    assert api.get("/mode/s").json == {"mode": "READONLY"}


def test_delete_mode_returns_the_old_one_and_falls_back(api: Api) -> None:
    api.set_mode("READONLY", "s")
    assert api.delete("/mode/s").json == {"mode": "READONLY"}
    assert api.get("/mode/s").error_code == 40409
    assert api.delete("/mode/s").error_code == 40401


def test_null_mode_removes_the_stored_mode(api: Api) -> None:
    api.set_mode("READONLY", "s")
    assert api.put("/mode/s", {"mode": None}).status == 200
    assert api.get("/mode/s").error_code == 40409


def test_read_only_blocks_new_schemas_but_not_existing_ones(api: Api) -> None:
    api.registered("s", RECORD_V1)
    api.set_mode("READONLY")
    assert api.register("s", RECORD_V2).error_code == 42205
    assert api.register("s", RECORD_V1).status == 200  # already registered: answered before the mode check
    assert api.post("/subjects/s", {"schema": RECORD_V1}).status == 200
    assert api.delete_version("s", 1).error_code == 42205


def test_mode_endpoints_work_in_read_only(api: Api) -> None:
    api.set_mode("READONLY")
    assert api.put("/mode", {"mode": "READWRITE"}).status == 200


def test_switch_to_import_needs_an_empty_scope_or_force(api: Api) -> None:
    api.registered("s", RECORD_V1)
    assert api.put("/mode", {"mode": "IMPORT"}).error_code == 42205
    assert api.get("/mode").json == {"mode": "READWRITE"}
    assert api.put("/mode", {"mode": "IMPORT"}, force="true").status == 200


def test_import_mode_registers_with_explicit_id_and_version(api: Api) -> None:
    api.set_mode("IMPORT")
    reply = api.register("s", RECORD_V1, id=100, version=5)
    assert reply.status == 200 and (reply.json["id"], reply.json["version"]) == (100, 5)
    assert api.get("/schemas/ids/100").json["subject"] == "s"
    assert api.versions("s").json == [5]
    api.set_mode("READWRITE")
    assert api.registered("t", ENUM)["id"] == 101  # imported ids move the counter


def test_import_mode_requires_an_id(api: Api) -> None:
    api.set_mode("IMPORT")
    assert api.register("s", RECORD_V1).error_code == 42205


def test_id_outside_import_mode_is_refused(api: Api) -> None:
    assert api.register("s", RECORD_V1, id=7).error_code == 42205


def test_import_cannot_overwrite_an_id_with_another_schema(api: Api) -> None:
    api.set_mode("IMPORT")
    api.registered("s", RECORD_V1, id=1, version=1)
    assert api.register("t", ENUM, id=1, version=1).error_code == 42205


def test_switch_to_import_hard_deletes_soft_deleted_versions(api: Api) -> None:
    api.registered("s", RECORD_V1)
    api.delete_subject("s")
    api.set_mode("IMPORT")
    assert api.get("/schemas/ids/1").error_code == 40403


@pytest.mark.parametrize("body", [{"mode": 1}, {"mode": ["IMPORT"]}])
def test_mode_body_type_mismatch_is_400(api: Api, body: dict) -> None:
    assert api.put("/mode", body).error_code == 400


def test_recursive_delete_clears_subject_modes(api: Api) -> None:
    api.set_mode("READONLY")
    api.set_mode("IMPORT", "a")
    reply = api.delete("/mode", recursive="true")
    assert reply.json == {"mode": "READONLY"}
    assert api.get("/mode").json == {"mode": "READWRITE"}
    assert api.get("/mode/a").error_code == 40409


@pytest.mark.parametrize("path", ["/mode/__GLOBAL", "/mode/a%01b", "/config/__EMPTY"])
def test_settings_for_an_invalid_subject_are_42208(api: Api, path: str) -> None:
    body = {"mode": "READONLY"} if path.startswith("/mode") else {"compatibility": "NONE"}
    assert api.put(path, body).error_code == 42208
