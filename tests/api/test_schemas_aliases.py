"""`GET /schemas?aliases=true` (Confluent 7.7+ `getSchemas` with aliases): items carry
the subjects whose own config `alias` points at their subject, and alias targets outside the
prefix are listed too."""
from __future__ import annotations

from typing import Any

from api_client import Api
from api_samples import ENUM, RECORD_V1, RECORD_V2, STRING

RULES = {"domainRules": [{"name": "check", "type": "CEL", "mode": "WRITE", "expr": "true"}]}


def listing(api: Api, **params: Any) -> list[tuple[str, int, list[str] | None]]:
    reply = api.get("/schemas", **params)
    assert reply.status == 200, reply
    return [(item["subject"], item["version"], item.get("aliases")) for item in reply.json]


def test_items_name_the_subjects_aliasing_theirs(api: Api) -> None:
    api.registered("orders", RECORD_V1)
    api.registered("orders", RECORD_V2)
    api.registered("plain", ENUM)
    api.set_config("orders-b", alias="orders")
    api.set_config("orders-a", alias="orders")
    api.set_config("other", compatibility="NONE")  # a config without an alias
    assert listing(api, aliases="true") == [
        ("orders", 1, ["orders-a", "orders-b"]),
        ("orders", 2, ["orders-a", "orders-b"]),
        ("plain", 1, None),
    ]


def test_without_the_flag_no_item_carries_aliases(api: Api) -> None:
    api.registered("orders", RECORD_V1)
    api.set_config("alias", alias="orders")
    assert all("aliases" not in item for item in api.get("/schemas").json)
    assert all("aliases" not in item for item in api.get("/schemas", aliases="false").json)


def test_a_target_outside_the_prefix_is_listed_with_its_aliases(api: Api) -> None:
    api.registered("payments", RECORD_V1)
    api.registered("orders-x", ENUM)
    api.set_config("orders-pay", alias="payments")
    assert listing(api, subjectPrefix="orders-") == [("orders-x", 1, None)]
    assert listing(api, subjectPrefix="orders-", aliases="true") == [
        ("orders-x", 1, None),
        ("payments", 1, ["orders-pay"]),
    ]


def test_only_alias_subjects_within_the_prefix_count(api: Api) -> None:
    api.registered("orders", RECORD_V1)
    api.set_config("elsewhere", alias="orders")
    api.set_config("orders-alias", alias="orders")
    assert listing(api, subjectPrefix="orders", aliases="true") == [("orders", 1, ["orders-alias"])]


def test_added_targets_obey_the_listing_filters(api: Api) -> None:
    api.set_config("target", compatibility="NONE")
    api.registered("target", RECORD_V1)
    api.registered("target", STRING, ruleSet=RULES)
    api.registered("target", ENUM)
    assert api.delete_version("target", 3).status == 200
    api.set_config("a-alias", alias="target")
    assert listing(api, subjectPrefix="a-", aliases="true") == [
        ("target", 1, ["a-alias"]), ("target", 2, ["a-alias"]),
    ]
    assert listing(api, subjectPrefix="a-", aliases="true", deleted="true")[-1] == ("target", 3, ["a-alias"])
    assert listing(api, subjectPrefix="a-", aliases="true", latestOnly="true") == [("target", 2, ["a-alias"])]
    assert listing(api, subjectPrefix="a-", aliases="true", ruleType="CEL") == [("target", 2, ["a-alias"])]
    assert listing(api, subjectPrefix="a-", aliases="true", offset=1, limit=1) == [("target", 2, ["a-alias"])]


def test_an_alias_is_qualified_in_the_aliasing_subjects_context(api: Api) -> None:
    api.registered(":.ctx:t", RECORD_V1)
    api.registered("t", ENUM)
    api.registered("s", STRING)
    api.set_config(":.ctx:local", alias="t")  # the same context's t
    api.set_config(":.ctx:cross", alias=":.:s")  # the default context's s, outside the prefix
    assert listing(api, subjectPrefix=":.ctx:", aliases="true") == [
        (":.ctx:t", 1, [":.ctx:local"]),
        ("s", 1, [":.ctx:cross"]),
    ]


def test_an_alias_to_a_subject_without_versions_adds_nothing(api: Api) -> None:
    api.registered("orders", RECORD_V1)
    api.set_config("orders-ghost", alias="nowhere")
    assert listing(api, aliases="true") == [("orders", 1, None)]
