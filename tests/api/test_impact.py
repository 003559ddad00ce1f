"""`/impact/subjects/{s}` (a sqlregistry extension, issue 40): the topics associated with a
subject, the subjects referencing it transitively (bounded), and which of them a candidate
schema would break under their own compatibility levels, on SQLite and PostgreSQL."""
from __future__ import annotations

import json
import urllib.request
import uuid
from typing import Any

import pytest

from api_client import Api, enc
from app.core.compatibility import impact as impact_module

NS = "lkc-1"
COMMON = {"type": "record", "name": "Common", "namespace": "shop", "fields": [{"name": "at", "type": "long"}]}
EVENT = json.dumps({"type": "record", "name": "Event", "namespace": "shop", "fields": [
    {"name": "common", "type": "shop.Common"}]})
AUDIT = json.dumps({"type": "record", "name": "Audit", "namespace": "shop", "fields": [
    {"name": "event", "type": "shop.Event"}]})
# `at` from long to string: neither the subject nor a reader of old data can take it
BREAKING = json.dumps({**COMMON, "fields": [{"name": "at", "type": "string"}]})
# a field with a default: backward compatible all the way up
WIDENING = json.dumps({**COMMON, "fields": [{"name": "at", "type": "long"},
                                            {"name": "zone", "type": "string", "default": "UTC"}]})


def associate(api: Api, topic: str, subject: str) -> None:
    reply = api.post("/associations", {
        "resourceName": topic, "resourceNamespace": NS, "resourceId": f"id-{topic}", "resourceType": "topic",
        "associations": [{"subject": subject, "associationType": "value", "lifecycle": "WEAK"}]})
    assert reply.status == 200, reply


def chain(api: Api) -> None:
    """common <- events-value <- audit-value; topics on common and events-value."""
    api.registered("common", json.dumps(COMMON))
    api.registered("events-value", EVENT, references=[{"name": "shop.Common", "subject": "common", "version": 1}])
    api.registered("audit-value", AUDIT, references=[{"name": "shop.Event", "subject": "events-value", "version": 1}])
    associate(api, "commons", "common")
    associate(api, "events", "events-value")


def topics(entries: list[dict[str, Any]]) -> list[str]:
    return [entry["resourceName"] for entry in entries]


def check(api: Api, subject: str, schema: str) -> dict[str, Any]:
    reply = api.post(f"/impact/subjects/{enc(subject)}", {"schema": schema})
    assert reply.status == 200, reply
    return reply.json


def test_get_lists_the_subjects_topics_and_its_referrers_transitively(api: Api) -> None:
    chain(api)
    body = api.get("/impact/subjects/common").json
    assert (body["subject"], topics(body["topics"]), body["truncated"]) == ("common", ["commons"], False)
    assert body["topics"][0]["subject"] == "common" and body["topics"][0]["resourceNamespace"] == NS
    assert [(r["subject"], r["depth"], r["via"], topics(r["topics"])) for r in body["referencedBy"]] == [
        ("events-value", 1, "common", ["events"]), ("audit-value", 2, "events-value", [])]
    assert "affected" not in body and all("affected" not in r for r in body["referencedBy"])
    assert api.get("/impact/subjects/audit-value").json["referencedBy"] == []


def test_a_breaking_candidate_affects_the_subject_its_referrers_and_their_topics(api: Api) -> None:
    chain(api)
    body = check(api, "common", BREAKING)
    assert (body["affected"], body["compatibilityLevel"]) == (True, "BACKWARD")
    assert body["messages"] and any("at" in message for message in body["messages"])
    assert [(r["subject"], r["affected"], r["compatibilityLevel"]) for r in body["referencedBy"]] == [
        ("events-value", True, "BACKWARD"), ("audit-value", True, "BACKWARD")]
    assert body["affectedSubjects"] == ["common", "events-value", "audit-value"]
    assert topics(body["affectedTopics"]) == ["commons", "events"]
    # a check registers nothing
    assert api.versions("common").json == [1]


def test_a_compatible_candidate_affects_nothing(api: Api) -> None:
    chain(api)
    body = check(api, "common", WIDENING)
    assert (body["affected"], body["messages"], body["affectedSubjects"], body["affectedTopics"]) == (
        False, [], [], [])
    assert [r["affected"] for r in body["referencedBy"]] == [False, False]


def test_each_referrer_is_judged_under_its_own_level(api: Api) -> None:
    chain(api)
    assert api.set_config("events-value", compatibility="NONE").status == 200
    body = check(api, "common", BREAKING)
    assert [(r["subject"], r["affected"], r["compatibilityLevel"]) for r in body["referencedBy"]] == [
        ("events-value", False, "NONE"), ("audit-value", True, "BACKWARD")]
    assert body["affectedSubjects"] == ["common", "audit-value"]


def test_a_referrer_whose_latest_version_no_longer_uses_the_subject_is_not_affected(api: Api) -> None:
    chain(api)
    api.set_config("events-value", compatibility="NONE")
    api.registered("events-value", json.dumps({"type": "record", "name": "Event", "namespace": "shop",
                                               "fields": [{"name": "id", "type": "long"}]}))
    body = check(api, "common", BREAKING)
    assert body["referencedBy"][0]["subject"] == "events-value" and body["referencedBy"][0]["affected"] is False


def test_the_walk_stops_at_its_bound_and_says_so(api: Api, monkeypatch: pytest.MonkeyPatch) -> None:
    chain(api)
    monkeypatch.setattr(impact_module, "MAX_REFERRERS", 1)
    body = api.get("/impact/subjects/common").json
    assert (body["truncated"], body["maxReferrers"], [r["subject"] for r in body["referencedBy"]]) == (
        True, 1, ["events-value"])


def test_a_subject_without_versions_is_40401_and_a_candidate_that_does_not_parse_42201(api: Api) -> None:
    assert api.get("/impact/subjects/nothing").error_code == 40401
    assert api.post("/impact/subjects/nothing", {"schema": BREAKING}).error_code == 40401
    api.registered("common", json.dumps(COMMON))
    bad = api.post("/impact/subjects/common", {"schema": "{not avro"})
    assert (bad.status, bad.error_code) == (422, 42201)
    assert api.post("/impact/subjects/common", {}).status == 422


def _call(url: str, method: str, body: Any = None) -> Any:
    data = json.dumps(body).encode() if body is not None else None
    request = urllib.request.Request(url, data=data, method=method,
                                     headers={"Content-Type": "application/vnd.schemaregistry.v1+json"})
    with urllib.request.urlopen(request) as reply:
        return json.load(reply)


def test_a_ci_job_asks_the_server_under_gunicorn_what_a_change_touches(live_server: str) -> None:
    common, events = f"common-{uuid.uuid4().hex[:8]}", f"events-{uuid.uuid4().hex[:8]}-value"
    _call(f"{live_server}/subjects/{common}/versions", "POST", {"schema": json.dumps(COMMON)})
    _call(f"{live_server}/subjects/{events}/versions", "POST", {
        "schema": EVENT, "references": [{"name": "shop.Common", "subject": common, "version": 1}]})
    topic = f"t-{uuid.uuid4().hex[:8]}"
    _call(f"{live_server}/associations", "POST", {
        "resourceName": topic, "resourceNamespace": NS, "resourceId": f"id-{topic}", "resourceType": "topic",
        "associations": [{"subject": events, "associationType": "value", "lifecycle": "WEAK"}]})
    body = _call(f"{live_server}/impact/subjects/{common}", "POST", {"schema": BREAKING})
    assert body["affectedSubjects"] == [common, events]
    assert [(t["resourceName"], t["subject"]) for t in body["affectedTopics"]] == [(topic, events)]


def test_a_restricted_caller_sees_only_referrers_it_may_read_and_none_through_them(settings: Any) -> None:
    from support.authorizers import DenySecret

    from app.server.factory import create_app
    from app.wiring import build_registry

    seeder = create_app(settings)
    seed = Api(seeder.test_client())
    seed.registered("common", json.dumps(COMMON))
    seed.registered("secret-events", EVENT, references=[{"name": "shop.Common", "subject": "common", "version": 1}])
    seed.registered("audit-value", AUDIT, references=[{"name": "shop.Event", "subject": "secret-events", "version": 1}])
    seed.registered("open-events", EVENT, references=[{"name": "shop.Common", "subject": "common", "version": 1}])
    seeder.extensions["registry"].storage.close()
    app = create_app(settings, build_registry(settings, authorizer=DenySecret()))
    try:
        api = Api(app.test_client())
        body = api.post("/impact/subjects/common", {"schema": BREAKING}).json
        assert [r["subject"] for r in body["referencedBy"]] == ["open-events"]
        assert body["affectedSubjects"] == ["common", "open-events"]
        assert api.get("/impact/subjects/secret-events").status == 403
    finally:
        app.extensions["registry"].storage.close()
