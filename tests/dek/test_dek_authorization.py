"""Who may do what in the DEK registry, with the auth file's grants (`support.guarded`'s
table: `ops` administers the server, `owner`, `writer` and `reader` hold admin, write and read
on the `payments.` subjects), on both databases."""
from __future__ import annotations

import base64
from collections.abc import Iterator

import pytest
from dek_support import SECRET

from app.settings import Settings
from support.guarded import TABLE_FILE, GuardedRegistry, guarded_app

ROOT = "/dek-registry/v1"
WRAPPED = base64.b64encode(b"wrapped").decode()
SUBJECT_DENIED = "User is denied operation {} on Subject: {}"


@pytest.fixture
def guarded(database_url: str) -> Iterator[GuardedRegistry]:
    app = guarded_app(Settings(database_url=database_url, kms_local_secret=SECRET), lambda: TABLE_FILE)
    registry = GuardedRegistry(app)
    registry.as_("ops").call("POST", ROOT + "/keks", {"name": "k", "kmsType": "local-kms", "kmsKeyId": "id"})
    yield registry
    app.extensions["registry"].storage.close()


@pytest.mark.parametrize("caller", ["owner", "everywhere", "writer", "reader", "nobody"])
def test_only_the_servers_administrators_create_change_and_delete_keks(guarded: GuardedRegistry, caller: str) -> None:
    who = guarded.as_(caller)
    attempts = [
        who.call("POST", ROOT + "/keks", {"name": "k2", "kmsType": "local-kms", "kmsKeyId": "id"}),
        who.call("PUT", ROOT + "/keks/k", {"doc": "mine now"}),
        who.call("DELETE", ROOT + "/keks/k"),
        who.call("POST", ROOT + "/keks/k/undelete"),
    ]
    assert [(r.status, r.json["error_code"]) for r in attempts] == [(403, 40301)] * 4
    assert who.get(ROOT + "/keks").json == ["k"]  # reading KEKs needs only authentication
    assert who.get(ROOT + "/keks/k").status == 200
    ops = guarded.as_("ops")
    assert ops.call("PUT", ROOT + "/keks/k", {"doc": "ops"}).status == 200
    assert ops.call("DELETE", ROOT + "/keks/k").status == 204


def test_a_dek_is_created_with_write_and_read_with_read_on_its_subject(guarded: GuardedRegistry) -> None:
    writer, reader, nobody = guarded.as_("writer"), guarded.as_("reader"), guarded.as_("nobody")
    assert writer.call("POST", ROOT + "/keks/k/deks/payments.v", {"encryptedKeyMaterial": WRAPPED}).status == 200
    assert writer.call("POST", ROOT + "/keks/k/deks", {"subject": "payments.w",
                                                       "encryptedKeyMaterial": WRAPPED}).status == 200
    for path, body in ((ROOT + "/keks/k/deks/orders.v", {"encryptedKeyMaterial": WRAPPED}),
                       (ROOT + "/keks/k/deks", {"subject": "orders.v", "encryptedKeyMaterial": WRAPPED})):
        refused = writer.call("POST", path, body)
        assert (refused.status, refused.json["message"]) == (403, SUBJECT_DENIED.format("Write", "orders.v"))
    refused = reader.call("POST", ROOT + "/keks/k/deks/payments.x", {"encryptedKeyMaterial": WRAPPED})
    assert refused.json["message"] == SUBJECT_DENIED.format("Write", "payments.x")
    assert reader.get(ROOT + "/keks/k/deks/payments.v").json["encryptedKeyMaterial"] == WRAPPED
    assert reader.get(ROOT + "/keks/k/deks/payments.v/versions").json == [1]
    assert nobody.get(ROOT + "/keks/k/deks/payments.v").status == 403
    assert reader.get(ROOT + "/keks/k/deks").json == ["payments.v", "payments.w"]
    assert nobody.get(ROOT + "/keks/k/deks").json == []


def test_deleting_a_dek_needs_write_and_a_permanent_delete_admin_on_its_subject(guarded: GuardedRegistry) -> None:
    writer, owner, reader = guarded.as_("writer"), guarded.as_("owner"), guarded.as_("reader")
    writer.call("POST", ROOT + "/keks/k/deks/payments.v", {"encryptedKeyMaterial": WRAPPED})
    assert reader.call("DELETE", ROOT + "/keks/k/deks/payments.v").status == 403
    assert writer.call("DELETE", ROOT + "/keks/k/deks/payments.v").status == 204
    assert writer.call("POST", ROOT + "/keks/k/deks/payments.v/undelete").status == 204
    assert writer.call("DELETE", ROOT + "/keks/k/deks/payments.v/versions/1").status == 204
    denied = writer.call("DELETE", ROOT + "/keks/k/deks/payments.v/versions/1?permanent=true")
    assert (denied.status, denied.json["message"]) == (403, SUBJECT_DENIED.format("Admin", "payments.v"))
    assert owner.call("DELETE", ROOT + "/keks/k/deks/payments.v/versions/1?permanent=true").status == 204


def test_refused_key_changes_are_denied_rows_in_the_audit_trail(guarded: GuardedRegistry) -> None:
    guarded.as_("owner").call("DELETE", ROOT + "/keks/k")
    guarded.as_("reader").call("POST", ROOT + "/keks/k/deks/payments.v", {"encryptedKeyMaterial": WRAPPED})
    rows = guarded.as_("ops").get("/audit").json
    refused = [(r["action"], r["outcome"], r["principal"], r.get("subject")) for r in rows if r["outcome"] != "success"]
    assert refused == [("CREATE_DEK", "denied", "user:reader", "payments.v"),
                       ("DELETE_KEK", "denied", "user:owner", None)]


@pytest.mark.parametrize("caller", ["owner", "everywhere", "writer", "reader", "nobody", "ops", "anonymous"])
def test_testing_a_kek_needs_what_reading_it_needs_and_leaves_no_audit_row(guarded: GuardedRegistry,
                                                                           caller: str) -> None:
    """Reading a KEK needs only authentication (no credentials at all: the 401 that
    tests/fuzz checks for every operation the document does not mark open)."""
    ops, who = guarded.as_("ops"), guarded.as_(caller)
    ops.call("POST", ROOT + "/keks", {"name": "s", "kmsType": "local-kms", "kmsKeyId": "id", "shared": True})
    before = ops.get("/audit").json
    tested, read = who.call("POST", ROOT + "/keks/s/test"), who.get(ROOT + "/keks/s")
    assert (tested.status, tested.json) == (read.status, read.json)
    assert tested.status == 200
    refused = who.call("POST", ROOT + "/keks/k/test")  # not shared: refused as a request, not as a caller
    assert (refused.status, refused.json["error_code"]) == (422, 42271)
    assert ops.get("/audit").json == before


@pytest.mark.parametrize("method, path", [("POST", "/keks"), ("PUT", "/keks/k")])
def test_test_sharing_does_not_open_kek_changes_to_other_callers(guarded: GuardedRegistry, method: str,
                                                                 path: str) -> None:
    body = {"name": "k2", "kmsType": "local-kms", "kmsKeyId": "id", "shared": True} if method == "POST" else {
        "shared": True}
    refused = guarded.as_("reader").call(method, ROOT + path, body, query="testSharing=true")
    assert (refused.status, refused.json["error_code"]) == (403, 40301)
    assert guarded.as_("ops").call(method, ROOT + path, body, query="testSharing=true").json["shared"] is True
