"""Confluent 8.x's DEK registry parameters (issue 40): `?rewrap=true` on
`POST /keks/{k}/deks/{subject}`, `subjectPrefix` on `GET /keks`, and `offset`/`limit` on the
KEK list, the DEK list and a DEK's versions, as Confluent's DekRegistryResource answers them,
on SQLite and PostgreSQL."""
from __future__ import annotations

import base64

from dek_support import DekApi, client_aead
from flask import Flask

WRAPPED = base64.b64encode(b"wrapped-by-the-client").decode()
OTHER = base64.b64encode(b"wrapped-again-by-the-client").decode()


def test_rewrap_wraps_a_shared_keks_dek_again_keeping_its_version_and_raw_key(deks: DekApi, dek_app: Flask) -> None:
    deks.kek("shared1", shared=True)
    created = deks.post("/keks/shared1/deks/payments-value", {}).json
    again = deks.post("/keks/shared1/deks/payments-value", {})
    assert (again.status, again.json["error_code"]) == (409, 40971)
    rewrapped = deks.post("/keks/shared1/deks/payments-value?rewrap=true", {})
    assert rewrapped.status == 200
    body = rewrapped.json
    assert (body["version"], body["keyMaterial"]) == (1, created["keyMaterial"])
    assert body["encryptedKeyMaterial"] != created["encryptedKeyMaterial"]
    assert client_aead().decrypt(base64.b64decode(body["encryptedKeyMaterial"]), b"") == (
        base64.b64decode(created["keyMaterial"]))
    assert deks.get("/keks/shared1/deks/payments-value/versions").json == [1]
    assert deks.get("/keks/shared1/deks/payments-value").json["encryptedKeyMaterial"] == body["encryptedKeyMaterial"]
    actions = [(r["action"], r["outcome"]) for r in reversed(dek_app.test_client().get("/audit").json)]
    assert actions[-2:] == [("CREATE_DEK", "rejected"), ("REWRAP_DEK", "success")]


def test_rewrap_of_a_version_not_stored_creates_it(deks: DekApi) -> None:
    deks.kek("shared1", shared=True)
    created = deks.post("/keks/shared1/deks/s?rewrap=true", {"version": 3})
    assert (created.status, created.json["version"]) == (200, 3)
    assert deks.get("/keks/shared1/deks/s/versions").json == [3]


def test_rewrap_refuses_key_material_sent_for_a_shared_keks_existing_dek(deks: DekApi) -> None:
    deks.kek("shared1", shared=True)
    created = deks.post("/keks/shared1/deks/s", {}).json
    mine = base64.b64encode(client_aead().encrypt(b"my-dek", b"")).decode()
    refused = deks.post("/keks/shared1/deks/s?rewrap=true", {"encryptedKeyMaterial": mine})
    assert (refused.status, refused.json) == (409, {"error_code": 40971,
                                                    "message": "Key 's' already exists; use a different value"})
    assert deks.get("/keks/shared1/deks/s").json["encryptedKeyMaterial"] == created["encryptedKeyMaterial"]


def test_rewrap_under_a_kek_not_shared_replaces_the_key_material_sent_and_needs_some(deks: DekApi) -> None:
    deks.kek("orders")
    deks.post("/keks/orders/deks/s", {"encryptedKeyMaterial": WRAPPED})
    replaced = deks.post("/keks/orders/deks/s?rewrap=true", {"encryptedKeyMaterial": OTHER})
    assert (replaced.status, replaced.json["version"], replaced.json["encryptedKeyMaterial"]) == (200, 1, OTHER)
    assert deks.get("/keks/orders/deks/s").json["encryptedKeyMaterial"] == OTHER
    without = deks.post("/keks/orders/deks/s?rewrap=true", {})
    assert (without.status, without.json["error_code"]) == (422, 42271)
    assert deks.get("/keks/orders/deks/s").json["encryptedKeyMaterial"] == OTHER


def test_subject_prefix_lists_the_keks_holding_a_dek_under_any_of_the_prefixes(deks: DekApi) -> None:
    for name in ("k_orders", "k_payments", "k_idle", "k_gone"):
        deks.kek(name)
    deks.post("/keks/k_orders/deks/orders-value", {"encryptedKeyMaterial": WRAPPED})
    deks.post("/keks/k_payments/deks/payments-value", {"encryptedKeyMaterial": WRAPPED})
    deks.post("/keks/k_gone/deks/orders_old-value", {"encryptedKeyMaterial": WRAPPED})
    deks.delete("/keks/k_gone/deks/orders_old-value")
    assert deks.get("/keks").json == ["k_gone", "k_idle", "k_orders", "k_payments"]
    assert deks.get("/keks?subjectPrefix=orders").json == ["k_orders"]
    assert deks.get("/keks?subjectPrefix=orders&deleted=true").json == ["k_gone", "k_orders"]
    assert deks.get("/keks?subjectPrefix=orders&subjectPrefix=pay").json == ["k_orders", "k_payments"]
    assert deks.get("/keks?subjectPrefix=nothing").json == []
    # `_` and `%` are themselves, not SQL wildcards
    assert deks.get("/keks?subjectPrefix=orders_&deleted=true").json == ["k_gone"]
    assert deks.get("/keks?subjectPrefix=%25").json == []


def test_subject_prefix_in_a_context_matches_the_subject_named_in_it_or_qualified(deks: DekApi) -> None:
    deks.kek("k_staged", query="?context=.staging")
    deks.post("/keks/k_staged/deks/:.staging:orders-value", {"encryptedKeyMaterial": WRAPPED})
    assert deks.get("/keks?context=.staging&subjectPrefix=orders").json == ["k_staged"]
    assert deks.get("/keks?context=.staging&subjectPrefix=:.staging:ord").json == ["k_staged"]
    assert deks.get("/keks?subjectPrefix=orders").json == []


def test_offset_and_limit_page_keks_dek_subjects_and_dek_versions(deks: DekApi) -> None:
    for name in ("a", "b", "c"):
        deks.kek(name)
    for subject in ("s1", "s2", "s3"):
        deks.post(f"/keks/a/deks/{subject}", {"encryptedKeyMaterial": WRAPPED})
    for version in (2, 3):
        deks.post("/keks/a/deks/s1", {"version": version, "encryptedKeyMaterial": WRAPPED})
    assert deks.get("/keks?offset=1").json == ["b", "c"]
    assert deks.get("/keks?offset=1&limit=1").json == ["b"]
    assert deks.get("/keks?limit=-1").json == ["a", "b", "c"]
    assert deks.get("/keks?offset=5").json == []
    assert deks.get("/keks/a/deks?offset=1&limit=1").json == ["s2"]
    assert deks.get("/keks/a/deks?limit=2").json == ["s1", "s2"]
    assert deks.get("/keks/a/deks/s1/versions?offset=1").json == [2, 3]
    assert deks.get("/keks/a/deks/s1/versions?offset=0&limit=2").json == [1, 2]
    assert deks.get("/keks?subjectPrefix=s&limit=1").json == ["a"]


def test_a_page_parameter_that_is_not_an_integer_is_a_404_as_jerseys(deks: DekApi) -> None:
    deks.kek("a")
    for path in ("/keks?offset=x", "/keks?limit=1.5", "/keks/a/deks?limit=x", "/keks/a/deks/s/versions?offset=x"):
        assert deks.get(path).status == 404, path


def test_a_subject_prefix_no_database_can_store_is_42271(deks: DekApi) -> None:
    reply = deks.get("/keks?subjectPrefix=a%00b")
    assert (reply.status, reply.json["error_code"]) == (422, 42271)
