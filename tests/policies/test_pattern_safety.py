"""Name patterns from policies are matched in linear time (RE2): a pattern that backtracks
catastrophically under Python's `re` costs a long name nothing, and patterns RE2 cannot
match (backreferences, lookaround) are refused when the policy is written (42250)."""
from __future__ import annotations

import json

import pytest
from policy_api import Api, api  # noqa: F401 - the fixture

from app.policies import patterns

LONG = 10_000  # backtracking `(a|a)*b` would take about 2^LONG steps on this many characters


def named_field(name: str) -> str:
    return json.dumps({"type": "record", "name": "R", "fields": [{"name": name, "type": "string"}]})


def select(api: Api, subject: str, field_pattern: str):
    return api.put(f"/policies/{subject}", {"rules": [{"rule": "name-pattern", "params": {"field": field_pattern}}]})


def test_a_backtracking_pattern_checks_a_long_name_at_once(api: Api) -> None:
    assert select(api, "orders-value", "(a|a)*b").status == 200
    reply = api.post("/policies/orders-value/check", {"schema": named_field("a" * LONG)})
    assert reply.status == 200, reply
    assert [v["rule"] for v in reply.json["violations"]] == ["name-pattern"]
    refused = api.post("/subjects/orders-value/versions", {"schema": named_field("a" * LONG)})
    assert (refused.status, refused.error_code) == (422, 42201), refused
    accepted = api.post("/subjects/orders-value/versions", {"schema": named_field("a" * LONG + "b")})
    assert accepted.status == 200, accepted


@pytest.mark.parametrize("pattern", [r"(a)\1", r"(?=a)a+", r"(?<!x)a+"])
def test_a_pattern_that_cannot_run_in_linear_time_is_refused_when_written(api: Api, pattern: str) -> None:
    reply = select(api, "orders-value", pattern)
    assert (reply.status, reply.error_code) == (422, 42250), reply
    assert "RE2" in reply.json["message"] and "no backreferences" in reply.json["message"]
    assert api.get("/policies/orders-value").status == 404  # nothing stored


def test_without_google_re2_regexes_are_refused_and_cases_still_work(
    api: Api, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(patterns, "_re2", None)
    patterns.compile_pattern.cache_clear()
    try:
        refused = select(api, "orders-value", "[a-z]+")
        assert (refused.status, refused.error_code) == (422, 42250), refused
        assert "google-re2" in refused.json["message"]
        assert select(api, "orders-value", "snake_case").status == 200
    finally:
        patterns.compile_pattern.cache_clear()
