"""The DEK registry's REST shapes and errors, as Confluent's DekRegistryResource answers them,
on SQLite and PostgreSQL."""
from __future__ import annotations

import base64

import pytest
from dek_support import DekApi, client_aead, make_app
from flask import Flask
from sqlalchemy import create_engine, text

WRAPPED = base64.b64encode(b"wrapped-by-the-client").decode()


def test_a_kek_is_created_read_listed_and_answered_in_confluents_shape(deks: DekApi) -> None:
    created = deks.post("/keks", {"name": "orders", "kmsType": "local-kms", "kmsKeyId": "k1",
                                  "kmsProps": {"b": "2", "a": "1"}, "doc": "for orders"})
    assert created.status == 200
    body = created.json
    assert body == {"name": "orders", "kmsType": "local-kms", "kmsKeyId": "k1", "kmsProps": {"a": "1", "b": "2"},
                    "doc": "for orders", "shared": False, "ts": body["ts"], "deleted": False}
    assert body["ts"] > 0
    assert deks.get("/keks/orders").json == body
    assert deks.get("/keks").json == ["orders"]


def test_a_cloud_kms_type_is_stored_under_confluents_spelling(deks: DekApi) -> None:
    assert deks.post("/keks", {"name": "aws1", "kmsType": "AWS", "kmsKeyId": "arn:x"}).json["kmsType"] == "aws-kms"


@pytest.mark.parametrize("body, field", [
    ({"kmsType": "local-kms", "kmsKeyId": "k"}, "name"),
    ({"name": "1starts-with-digit", "kmsType": "local-kms", "kmsKeyId": "k"}, "name"),
    ({"name": "has space", "kmsType": "local-kms", "kmsKeyId": "k"}, "name"),
    ({"name": "x" * 65, "kmsType": "local-kms", "kmsKeyId": "k"}, "name"),
    ({"name": "ok", "kmsType": "local-kms"}, "kmsKeyId"),
    ({"name": "ok", "kmsType": "local-kms", "kmsKeyId": ""}, "kmsKeyId"),
    ({"name": "ok", "kmsKeyId": "k"}, "kmsType"),
    ({"name": "ok", "kmsType": "t" * 256, "kmsKeyId": "k"}, "kmsType"),
    # Bounds Confluent leaves out (before: any size the body limit let through).
    ({"name": "ok", "kmsType": "local-kms", "kmsKeyId": "k" * 2049}, "kmsKeyId"),
    ({"name": "ok", "kmsType": "local-kms", "kmsKeyId": "k", "kmsProps": {f"p{i}": "v" for i in range(65)}},
     "kmsProps"),
    ({"name": "ok", "kmsType": "local-kms", "kmsKeyId": "k", "kmsProps": {"p" * 256: "v"}}, "kmsProps"),
    ({"name": "ok", "kmsType": "local-kms", "kmsKeyId": "k", "kmsProps": {"p": "v" * 16_385}}, "kmsProps"),
    ({"name": "ok", "kmsType": "local-kms", "kmsKeyId": "k", "doc": "d" * 16_385}, "doc"),
])
def test_an_invalid_kek_is_42271_naming_the_field_and_stores_nothing(deks: DekApi, body: dict, field: str) -> None:
    reply = deks.post("/keks", body)
    assert (reply.status, reply.json["error_code"]) == (422, 42271)
    assert reply.json["message"].startswith(field)
    assert deks.get("/keks?deleted=true").json == []


@pytest.mark.parametrize("path, body", [
    ("/keks", {"name": "ok", "kmsType": "local-kms", "kmsKeyId": "k", "doc": "nul\u0000inside"}),
    ("/keks", {"name": "ok", "kmsType": "local-kms", "kmsKeyId": "k", "kmsProps": {"k": "\ud800"}}),
    ("/keks/orders/deks", {"subject": "s", "encryptedKeyMaterial": "nul\u0000"}),
])
def test_text_no_database_can_store_is_refused_and_stores_nothing(deks: DekApi, path: str, body: dict) -> None:
    """Refused by the service (42271 naming the field) or, where the API refuses such strings
    in any body, at the edge (400): either way a 4xx and nothing written, on PostgreSQL too."""
    deks.kek("orders")
    reply = deks.post(path, body)
    assert (reply.status, reply.json["error_code"]) in ((422, 42271), (400, 400))
    assert deks.get("/keks?deleted=true").json == ["orders"]
    assert deks.get("/keks/orders/deks?deleted=true").json == []


def test_kek_fields_at_their_bounds_are_accepted(deks: DekApi) -> None:
    body = {"name": "k" * 64, "kmsType": "local-kms", "kmsKeyId": "arn:" + "k" * 2044, "doc": "d" * 16_384,
            "kmsProps": {("p" * 250) + f"{i:05}": "v" * 16_384 for i in range(64)}}
    assert deks.post("/keks", body).status == 200
    assert deks.put("/keks/" + "k" * 64, {"doc": "d" * 16_385}).json["error_code"] == 42271


def test_a_kek_body_of_the_wrong_json_types_is_a_400(deks: DekApi) -> None:
    reply = deks.post("/keks", {"name": "ok", "kmsType": "local-kms", "kmsKeyId": "k", "shared": "yes"})
    assert reply.status == 400
    assert deks.get("/keks").json == []


def test_creating_an_existing_kek_is_40971_and_a_deleted_one_is_undeleted_by_the_same_create(deks: DekApi) -> None:
    assert deks.kek("orders").status == 200
    again = deks.kek("orders")
    assert (again.status, again.json) == (409, {"error_code": 40971,
                                                "message": "Key 'orders' already exists; use a different value"})
    assert deks.delete("/keks/orders").status == 204
    assert deks.get("/keks/orders").json["error_code"] == 40470
    assert deks.get("/keks/orders?deleted=true").json["deleted"] is True
    assert deks.kek("orders").json["deleted"] is False
    different = deks.post("/keks", {"name": "orders", "kmsType": "local-kms", "kmsKeyId": "other"})
    assert different.status == 409


def test_a_missing_kek_is_40470(deks: DekApi) -> None:
    for reply in (deks.get("/keks/nope"), deks.get("/keks/nope/deks"), deks.put("/keks/nope", {"doc": "x"}),
                  deks.delete("/keks/nope"), deks.post("/keks/nope/undelete"),
                  deks.post("/keks/nope/deks", {"subject": "s", "encryptedKeyMaterial": WRAPPED})):
        assert (reply.status, reply.json) == (404, {"error_code": 40470, "message": "Key 'nope' not found"})


def test_put_changes_only_kms_props_doc_and_shared(deks: DekApi) -> None:
    deks.kek("orders")
    changed = deks.put("/keks/orders", {"doc": "new", "kmsKeyId": "ignored", "shared": True}).json
    assert (changed["doc"], changed["kmsKeyId"], changed["shared"]) == ("new", "orders-id", True)
    assert deks.get("/keks/orders").json == changed


def test_a_kek_is_deleted_soft_then_permanently_and_not_while_deks_use_it(deks: DekApi) -> None:
    deks.kek("orders")
    deks.post("/keks/orders/deks", {"subject": "s", "encryptedKeyMaterial": WRAPPED})
    refused = deks.delete("/keks/orders")
    assert (refused.status, refused.json["error_code"]) == (422, 42272)
    assert refused.json["message"] == "One or more references exist to the key orders"
    assert deks.delete("/keks/orders/deks/s").status == 204
    assert deks.delete("/keks/orders").status == 204
    # a soft-deleted DEK still holds it against a permanent delete
    assert deks.delete("/keks/orders?permanent=true").json["error_code"] == 42272
    assert deks.delete("/keks/orders/deks/s?permanent=true").status == 204
    assert deks.delete("/keks/orders?permanent=true").status == 204
    assert deks.get("/keks/orders?deleted=true").json["error_code"] == 40470


def test_a_permanent_delete_before_a_soft_one_is_40471(deks: DekApi) -> None:
    deks.kek("orders")
    reply = deks.delete("/keks/orders?permanent=true")
    assert (reply.status, reply.json) == (404, {
        "error_code": 40471, "message": "Key 'orders' was not deleted first before being permanently deleted"})
    deks.post("/keks/orders/deks", {"subject": "s", "encryptedKeyMaterial": WRAPPED})
    assert deks.delete("/keks/orders/deks/s/versions/1?permanent=true").json["error_code"] == 40471


def test_a_dek_is_stored_as_given_and_listed_by_subject_and_version(deks: DekApi) -> None:
    deks.kek("orders")
    created = deks.post("/keks/orders/deks", {"subject": "payments-value", "encryptedKeyMaterial": WRAPPED})
    body = created.json
    assert body == {"kekName": "orders", "subject": "payments-value", "version": 1, "algorithm": "AES256_GCM",
                    "encryptedKeyMaterial": WRAPPED, "ts": body["ts"], "deleted": False}
    assert deks.get("/keks/orders/deks/payments-value").json == body
    assert deks.get("/keks/orders/deks/payments-value/versions/1").json == body
    assert deks.get("/keks/orders/deks").json == ["payments-value"]
    assert deks.get("/keks/orders/deks/payments-value/versions").json == [1]


def test_a_new_version_rotates_the_dek_and_latest_finds_it(deks: DekApi) -> None:
    deks.kek("orders")
    deks.post("/keks/orders/deks", {"subject": "s", "encryptedKeyMaterial": WRAPPED})
    rotated = deks.post("/keks/orders/deks/s", {"version": 2, "encryptedKeyMaterial": "djI="})
    assert rotated.json["version"] == 2
    assert deks.get("/keks/orders/deks/s/versions/latest").json["encryptedKeyMaterial"] == "djI="
    assert deks.get("/keks/orders/deks/s/versions/-1").json["version"] == 2
    assert deks.get("/keks/orders/deks/s/versions").json == [1, 2]
    duplicate = deks.post("/keks/orders/deks/s", {"version": 2, "encryptedKeyMaterial": "djI="})
    assert (duplicate.status, duplicate.json) == (409, {"error_code": 40971,
                                                        "message": "Key 's' already exists; use a different value"})


def test_algorithms_keep_their_deks_apart(deks: DekApi) -> None:
    deks.kek("orders")
    deks.post("/keks/orders/deks", {"subject": "s", "algorithm": "AES256_SIV", "encryptedKeyMaterial": WRAPPED})
    assert deks.get("/keks/orders/deks/s?algorithm=AES256_SIV").json["algorithm"] == "AES256_SIV"
    assert deks.get("/keks/orders/deks/s").json["error_code"] == 40470
    assert deks.get("/keks/orders/deks/s/versions?algorithm=AES256_SIV").json == [1]
    assert deks.get("/keks/orders/deks/s/versions").json == []
    assert deks.get("/keks/orders/deks/s?algorithm=DES").json["error_code"] == 42271


def test_a_dek_without_key_material_under_a_kek_that_is_not_shared_is_42271(deks: DekApi) -> None:
    deks.kek("orders")
    reply = deks.post("/keks/orders/deks", {"subject": "s"})
    assert (reply.status, reply.json) == (422, {"error_code": 42271, "message": "encryptedKeyMaterial"})


@pytest.mark.parametrize("body, field", [
    ({"subject": "", "encryptedKeyMaterial": WRAPPED}, "subject"),
    ({"subject": "bad\u0001subject", "encryptedKeyMaterial": WRAPPED}, "subject"),
    ({"subject": ":*:s", "encryptedKeyMaterial": WRAPPED}, "subject"),
    ({"subject": "s", "version": 0, "encryptedKeyMaterial": WRAPPED}, "version"),
    ({"subject": "s", "algorithm": "ROT13", "encryptedKeyMaterial": WRAPPED}, "algorithm"),
    # Before: accepted and stored (a string version; key material of any size or form).
    ({"subject": "s", "version": "1", "encryptedKeyMaterial": WRAPPED}, "version"),
    ({"subject": "s", "version": 1.5, "encryptedKeyMaterial": WRAPPED}, "version"),
    ({"subject": "s", "version": True, "encryptedKeyMaterial": WRAPPED}, "version"),
    ({"subject": "s", "version": 2**31, "encryptedKeyMaterial": WRAPPED}, "version"),
    ({"subject": "s", "encryptedKeyMaterial": base64.b64encode(b"w" * 2_250_000).decode()}, "encryptedKeyMaterial"),
    ({"subject": "s", "encryptedKeyMaterial": "A" * 16_388}, "encryptedKeyMaterial"),
    ({"subject": "s", "encryptedKeyMaterial": "not base64!"}, "encryptedKeyMaterial"),
    ({"subject": "s", "encryptedKeyMaterial": "d3JhcHBlZA"}, "encryptedKeyMaterial"),  # unpadded
    ({"subject": "s", "encryptedKeyMaterial": ""}, "encryptedKeyMaterial"),
])
def test_an_invalid_dek_is_42271_naming_the_field_and_stores_nothing(deks: DekApi, body: dict, field: str) -> None:
    deks.kek("orders")
    reply = deks.post("/keks/orders/deks", body)
    assert (reply.status, reply.json["error_code"]) == (422, 42271)
    assert reply.json["message"].startswith(field)
    assert deks.get("/keks/orders/deks?deleted=true").json == []


def test_key_material_at_its_bound_is_stored_as_sent(deks: DekApi) -> None:
    deks.kek("orders")
    material = base64.b64encode(b"w" * 12_288).decode()  # 16,384 characters
    reply = deks.post("/keks/orders/deks", {"subject": "s", "version": 2, "encryptedKeyMaterial": material})
    assert (reply.status, reply.json["encryptedKeyMaterial"], reply.json["version"]) == (200, material, 2)


def test_a_wrapped_key_copied_from_another_dek_is_not_unwrapped_under_a_shared_kek(deks: DekApi) -> None:
    """Under the local KMS every KEK wraps with one key: another DEK's material, replayed
    under any shared KEK, would come back unwrapped. Refused, nothing stored."""
    deks.kek("shared1", shared=True)
    deks.kek("shared2", shared=True)
    theirs = deks.post("/keks/shared1/deks/theirs", {}).json["encryptedKeyMaterial"]
    for kek, subject in (("shared2", "mine"), ("shared1", "mine"), ("shared1", "theirs")):
        body = {"subject": subject, "encryptedKeyMaterial": theirs, "version": 1 if subject == "mine" else 2}
        reply = deks.post(f"/keks/{kek}/deks", body)
        assert (reply.status, reply.json["error_code"]) == (422, 42271), (kek, subject)
        assert "keyMaterial" not in reply.json
    assert (deks.get("/keks/shared2/deks?deleted=true").json, deks.get("/keks/shared1/deks?deleted=true").json) == (
        [], ["theirs"])


def test_key_material_a_client_wrapped_under_a_shared_kek_is_stored_and_answered_unwrapped(deks: DekApi) -> None:
    deks.kek("shared1", shared=True)
    raw = b"\x1a\x20" + b"k" * 32
    material = base64.b64encode(client_aead().encrypt(raw, b"")).decode()
    reply = deks.post("/keks/shared1/deks", {"subject": "s", "encryptedKeyMaterial": material})
    assert (reply.status, reply.json["keyMaterial"]) == (200, base64.b64encode(raw).decode())
    assert deks.get("/keks/shared1/deks/s").json["keyMaterial"] == base64.b64encode(raw).decode()
    deks.delete("/keks/shared1/deks/s")
    again = deks.post("/keks/shared1/deks", {"subject": "s", "encryptedKeyMaterial": material})
    assert (again.status, again.json["deleted"]) == (200, False)  # undeleted: the same DEK's own material


def test_a_bad_dek_version_in_the_path_is_42202(deks: DekApi) -> None:
    deks.kek("orders")
    assert deks.get("/keks/orders/deks/s/versions/abc").json["error_code"] == 42202
    assert deks.get("/keks/orders/deks/s/versions/0").json["error_code"] == 42202


def test_deks_are_deleted_soft_undeleted_and_deleted_for_good(deks: DekApi) -> None:
    deks.kek("orders")
    for version in (1, 2):
        deks.post("/keks/orders/deks/s", {"version": version, "encryptedKeyMaterial": WRAPPED})
    assert deks.delete("/keks/orders/deks/s/versions/2").status == 204
    assert deks.get("/keks/orders/deks/s/versions").json == [1]
    assert deks.get("/keks/orders/deks/s/versions?deleted=true").json == [1, 2]
    assert deks.get("/keks/orders/deks/s/versions/2").json["error_code"] == 40470
    assert deks.get("/keks/orders/deks/s/versions/2?deleted=true").json["deleted"] is True
    assert deks.post("/keks/orders/deks/s/versions/2/undelete").status == 204
    assert deks.delete("/keks/orders/deks/s").status == 204
    assert deks.get("/keks/orders/deks").json == []
    assert deks.get("/keks/orders/deks?deleted=true").json == ["s"]
    assert deks.post("/keks/orders/deks/s/undelete").status == 204
    assert deks.get("/keks/orders/deks/s/versions").json == [1, 2]
    deks.delete("/keks/orders/deks/s")
    assert deks.delete("/keks/orders/deks/s?permanent=true").status == 204
    assert deks.get("/keks/orders/deks/s/versions?deleted=true").json == []
    assert deks.delete("/keks/orders/deks/s").json["error_code"] == 40470


def test_a_dek_under_a_deleted_kek_is_undeleted_only_after_the_kek_is_40472(deks: DekApi) -> None:
    deks.kek("orders")
    deks.post("/keks/orders/deks", {"subject": "s", "encryptedKeyMaterial": WRAPPED})
    deks.delete("/keks/orders/deks/s")
    deks.delete("/keks/orders")
    reply = deks.post("/keks/orders/deks/s/undelete")
    assert (reply.status, reply.json) == (404, {"error_code": 40472, "message": "Key 'orders' must be undeleted first"})
    assert deks.post("/keks/orders/undelete").status == 204
    assert deks.post("/keks/orders/deks/s/undelete").status == 204
    assert deks.get("/keks/orders/deks/s").json["deleted"] is False


def test_keks_live_in_contexts_and_a_deks_kek_is_found_in_its_subjects_context(deks: DekApi) -> None:
    assert deks.kek("orders", query="?context=.staging").status == 200
    assert deks.get("/keks").json == []
    assert deks.get("/keks?context=.staging").json == ["orders"]
    assert deks.get("/keks/orders?context=staging").json["name"] == "orders"
    assert deks.post("/keks/orders/deks", {"subject": "s", "encryptedKeyMaterial": WRAPPED}).json["error_code"] == 40470
    created = deks.post("/keks/orders/deks/:.staging:s", {"encryptedKeyMaterial": WRAPPED})
    assert created.json["subject"] == ":.staging:s"
    assert deks.get("/keks/orders/deks?context=.staging").json == [":.staging:s"]
    assert deks.get("/keks/orders/deks/%3A.staging%3As/versions/1").json["version"] == 1


def test_a_shared_kek_generates_the_dek_and_answers_its_key_material_which_the_client_can_unwrap(
    deks: DekApi, dek_app: Flask,
) -> None:
    deks.kek("shared1", shared=True)
    created = deks.post("/keks/shared1/deks", {"subject": "s", "algorithm": "AES128_GCM"}).json
    raw = base64.b64decode(created["keyMaterial"])
    assert raw[:2] == b"\x1a\x10" and len(raw) == 18  # Tink's AesGcmKey with a 16-byte key
    clients = client_aead()
    assert clients.decrypt(base64.b64decode(created["encryptedKeyMaterial"]), b"") == raw
    assert deks.get("/keks/shared1/deks/s?algorithm=AES128_GCM").json["keyMaterial"] == created["keyMaterial"]
    # the client's own wrapping is unwrapped for it too
    mine = base64.b64encode(clients.encrypt(b"my-dek", b"")).decode()
    assert deks.post("/keks/shared1/deks/t", {"encryptedKeyMaterial": mine}).json["keyMaterial"] == (
        base64.b64encode(b"my-dek").decode())
    engine = create_engine(dek_app.config["REGISTRY_SETTINGS"].database_url)
    with engine.connect() as conn:
        stored = " ".join(str(row) for row in conn.execute(text("SELECT * FROM dek_deks")))
        trail = " ".join(str(row) for row in conn.execute(text("SELECT detail FROM audit_events")))
    engine.dispose()
    assert created["keyMaterial"] not in stored and created["keyMaterial"] not in trail
    assert created["encryptedKeyMaterial"] in stored


def test_a_shared_kek_needs_a_kms_driver_for_its_type(deks: DekApi, database_url: str) -> None:
    reply = deks.post("/keks", {"name": "cloud", "kmsType": "aws-kms", "kmsKeyId": "arn:k", "shared": True})
    assert (reply.status, reply.json["error_code"]) == (422, 42271)
    assert "no KMS driver for 'aws-kms'" in reply.json["message"]
    deks.kek("later")
    assert deks.put("/keks/later", {"shared": True}).status == 200  # local-kms has a driver here
    without = make_app(database_url)  # the same database, a server with no local secret
    try:
        other = DekApi(without)
        refused = other.post("/keks/later/deks", {"subject": "s"})
        assert (refused.status, refused.json["error_code"]) == (422, 42271)
        assert other.get("/keks/later/deks?deleted=true").json == []
    finally:
        without.extensions["registry"].storage.close()


@pytest.mark.parametrize("material", [
    base64.b64encode(client_aead("another-secret").encrypt(b"k", b"")).decode(),  # another KMS key
    base64.b64encode(b"x" * 40).decode(),  # base64, but no ciphertext at all
    "not base64!",
], ids=["another-kms-key", "not-a-ciphertext", "not-base64"])
def test_shared_key_material_that_does_not_unwrap_is_42271_and_stores_nothing(deks: DekApi, material: str) -> None:
    """Before: the DEK was stored, the reply was 500, and every later read of it 500 too."""
    deks.kek("shared1", shared=True)
    reply = deks.post("/keks/shared1/deks", {"subject": "s", "encryptedKeyMaterial": material})
    assert (reply.status, reply.json["error_code"]) == (422, 42271)
    assert reply.json["message"].startswith("encryptedKeyMaterial")
    assert deks.get("/keks/shared1/deks?deleted=true").json == []
    assert deks.get("/keks/shared1/deks/s?deleted=true").status == 404


def test_every_change_is_in_the_audit_trail_without_key_material(deks: DekApi, dek_app: Flask) -> None:
    deks.kek("shared1", shared=True)
    deks.post("/keks/shared1/deks/payments-value", {})
    deks.delete("/keks/shared1/deks/payments-value")
    deks.post("/keks/shared1/deks/payments-value/undelete")
    deks.put("/keks/shared1", {"doc": "d"})
    deks.kek("shared1", shared=True)  # refused: 409
    rows = dek_app.test_client().get("/audit").json
    seen = [(r["action"], r["outcome"], r.get("subject"), r.get("version")) for r in reversed(rows)]
    assert seen == [
        ("CREATE_KEK", "success", None, None),
        ("CREATE_DEK", "success", "payments-value", 1),
        ("DELETE_DEK", "success", "payments-value", 1),
        ("UNDELETE_DEK", "success", "payments-value", 1),
        ("UPDATE_KEK", "success", None, None),
        ("CREATE_KEK", "rejected", None, None),
    ]
    assert rows[-1]["detail"] == {"kek": "shared1", "kmsType": "local-kms", "shared": True}
    assert all("keyMaterial" not in str(r.get("detail")) for r in rows)


@pytest.mark.parametrize("path", ["/keks", "/keks/k", "/keks/k/deks"])
def test_a_context_parameter_no_context_could_have_is_42271_on_reads_too(deks: DekApi, path: str) -> None:
    for context in ("%00", "." + "c" * 255):
        reply = deks.get(f"{path}?context={context}")
        assert (reply.status, reply.json["error_code"]) == (422, 42271), context
