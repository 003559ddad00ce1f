"""Unqualified reads that fall back to other contexts, and the subject alias (a subject whose own
config has an `alias` stands for its target) on every place a subject can be named."""
from __future__ import annotations

from api_client import Api
from api_samples import ENUM, RECORD_V1, RECORD_V2, STRING


def test_version_read_falls_back_to_the_same_name_in_another_context(api: Api) -> None:
    api.registered(":.ctx:orders", RECORD_V1)
    for version in (1, "latest"):
        body = api.version("orders", version).json
        assert (body["subject"], body["version"], body["id"]) == (":.ctx:orders", 1, 1)
    assert api.get("/subjects/orders/versions/1/schema").raw == api.version(":.ctx:orders", 1).json["schema"]


def test_the_default_context_wins_over_the_fallback(api: Api) -> None:
    api.registered(":.ctx:orders", RECORD_V1)
    api.registered("orders", ENUM)
    assert api.version("orders", 1).json["subject"] == "orders"


def test_a_soft_deleted_default_version_lets_the_fallback_answer(api: Api) -> None:
    api.registered("orders", ENUM)
    api.registered(":.ctx:orders", RECORD_V1)
    api.delete_version("orders", 1)
    assert api.version("orders", 1).json["subject"] == ":.ctx:orders"
    assert api.version("orders", 1, deleted="true").json["subject"] == "orders"


def test_contexts_are_tried_in_name_order(api: Api) -> None:
    api.registered(":.zeta:orders", ENUM)
    api.registered(":.alpha:orders", RECORD_V1)
    assert api.version("orders", 1).json["subject"] == ":.alpha:orders"


def test_qualified_reads_do_not_fall_back(api: Api) -> None:
    api.registered(":.ctx:orders", RECORD_V1)
    assert api.version(":.other:orders", 1).error_code == 40401


def test_a_miss_everywhere_is_reported_for_the_subject_as_named(api: Api) -> None:
    api.registered(":.ctx:orders", RECORD_V1)
    assert api.version("nothing", 1).json == {"error_code": 40401, "message": "Subject 'nothing' not found."}
    api.registered("orders", ENUM)
    assert api.version("orders", 2).json == {"error_code": 40402, "message": "Version 2 not found."}


def test_lookup_falls_back_to_the_same_name_in_another_context(api: Api) -> None:
    api.registered(":.ctx:orders", RECORD_V1)
    body = api.post("/subjects/orders", {"schema": RECORD_V1}).json
    assert (body["subject"], body["version"], body["id"]) == (":.ctx:orders", 1, 1)


def test_lookup_misses_keep_their_codes(api: Api) -> None:
    api.registered(":.ctx:orders", RECORD_V1)
    assert api.post("/subjects/nothing", {"schema": RECORD_V1}).error_code == 40401
    api.registered("orders", ENUM)
    assert api.post("/subjects/orders", {"schema": STRING}).error_code == 40403
    assert api.post("/subjects/orders", {"schema": "{"}).error_code == 42201


def test_lookup_prefers_the_default_context(api: Api) -> None:
    api.registered(":.ctx:orders", RECORD_V1)
    api.registered("orders", RECORD_V1)
    assert api.post("/subjects/orders", {"schema": RECORD_V1}).json["subject"] == "orders"


def test_schema_id_subject_hint_follows_an_alias(api: Api) -> None:
    api.registered("a", RECORD_V1)
    api.registered("b", RECORD_V1)  # same schema: both hold id 1
    api.set_config("al", alias="b")
    assert api.get("/schemas/ids/1", subject="al").json["subject"] == "b"
    assert api.get("/schemas/ids/1", subject="a").json["subject"] == "a"


def test_schema_id_alias_may_point_into_a_context(api: Api) -> None:
    api.registered("plain", ENUM)
    api.registered(":.ctx:c", RECORD_V1)
    api.registered(":.ctx:c", RECORD_V2)
    api.set_config("al", alias=":.ctx:c")
    body = api.get("/schemas/ids/2", subject="al").json
    assert (body["subject"], body["version"]) == (":.ctx:c", 2)
    assert api.get("/schemas/ids/2/versions", subject="al").json == [{"subject": ":.ctx:c", "version": 2}]
    assert api.get("/schemas/ids/2/subjects", subject="al").json == [":.ctx:c"]


def test_referencedby_follows_an_alias(api: Api) -> None:
    base = '{"type":"record","name":"Base","namespace":"n","fields":[{"name":"x","type":"int"}]}'
    api.registered("base", base)
    api.registered("user", '{"type":"record","name":"U","fields":[{"name":"b","type":"n.Base"}]}',
                   references=[{"name": "n.Base", "subject": "base", "version": 1}])
    api.set_config("al", alias="base")
    assert api.get("/subjects/al/versions/1/referencedby").json == [2]
