"""Listing parameters (filters, ordering, `offset`/`limit` after filtering) and the server version."""
from __future__ import annotations

import re

from api_client import Api
from api_samples import ENUM, RECORD_V1, RECORD_V2, STRING

RULES = {"domainRules": [{"name": "checkEmail", "type": "CEL", "mode": "WRITE", "expr": "true"}]}


def _pairs(reply_json: list[dict]) -> list[tuple[str, int]]:
    return [(item["subject"], item["version"]) for item in reply_json]


def test_schemas_wildcard_prefix_lists_every_context(api: Api) -> None:
    api.registered("b", RECORD_V1)
    api.registered(":.ctx:a", ENUM)
    api.registered(":.ctx:a", STRING, params={"force": "true"})
    assert _pairs(api.get("/schemas").json) == [("b", 1)]
    assert _pairs(api.get("/schemas", subjectPrefix=":*:").json) == [(":.ctx:a", 1), (":.ctx:a", 2), ("b", 1)]
    assert _pairs(api.get("/schemas", subjectPrefix=":*:", latestOnly="true").json) == [(":.ctx:a", 2), ("b", 1)]
    assert _pairs(api.get("/schemas", subjectPrefix=":.ctx:").json) == [(":.ctx:a", 1), (":.ctx:a", 2)]


def test_schemas_rule_type_keeps_versions_with_such_a_rule(api: Api) -> None:
    api.registered("s", RECORD_V1, ruleSet=RULES)
    api.registered("s", RECORD_V2, ruleSet={})
    api.registered("t", ENUM)
    assert _pairs(api.get("/schemas", ruleType="CEL").json) == [("s", 1)]
    assert api.get("/schemas", ruleType="CEL", latestOnly="true").json == []  # filtered after latestOnly
    assert api.get("/schemas", ruleType="JSONATA").json == []
    assert len(api.get("/schemas", ruleType="").json) == 3


def test_deleted_as_negative_shows_every_version(api: Api) -> None:
    api.registered("s", RECORD_V1)
    api.registered("s", RECORD_V2)
    api.delete_version("s", 1)
    assert api.versions("s", deletedAsNegative="true").json == [-1, 2]
    assert api.versions("s", deletedAsNegative="true", offset="1").json == [2]
    api.delete_version("s", 2)
    assert api.versions("s", deletedAsNegative="true").json == [-1, -2]
    assert api.versions("s").error_code == 40401


def test_versions_for_an_id_hide_soft_deleted_holders_unless_asked(api: Api) -> None:
    api.registered("a", RECORD_V1)
    api.registered("b", RECORD_V1)
    api.delete_version("a", 1)
    assert api.get("/schemas/ids/1/versions").json == [{"subject": "b", "version": 1}]
    assert api.get("/schemas/ids/1/versions", deleted="true").json == [
        {"subject": "a", "version": 1}, {"subject": "b", "version": 1}
    ]
    api.delete_version("b", 1)
    assert api.get("/schemas/ids/1/versions").json == []
    assert api.get("/schemas/ids/9/versions").error_code == 40403


def test_server_version_reports_a_commit(api: Api) -> None:
    body = api.get("/v1/metadata/version").json
    assert set(body) == {"version", "commitId"}
    assert body["version"]
    assert body["commitId"] == "unknown" or re.fullmatch(r"[0-9a-f]{40}", body["commitId"])
