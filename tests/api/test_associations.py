"""Confluent 8.x's Associations API over HTTP, on both databases: the routes, Confluent's
rules for WEAK and STRONG associations, its error codes, and what associations forbid the
registry's other changes (facts from confluentinc/schema-registry's AssociationsResource,
its registry and RestApiAssociationTest)."""
from __future__ import annotations

import json
from typing import Any

from api_client import Api, enc

NS = "lkc-1"


def record(name: str, *fields: str) -> str:
    return json.dumps({"type": "record", "name": name, "fields": [{"name": f, "type": "string"} for f in fields]})


def weak(subject: str, kind: str = "value", **extra: Any) -> dict[str, Any]:
    return {"subject": subject, "associationType": kind, "lifecycle": "WEAK", **extra}


def resource(topic: str, resource_id: str | None, *associations: dict[str, Any], ns: str = NS) -> dict[str, Any]:
    body: dict[str, Any] = {"resourceName": topic, "resourceNamespace": ns, "resourceType": "topic",
                            "associations": list(associations)}
    if resource_id is not None:
        body["resourceId"] = resource_id
    return body


def strong(kind: str = "value", schema: str | None = None, **extra: Any) -> dict[str, Any]:
    return {"associationType": kind, "schema": {"schema": schema or record("V", "a")}, **extra}


def test_an_unknown_topic_reads_as_an_empty_list_and_only_delete_answers_40410(api: Api) -> None:
    assert api.get(f"/associations/resources/-/orders", associationType="value").json == []
    assert api.get(f"/associations/resources/{NS}/orders").json == []
    assert api.get("/associations/resources/no-such-id").json == []
    assert api.get("/associations/subjects/orders-value").json == []
    gone = api.delete("/associations/resources/no-such-id")
    assert (gone.status, gone.error_code) == (404, 40410)
    assert gone.json["message"] == "Association for 'no-such-id' not found."


def test_weak_associations_are_created_read_by_every_route_and_deleted(api: Api) -> None:
    api.registered("orders-key", record("K", "k"))
    api.registered("orders-value", record("V", "v"))
    body = resource("orders", None, weak("orders-key", "key"), weak("orders-value"))
    dry = api.post("/associations", body, dryRun="true")
    assert dry.status == 200 and dry.json == {"resourceName": "orders", "resourceNamespace": NS,
                                              "resourceType": "topic"}
    assert api.get("/associations/resources/-/orders").json == []
    made = api.post("/associations", {**body, "resourceId": "id-1"})
    assert made.status == 200, made
    assert made.json["resourceId"] == "id-1"
    assert [(a["associationType"], a["subject"], a["lifecycle"]) for a in made.json["associations"]] == [
        ("key", "orders-key", "WEAK"), ("value", "orders-value", "WEAK")]
    assert all("frozen" not in a for a in made.json["associations"])

    (by_subject,) = api.get("/associations/subjects/orders-value").json
    assert {k: by_subject[k] for k in ("subject", "resourceName", "resourceNamespace", "resourceId",
                                       "resourceType", "associationType", "lifecycle")} == {
        "subject": "orders-value", "resourceName": "orders", "resourceNamespace": NS, "resourceId": "id-1",
        "resourceType": "topic", "associationType": "value", "lifecycle": "WEAK"}
    assert by_subject["createTs"] > 0 and by_subject["updateTs"] >= by_subject["createTs"] and by_subject["guid"]
    assert "frozen" not in by_subject
    for path in ("/associations/resources/id-1", f"/associations/resources/{NS}/orders",
                 "/associations/resources/-/orders", f"/associations/resources/{NS}/-"):
        assert [a["associationType"] for a in api.get(path).json] == ["key", "value"], path
    assert [a["associationType"] for a in api.get("/associations/resources/id-1", associationType="key").json] \
        == ["key"]
    assert api.get("/associations/resources/other-ns/orders").json == []

    assert api.delete("/associations/resources/id-1", associationType="key").status == 204
    assert [a["associationType"] for a in api.get("/associations/resources/id-1").json] == ["value"]
    # A WEAK association does not own its subject: a cascade leaves the schemas alone.
    assert api.delete("/associations/resources/id-1", cascadeLifecycle="true").status == 204
    assert api.get("/associations/resources/id-1").json == []
    assert api.versions("orders-key").json == [1] and api.versions("orders-value").json == [1]


def test_a_weak_association_needs_a_live_version_of_its_subject(api: Api) -> None:
    missing = api.post("/associations", resource("orders", "id-1", weak("nowhere")))
    assert (missing.status, missing.error_code) == (409, 40907)
    assert missing.json["message"] == "No active (non-deleted) version exists for subject 'nowhere'"


def test_several_weak_associations_may_share_a_subject(api: Api) -> None:
    api.registered("shared", record("V", "v"))
    assert api.post("/associations", resource("a", "id-a", weak("shared"))).status == 200
    assert api.post("/associations", resource("b", "id-b", weak("shared"))).status == 200
    assert [a["resourceName"] for a in api.get("/associations/subjects/shared").json] == ["a", "b"]
    page = api.get("/associations/subjects/shared", offset=1, limit=1).json
    assert [a["resourceName"] for a in page] == ["b"]


def test_a_strong_create_registers_its_schema_in_the_topics_subject_and_freezes_it(api: Api) -> None:
    made = api.post("/associations", resource("orders", "id-1", strong()))
    assert made.status == 200, made
    (info,) = made.json["associations"]
    subject = f":.{NS}:orders-value"
    assert (info["subject"], info["lifecycle"]) == (subject, "STRONG") and "frozen" not in info
    assert info["schema"]["subject"] == subject and info["schema"]["version"] == 1
    assert api.versions(subject).json == [1]
    (stored,) = api.get("/associations/resources/id-1").json
    assert stored["lifecycle"] == "STRONG" and "frozen" not in stored

    frozen = api.put("/associations/resources/id-1",
                     resource("orders", "id-1", {"subject": subject, "lifecycle": "STRONG", "associationType": "value",
                                                 "frozen": False}))
    assert (frozen.status, frozen.error_code) == (422, 42212)
    kept = api.delete("/associations/resources/id-1")
    assert (kept.status, kept.error_code) == (409, 40908)
    assert kept.json["message"] == f"The association of type  'value' is frozen for subject '{subject}'"
    assert api.delete_subject(subject).error_code == 40904

    assert api.delete("/associations/resources/id-1", cascadeLifecycle="true").status == 204
    assert api.get("/associations/resources/id-1").json == []
    assert api.versions(subject).error_code == 40401
    assert api.versions(subject, deleted="true").error_code == 40401


def test_a_retried_strong_create_is_answered_without_writing_and_a_different_one_is_40903(api: Api) -> None:
    body = resource("orders", "id-1", strong())
    assert api.post("/associations", {**body, "resourceId": None}, dryRun="true").status == 200
    assert api.post("/associations", body).status == 200
    again = api.post("/associations", body)
    assert again.status == 200 and "associations" not in again.json
    # The validate-phase retry (no resource id yet) is idempotent too.
    assert api.post("/associations", {k: v for k, v in body.items() if k != "resourceId"}, dryRun="true").status == 200
    other = api.post("/associations", resource("orders", "id-1", strong(schema=record("V", "b"))))
    assert (other.status, other.error_code) == (409, 40903)
    assert other.json["message"] == "An association of type 'value' already exists for resource 'orders'"
    assert api.versions(f":.{NS}:orders-value").json == [1]


def test_strong_and_weak_associations_exclude_each_other_on_a_subject(api: Api) -> None:
    assert api.post("/associations", resource("orders", "id-1", strong())).status == 200
    subject = f":.{NS}:orders-value"
    shared = api.post("/associations", resource("audit", "id-2", weak(subject)))
    assert (shared.status, shared.error_code) == (409, 40905)
    assert shared.json["message"] == f"A strong association already exists for subject '{subject}'"


def test_a_resource_keeps_one_lifecycle_and_weak_cannot_take_the_strong_subject(api: Api) -> None:
    api.registered("orders-key", record("K", "k"))
    mixed = api.post("/associations", resource("orders", "id-1", weak("orders-key", "key"), strong()))
    assert (mixed.status, mixed.error_code) == (422, 42212)
    assert "all associations for a resource must have the same lifecycle" in mixed.json["message"]
    api.registered(f":.{NS}:orders-value", record("V", "v"))
    taken = api.post("/associations", resource("orders", "id-1", weak(f":.{NS}:orders-value")))
    assert taken.error_code == 42212 and "WEAK associations cannot use subject" in taken.json["message"]
    assert api.get("/associations/resources/id-1").json == []


def test_bad_requests_get_42212_naming_the_property(api: Api) -> None:
    cases = {
        "resourceName": resource("bad topic", "id-1", weak("s")),
        "resourceId": resource("orders", None, weak("s")),
        "associationType": resource("orders", "id-1", weak("s", "header")),
        "subject": resource("orders", "id-1", {"associationType": "value", "lifecycle": "WEAK"}),
        "lifecycle": resource("orders", "id-1", weak("s", lifecycle="SOFT")),
        "associations": resource("orders", "id-1"),
    }
    for prop, body in cases.items():
        reply = api.post("/associations", body)
        assert (reply.status, reply.error_code) == (422, 42212), (prop, reply)
        assert f"property: '{prop}'" in reply.json["message"], (prop, reply)


def test_references_and_strong_associations_exclude_each_other(api: Api) -> None:
    assert api.post("/associations", resource("orders", "id-1", strong())).status == 200
    subject = f":.{NS}:orders-value"
    referencing = api.register(f":.{NS}:other", record("O", "o"),
                               references=[{"name": "V", "subject": "orders-value", "version": 1}])
    assert (referencing.status, referencing.error_code) == (422, 42205)
    assert "has a strong association and cannot be referenced" in referencing.json["message"]

    target = f":.{NS}:items-value"
    api.registered(target, record("I", "i"))
    holder = json.dumps({"type": "record", "name": "H", "fields": [{"name": "i", "type": "I"}]})
    api.registered(f":.{NS}:holder", holder, references=[{"name": "I", "subject": "items-value", "version": 1}])
    referenced = api.post("/associations", resource("items", "id-2", strong(schema=record("I", "i"))))
    assert (referenced.status, referenced.error_code) == (422, 42206)
    assert api.versions(subject).json == [1]


def test_the_last_live_version_of_an_associated_subject_cannot_be_soft_deleted(api: Api) -> None:
    api.registered("orders-value", record("V", "v"))
    assert api.post("/associations", resource("orders", "id-1", weak("orders-value"))).status == 200
    last = api.delete_version("orders-value", 1)
    assert (last.status, last.error_code) == (409, 40907)
    assert api.delete_subject("orders-value").error_code == 40904
    assert api.delete("/associations/resources/id-1").status == 204
    assert api.delete_version("orders-value", 1).status == 200


def test_an_upsert_creates_weak_associations_but_never_strong_ones(api: Api) -> None:
    api.registered("orders-value", record("V", "v"))
    upserted = api.put("/associations/resources/id-1", resource("orders", None, weak("orders-value")))
    assert upserted.status == 200 and upserted.json["associations"][0]["lifecycle"] == "WEAK"
    mismatch = api.put("/associations/resources/id-1", resource("orders", "id-2", weak("orders-value")))
    assert mismatch.error_code == 42212
    promoted = api.put("/associations/resources/id-3", resource("other", None, {"lifecycle": "STRONG",
                                                                                 "associationType": "key"}))
    assert promoted.error_code == 42212
    assert "STRONG associations must be created with the topic" in promoted.json["message"]
    moved = api.put("/associations/resources/id-1", resource("orders", None, weak("elsewhere")))
    assert moved.error_code == 42212 and "cannot be changed" in moved.json["message"]


def test_batch_get_answers_207_with_a_result_or_an_error_per_query(api: Api) -> None:
    api.registered("orders-value", record("V", "v"))
    assert api.post("/associations", resource("orders", "id-1", weak("orders-value"))).status == 200
    reply = api.post("/associations:batchGet", {"requests": [
        {"resourceId": "id-1"},
        {"resourceName": "orders", "resourceNamespace": "-", "associationTypes": ["value"]},
        {"resourceName": "unknown", "resourceNamespace": NS},
        {},
    ]}, includeSchemas="true")
    assert reply.status == 207
    first, second, unknown, invalid = reply.json["results"]
    (info,) = first["result"]["associations"]
    assert info["subject"] == "orders-value" and info["schema"]["version"] == 1
    assert second["result"]["resourceId"] == "id-1" and second["result"]["resourceNamespace"] == NS
    assert unknown["result"] == {"resourceName": "unknown", "resourceNamespace": NS, "resourceType": "topic"}
    assert invalid["error"]["error_code"] == 42212
    empty = api.post("/associations:batchGet", {"requests": []})
    assert (empty.status, empty.error_code) == (422, 42212)


def test_batch_mutate_applies_runs_in_order_and_reports_each_request(api: Api) -> None:
    api.registered("orders-key", record("K", "k"))
    api.registered("orders-value", record("V", "v"))
    reply = api.post("/associations:batchMutate", {"requests": [
        {"resourceName": "orders", "resourceNamespace": NS, "resourceId": "id-1", "associations": [
            {"opType": "CREATE", "subject": "orders-key", "associationType": "key"},
            {"opType": "UPSERT", "subject": "orders-value", "associationType": "value", "lifecycle": "STRONG"},
        ]},
        {"resourceName": "items", "resourceNamespace": NS, "resourceId": "id-2", "associations": [
            {"opType": "CREATE", "associationType": "value", "schema": {"schema": record("I", "i")}},
        ]},
        {"resourceName": "orders", "resourceNamespace": NS, "resourceId": "id-3", "associations": [
            {"opType": "NOPE"},
        ]},
    ]})
    assert reply.status == 207
    refused, created, unreadable = reply.json["results"]
    assert refused["error"]["error_code"] == 42212
    # The first run (the CREATE) stands, as in Confluent's registry.
    assert [a["associationType"] for a in api.get("/associations/resources/id-1").json] == ["key"]
    (info,) = created["result"]["associations"]
    assert info["lifecycle"] == "STRONG" and info["schema"]["subject"] == f":.{NS}:items-value"
    assert unreadable["error"]["error_code"] == 42212
    deleted = api.post("/associations:batchMutate", {"requests": [
        {"resourceName": "items", "resourceNamespace": NS, "resourceId": "id-2", "associations": [
            {"opType": "DELETE", "associationType": "value", "cascadeLifecycle": True}]}]})
    assert deleted.json["results"][0]["result"]["resourceId"] == "id-2"
    assert "associations" not in deleted.json["results"][0]["result"]
    assert api.versions(f":.{NS}:items-value").error_code == 40401


def test_a_subject_named_without_a_context_is_taken_in_the_requests_context(api: Api) -> None:
    api.registered(":.team:orders-value", record("V", "v"))
    made = api.post("/associations", resource("orders", "id-1", weak("orders-value")), context=".team")
    assert made.status == 200 and made.json["associations"][0]["subject"] == ":.team:orders-value"
    assert [a["resourceId"] for a in api.get(f"/associations/subjects/{enc(':.team:orders-value')}").json] == ["id-1"]


def test_filters_on_lifecycle_and_resource_type(api: Api) -> None:
    api.registered("orders-value", record("V", "v"))
    assert api.post("/associations", resource("orders", "id-1", weak("orders-value"))).status == 200
    assert len(api.get("/associations/resources/id-1", lifecycle="WEAK").json) == 1
    assert api.get("/associations/resources/id-1", lifecycle="STRONG").json == []
    assert api.get("/associations/resources/id-1", resourceType="schema").json == []
    bad = api.get("/associations/resources/id-1", lifecycle="SOFT")
    assert (bad.status, bad.error_code) == (422, 42212)


def test_names_beyond_their_bounds_are_refused_not_stored(api: Api) -> None:
    long_namespace = resource("orders", "id-1", strong(), ns="n" * 255)
    assert api.post("/associations", long_namespace).error_code == 42212
    assert api.post("/associations", resource("orders", "i" * 256, strong())).error_code == 42212
    assert api.post("/associations", resource("o" * 257, "id-1", strong())).error_code == 42212
    assert api.get("/associations/resources/-/-").json == []


def test_each_change_writes_its_audit_rows_in_its_transaction_and_reads_write_none(api: Api) -> None:
    before = len(api.get("/audit", limit=1000).json)
    assert api.post("/associations", resource("orders", "id-1", strong())).status == 200
    assert api.get("/associations/resources/id-1").status == 200
    assert api.delete("/associations/resources/id-1", cascadeLifecycle="true").status == 204
    refused = api.post("/associations", resource("orders", "id-2", weak("nowhere")))
    assert refused.error_code == 40907
    rows = api.get("/audit", limit=1000).json[: len(api.get("/audit", limit=1000).json) - before]
    subject = f":.{NS}:orders-value"
    assert [(r["action"], r.get("subject"), r["outcome"]) for r in reversed(rows)] == [
        ("REGISTER", subject, "success"),
        ("CREATE_ASSOCIATION", subject, "success"),
        ("DELETE_ASSOCIATION", subject, "success"),
        ("DELETE_SUBJECT", subject, "success"),
        ("CREATE_ASSOCIATION", None, "rejected"),
    ]
    created = next(r for r in rows if r["action"] == "CREATE_ASSOCIATION" and r["outcome"] == "success")
    assert created["context"] == f".{NS}" and created["detail"]["resourceId"] == "id-1"
    assert created["detail"]["lifecycle"] == "STRONG"


def test_import_mode_exempts_a_replicated_strong_association_from_its_schema(api: Api) -> None:
    subject = f":.{NS}:orders-value"
    assert api.set_mode("IMPORT", subject).status == 200
    assert api.register(subject, record("V", "v"), id=100, version=1).status == 200
    with_schema = api.post("/associations", resource("orders", "id-1", strong()))
    assert with_schema.error_code == 42212 and "IMPORT mode" in with_schema.json["message"]
    replicated = api.post("/associations", resource("orders", "id-1", {
        "associationType": "value", "lifecycle": "STRONG", "frozen": True}))
    assert replicated.status == 200, replicated
    assert api.get("/associations/resources/id-1").json[0]["lifecycle"] == "STRONG"
    # A cascade in IMPORT mode removes the association but leaves the replicated subject.
    assert api.delete("/associations/resources/id-1", cascadeLifecycle="true").status == 204
    assert api.versions(subject).json == [1]


def test_a_dry_run_checks_the_inline_schema_and_writes_nothing(api: Api) -> None:
    assert api.post("/associations", resource("orders", "id-1", strong()), dryRun="true").status == 200
    assert api.versions(f":.{NS}:orders-value").error_code == 40401
    invalid = api.post("/associations", resource("orders", "id-1", strong(schema='{"type": "nope"}')), dryRun="true")
    assert (invalid.status, invalid.error_code) == (422, 42201)
    assert api.get("/associations/resources/id-1").json == []
