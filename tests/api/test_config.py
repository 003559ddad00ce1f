"""`/config[/{s}]`: the GET and PUT shapes, PUT as a merge, and which row's config applies."""
from __future__ import annotations

import pytest

from api_client import Api
from api_samples import RECORD_INT, RECORD_V1


def test_global_config_defaults_to_backward(api: Api) -> None:
    reply = api.get("/config")
    assert reply.status == 200 and reply.json == {"compatibilityLevel": "BACKWARD"}


@pytest.mark.parametrize("sent, stored", [
    ("FULL", "FULL"), ("full", "FULL"), ("Forward_Transitive", "FORWARD_TRANSITIVE")])
def test_put_accepts_any_case_and_answers_in_put_shape(api: Api, sent: str, stored: str) -> None:
    reply = api.put("/config", {"compatibility": sent})
    assert reply.status == 200 and reply.json == {"compatibility": stored}
    assert api.get("/config").json == {"compatibilityLevel": stored}


def test_compatibility_level_key_is_ignored_on_put(api: Api) -> None:
    reply = api.put("/config", {"compatibilityLevel": "NONE", "normalize": True})
    assert reply.status == 200
    assert api.get("/config").json["compatibilityLevel"] == "BACKWARD"


def test_put_is_a_merge_and_null_clears(api: Api) -> None:
    api.set_config("s", compatibility="FULL")
    assert api.put("/config/s", {"normalize": True}).json == {"compatibility": "FULL", "normalize": True}
    assert api.get("/config/s").json == {"compatibilityLevel": "FULL", "normalize": True}
    assert api.put("/config/s", {"normalize": None}).json == {"compatibility": "FULL"}


def test_subject_config_is_allowed_before_any_schema(api: Api) -> None:
    assert api.put("/config/fresh", {"compatibility": "NONE"}).status == 200
    assert api.get("/config/fresh").json == {"compatibilityLevel": "NONE"}


def test_subject_without_own_config(api: Api) -> None:
    api.set_config(compatibility="FULL")
    assert api.get("/config/s").error_code == 40408
    assert api.get("/config/s", defaultToGlobal="true").json == {"compatibilityLevel": "FULL"}


def test_subject_config_without_level_shows_the_server_default(api: Api) -> None:
    api.set_config(compatibility="FULL")
    api.set_config("s", normalize=True)
    assert api.get("/config/s").json == {"compatibilityLevel": "BACKWARD", "normalize": True}


def test_delete_returns_the_config_it_removed(api: Api) -> None:
    api.set_config("s", compatibility="NONE")
    reply = api.delete("/config/s")
    assert reply.status == 200 and reply.json == {"compatibilityLevel": "NONE"}
    assert api.get("/config/s").error_code == 40408
    assert api.delete("/config/s").error_code == 40401


def test_delete_global_returns_what_was_in_force(api: Api) -> None:
    api.set_config(compatibility="FULL")
    assert api.delete("/config").json == {"compatibilityLevel": "FULL"}
    assert api.get("/config").json == {"compatibilityLevel": "BACKWARD"}


def test_subject_level_governs_registration(api: Api) -> None:
    api.registered("s", RECORD_V1)
    assert api.register("s", RECORD_INT).status == 409
    api.set_config("s", compatibility="NONE")
    assert api.register("s", RECORD_INT).status == 200


def test_global_level_governs_registration(api: Api) -> None:
    api.registered("s", RECORD_V1)
    api.set_config(compatibility="NONE")
    assert api.register("s", RECORD_INT).status == 200


def test_context_subject_ignores_the_default_context_global_config(api: Api) -> None:
    api.set_config(compatibility="NONE")
    api.registered(":.ctx:s", RECORD_V1)
    assert api.register(":.ctx:s", RECORD_INT).status == 409
    api.set_config(":.ctx:", compatibility="NONE")
    assert api.register(":.ctx:s", RECORD_INT).status == 200


def test_global_context_config_is_the_last_fallback(api: Api) -> None:
    api.set_config(":.__GLOBAL:", compatibility="NONE")
    api.registered(":.ctx:s", RECORD_V1)
    assert api.register(":.ctx:s", RECORD_INT).status == 200


def test_read_only_blocks_config_writes(api: Api) -> None:
    api.set_mode("READONLY", "s")
    assert api.put("/config/s", {"compatibility": "NONE"}).error_code == 42205
    assert api.get("/config/s").error_code == 40408


def test_default_metadata_is_merged_into_new_versions(api: Api) -> None:
    api.set_config("s", defaultMetadata={"properties": {"owner": "platform"}})
    api.registered("s", RECORD_V1)
    assert api.version("s", 1).json["metadata"]["properties"]["owner"] == "platform"


@pytest.mark.parametrize("body", [{"compatibility": 3}, {"normalize": "yes"}, {"defaultMetadata": []}])
def test_config_body_type_mismatch_is_400(api: Api, body: dict) -> None:
    assert api.put("/config", body).error_code == 400
