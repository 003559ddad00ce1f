"""Who may do what in the DEK registry, with the auth file's grants (`support.guarded`'s
table: `ops` administers the server, `owner`, `writer` and `reader` hold admin, write and read
on the `payments.` subjects; here each also holds that role on the `pay_` KEKs, while
`everywhere`, admin of every subject of every context, holds no KEK), on both databases."""
from __future__ import annotations

import base64
from collections.abc import Iterator

import pytest
from dek_support import SECRET

from app.settings import Settings
from support.grants import auth_file, grant
from support.guarded import TABLE_FILE, GuardedRegistry, guarded_app

ROOT = "/dek-registry/v1"
WRAPPED = base64.b64encode(b"wrapped").decode()
SUBJECT_DENIED = "User is denied operation {} on Subject: {}"
KEK_DENIED = "User is denied operation {} on Kek: {}"
KEK_FILE = auth_file(
    *TABLE_FILE.grants,
    grant("user:reader", "read", keks=("prefix:pay_",), contexts=(".", ".staging")),
    grant("group:publishers", "write", keks=("prefix:pay_",), contexts=(".", ".staging")),
    grant("user:owner", "admin", keks=("prefix:pay_",), contexts=(".", ".staging")),
)


@pytest.fixture
def guarded(database_url: str) -> Iterator[GuardedRegistry]:
    app = guarded_app(Settings(database_url=database_url, kms_local_secret=SECRET), lambda: KEK_FILE)
    registry = GuardedRegistry(app)
    registry.as_("ops").call("POST", ROOT + "/keks", {"name": "pay_k", "kmsType": "local-kms", "kmsKeyId": "id"})
    yield registry
    app.extensions["registry"].storage.close()


def kek_body(name: str, shared: bool = False) -> dict[str, object]:
    return {"name": name, "kmsType": "local-kms", "kmsKeyId": "id", "shared": shared}


@pytest.mark.parametrize("caller", ["everywhere", "writer", "reader", "nobody"])
def test_kek_changes_need_admin_on_the_kek(guarded: GuardedRegistry, caller: str) -> None:
    """Before: only global administrators; a subject's admin (`everywhere`) is no KEK's."""
    who = guarded.as_(caller)
    attempts = [
        who.call("POST", ROOT + "/keks", kek_body("pay_k2")),
        who.call("PUT", ROOT + "/keks/pay_k", {"doc": "mine now"}),
        who.call("DELETE", ROOT + "/keks/pay_k"),
        who.call("POST", ROOT + "/keks/pay_k/undelete"),
    ]
    assert [(r.status, r.json["message"]) for r in attempts] == [
        (403, KEK_DENIED.format("Admin", "pay_k2"))] + [(403, KEK_DENIED.format("Admin", "pay_k"))] * 3
    assert guarded.as_("ops").get(ROOT + "/keks").json == ["pay_k"]


def test_an_admin_of_a_kek_creates_changes_and_deletes_it_and_no_other(guarded: GuardedRegistry) -> None:
    owner = guarded.as_("owner")
    assert owner.call("POST", ROOT + "/keks", kek_body("pay_k2")).status == 200
    assert owner.call("PUT", ROOT + "/keks/pay_k2", {"doc": "owned"}).json["doc"] == "owned"
    assert owner.call("DELETE", ROOT + "/keks/pay_k2").status == 204
    assert owner.call("POST", ROOT + "/keks/pay_k2/undelete").status == 204
    assert owner.call("POST", ROOT + "/keks", kek_body("pay_k3"), query="context=.staging").status == 200
    refused = [owner.call("POST", ROOT + "/keks", kek_body("ops_k")),
               owner.call("POST", ROOT + "/keks", kek_body("pay_k4"), query="context=.other")]
    assert [(r.status, r.json["message"]) for r in refused] == [
        (403, KEK_DENIED.format("Admin", "ops_k")), (403, KEK_DENIED.format("Admin", "pay_k4"))]
    assert guarded.as_("ops").get(ROOT + "/keks").json == ["pay_k", "pay_k2"]


def test_keks_are_listed_and_read_only_by_those_granted_them(guarded: GuardedRegistry) -> None:
    """Before: every authenticated caller listed and read every KEK, kmsProps included."""
    ops = guarded.as_("ops")
    ops.call("POST", ROOT + "/keks", {**kek_body("ops_k"), "kmsProps": {"endpoint": "https://kms.internal"}})
    assert ops.get(ROOT + "/keks").json == ["ops_k", "pay_k"]
    for caller in ("reader", "writer", "owner"):
        who = guarded.as_(caller)
        assert who.get(ROOT + "/keks").json == ["pay_k"], caller
        assert who.get(ROOT + "/keks/pay_k").json["name"] == "pay_k"
        refused = who.get(ROOT + "/keks/ops_k")
        assert (refused.status, refused.json["message"]) == (403, KEK_DENIED.format("Read", "ops_k"))
    for caller in ("everywhere", "nobody"):
        who = guarded.as_(caller)
        assert who.get(ROOT + "/keks").json == [], caller
        assert who.get(ROOT + "/keks/pay_k").status == 403
        assert who.get(ROOT + "/keks/pay_k/deks").status == 403


def test_a_subject_writer_without_a_kek_grant_makes_no_dek(guarded: GuardedRegistry) -> None:
    """Before: write on a subject was all a DEK needed, under any KEK."""
    everywhere = guarded.as_("everywhere")
    for path, body in ((ROOT + "/keks/pay_k/deks/payments.v", {"encryptedKeyMaterial": WRAPPED}),
                       (ROOT + "/keks/pay_k/deks", {"subject": "payments.v", "encryptedKeyMaterial": WRAPPED})):
        refused = everywhere.call("POST", path, body)
        assert (refused.status, refused.json["message"]) == (403, KEK_DENIED.format("Write", "pay_k"))
    assert guarded.as_("ops").get(ROOT + "/keks/pay_k/deks", query="deleted=true").json == []


def test_a_dek_needs_write_on_its_subject_and_its_kek_and_read_on_both_to_read(guarded: GuardedRegistry) -> None:
    writer, reader, nobody = guarded.as_("writer"), guarded.as_("reader"), guarded.as_("nobody")
    assert writer.call("POST", ROOT + "/keks/pay_k/deks/payments.v", {"encryptedKeyMaterial": WRAPPED}).status == 200
    assert writer.call("POST", ROOT + "/keks/pay_k/deks", {"subject": "payments.w",
                                                           "encryptedKeyMaterial": WRAPPED}).status == 200
    for path, body in ((ROOT + "/keks/pay_k/deks/orders.v", {"encryptedKeyMaterial": WRAPPED}),
                       (ROOT + "/keks/pay_k/deks", {"subject": "orders.v", "encryptedKeyMaterial": WRAPPED})):
        refused = writer.call("POST", path, body)
        assert (refused.status, refused.json["message"]) == (403, SUBJECT_DENIED.format("Write", "orders.v"))
    refused = reader.call("POST", ROOT + "/keks/pay_k/deks/payments.x", {"encryptedKeyMaterial": WRAPPED})
    assert refused.json["message"] == SUBJECT_DENIED.format("Write", "payments.x")
    assert reader.get(ROOT + "/keks/pay_k/deks/payments.v").json["encryptedKeyMaterial"] == WRAPPED
    assert reader.get(ROOT + "/keks/pay_k/deks/payments.v/versions").json == [1]
    assert nobody.get(ROOT + "/keks/pay_k/deks/payments.v").status == 403
    assert reader.get(ROOT + "/keks/pay_k/deks").json == ["payments.v", "payments.w"]
    # `everywhere` reads every subject, but not the KEK: neither the DEK nor its subjects.
    refused = guarded.as_("everywhere").get(ROOT + "/keks/pay_k/deks/payments.v")
    assert (refused.status, refused.json["message"]) == (403, KEK_DENIED.format("Read", "pay_k"))


def test_deleting_a_dek_needs_write_and_a_permanent_delete_admin_on_its_subject_and_kek(
        guarded: GuardedRegistry) -> None:
    writer, owner, reader = guarded.as_("writer"), guarded.as_("owner"), guarded.as_("reader")
    writer.call("POST", ROOT + "/keks/pay_k/deks/payments.v", {"encryptedKeyMaterial": WRAPPED})
    assert reader.call("DELETE", ROOT + "/keks/pay_k/deks/payments.v").status == 403
    refused = guarded.as_("everywhere").call("DELETE", ROOT + "/keks/pay_k/deks/payments.v")
    assert (refused.status, refused.json["message"]) == (403, KEK_DENIED.format("Write", "pay_k"))
    assert writer.call("DELETE", ROOT + "/keks/pay_k/deks/payments.v").status == 204
    assert writer.call("POST", ROOT + "/keks/pay_k/deks/payments.v/undelete").status == 204
    assert writer.call("DELETE", ROOT + "/keks/pay_k/deks/payments.v/versions/1").status == 204
    denied = writer.call("DELETE", ROOT + "/keks/pay_k/deks/payments.v/versions/1?permanent=true")
    assert (denied.status, denied.json["message"]) == (403, SUBJECT_DENIED.format("Admin", "payments.v"))
    assert owner.call("DELETE", ROOT + "/keks/pay_k/deks/payments.v/versions/1?permanent=true").status == 204


def test_refused_key_changes_are_denied_rows_in_the_audit_trail(guarded: GuardedRegistry) -> None:
    guarded.as_("everywhere").call("DELETE", ROOT + "/keks/pay_k")
    guarded.as_("reader").call("POST", ROOT + "/keks/pay_k/deks/payments.v", {"encryptedKeyMaterial": WRAPPED})
    rows = guarded.as_("ops").get("/audit").json
    refused = [(r["action"], r["outcome"], r["principal"], r.get("subject")) for r in rows if r["outcome"] != "success"]
    assert refused == [("CREATE_DEK", "denied", "user:reader", "payments.v"),
                       ("DELETE_KEK", "denied", "user:everywhere", None)]


@pytest.mark.parametrize("caller, status", [("owner", 200), ("writer", 200), ("reader", 200), ("ops", 200),
                                            ("everywhere", 403), ("nobody", 403), ("anonymous", 403)])
def test_testing_a_kek_needs_what_reading_it_needs_and_leaves_no_audit_row(guarded: GuardedRegistry,
                                                                           caller: str, status: int) -> None:
    ops, who = guarded.as_("ops"), guarded.as_(caller)
    ops.call("POST", ROOT + "/keks", kek_body("pay_s", shared=True))
    before = ops.get("/audit").json
    tested, read = who.call("POST", ROOT + "/keks/pay_s/test"), who.get(ROOT + "/keks/pay_s")
    assert (tested.status, tested.json) == (read.status, read.json)
    assert tested.status == status
    if status == 200:
        refused = who.call("POST", ROOT + "/keks/pay_k/test")  # not shared: refused as a request, not as a caller
        assert (refused.status, refused.json["error_code"]) == (422, 42271)
    assert ops.get("/audit").json == before


@pytest.mark.parametrize("method, path", [("POST", "/keks"), ("PUT", "/keks/pay_k")])
def test_test_sharing_does_not_open_kek_changes_to_other_callers(guarded: GuardedRegistry, method: str,
                                                                 path: str) -> None:
    body = kek_body("pay_k2", shared=True) if method == "POST" else {"shared": True}
    refused = guarded.as_("reader").call(method, ROOT + path, body, query="testSharing=true")
    assert (refused.status, refused.json["error_code"]) == (403, 40301)
    assert guarded.as_("owner").call(method, ROOT + path, body, query="testSharing=true").json["shared"] is True


def test_keks_of_a_context_the_caller_cannot_see_are_not_listed_nor_read(guarded: GuardedRegistry) -> None:
    """Before: any caller listed the KEKs (with kmsProps) of contexts `GET /contexts` hid from it.
    `reader` holds its KEK grant in `.staging` too, but sees that context only once it holds a
    subject there that the reader may read."""
    ops, reader = guarded.as_("ops"), guarded.as_("reader")
    ops.call("POST", ROOT + "/keks", {**kek_body("pay_t"), "kmsProps": {"role": "arn:staging"}},
             query="context=.staging")
    assert ".staging" not in reader.get("/contexts").json
    assert reader.get(ROOT + "/keks", query="context=.staging").json == []
    hidden = reader.get(ROOT + "/keks/pay_t", query="context=.staging")
    assert (hidden.status, hidden.json["error_code"]) == (404, 40470)
    assert ops.call("POST", "/subjects/:.staging:payments.s/versions", {"schema": '"string"'}).status == 200
    assert ".staging" in reader.get("/contexts").json
    assert reader.get(ROOT + "/keks", query="context=.staging").json == ["pay_t"]
    assert reader.get(ROOT + "/keks/pay_t", query="context=.staging").json["kmsProps"] == {"role": "arn:staging"}
