"""Associations under grants, on both databases: a read never answers 401/403 to a caller
who authenticated (what it may not read is left out, so a producer's AssociatedNameStrategy
falls back to topic naming); a change needs WRITE on each subject it touches, and a
cascading delete of a STRONG association ADMIN on the subject it deletes."""
from __future__ import annotations

import json
from typing import Any

import pytest

from app.core.types import SchemaRequest
from support.guarded import CALLERS, GuardedRegistry

OPS = CALLERS["ops"]
READS = ("/associations/resources/id-1", "/associations/resources/lkc-1/orders",
         "/associations/resources/-/orders", "/associations/resources/lkc-1/-",
         "/associations/subjects/payments.a")


def record(name: str) -> str:
    return json.dumps({"type": "record", "name": name, "fields": [{"name": "f", "type": "string"}]})


def body(topic: str, resource_id: str, *associations: dict[str, Any]) -> dict[str, Any]:
    return {"resourceName": topic, "resourceNamespace": "lkc-1", "resourceId": resource_id,
            "associations": list(associations)}


@pytest.fixture
def associated(guarded: GuardedRegistry) -> GuardedRegistry:
    """Topic `orders` (id-1): its key uses `orders-key` (not readable by `reader`), its value
    `payments.a` (readable by `reader`)."""
    for subject in ("payments.a", "orders-key"):
        guarded.service.register(subject, SchemaRequest(schema=record("R")), principal=OPS)
    made = guarded.as_("ops").call("POST", "/associations", body(
        "orders", "id-1", {"subject": "orders-key", "associationType": "key"},
        {"subject": "payments.a", "associationType": "value"}))
    assert made.status == 200, made
    return guarded


@pytest.mark.parametrize("path", READS)
def test_a_caller_without_any_grant_reads_an_empty_list_never_a_refusal(associated: GuardedRegistry,
                                                                       path: str) -> None:
    reply = associated.as_("nobody").get(path)
    assert (reply.status, reply.json) == (200, [])
    assert associated.as_("ops").get(path).json != []


def test_a_reader_sees_only_the_associations_of_subjects_it_may_read(associated: GuardedRegistry) -> None:
    reader = associated.as_("reader")
    assert [a["subject"] for a in reader.get("/associations/resources/-/orders").json] == ["payments.a"]
    assert [a["subject"] for a in reader.get("/associations/resources/id-1").json] == ["payments.a"]
    assert reader.get("/associations/subjects/orders-key").json == []
    batch = reader.call("POST", "/associations:batchGet", {"requests": [{"resourceId": "id-1"}]},
                        query="includeSchemas=true")
    assert batch.status == 207
    (info,) = batch.json["results"][0]["result"]["associations"]
    assert info["subject"] == "payments.a" and info["schema"]["subject"] == "payments.a"


def test_a_change_needs_write_on_each_subject_it_touches(associated: GuardedRegistry) -> None:
    weak = {"subject": "payments.a", "associationType": "value"}
    refused = associated.as_("reader").call("POST", "/associations", body("audit", "id-2", weak))
    assert (refused.status, refused.json["error_code"]) == (403, 40301)
    assert associated.as_("writer").call("POST", "/associations", body("audit", "id-2", weak)).status == 200
    other = associated.as_("writer").call("POST", "/associations", body(
        "billing", "id-3", {"subject": "orders-key", "associationType": "value"}))
    assert other.status == 403
    assert associated.as_("writer").call("DELETE", "/associations/resources/id-1").status == 403
    assert associated.as_("ops").get("/associations/resources/id-1").json != []
    assert associated.as_("writer").call("DELETE", "/associations/resources/id-2").status == 204


def test_a_cascading_delete_of_a_strong_association_needs_admin_on_its_subject(guarded: GuardedRegistry) -> None:
    strong = {"associationType": "value", "schema": {"schema": record("S")}}
    assert guarded.as_("ops").call("POST", "/associations", body("items", "id-9", strong)).status == 200
    refused = guarded.as_("writer").call("DELETE", "/associations/resources/id-9", query="cascadeLifecycle=true")
    assert refused.status == 403
    done = guarded.as_("everywhere").call("DELETE", "/associations/resources/id-9", query="cascadeLifecycle=true")
    assert done.status == 204
    assert guarded.as_("ops").get("/subjects/:.lkc-1:items-value/versions").status == 404
