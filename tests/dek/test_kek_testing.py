"""Testing a shared KEK through the server's KMS: `POST /keks/{name}/test` and `?testSharing=true`
on a KEK's create and update, as Confluent's DekRegistryResource answers them, on SQLite and
PostgreSQL."""
from __future__ import annotations

from collections.abc import Callable, Iterator

import pytest
from dek_support import DekApi, make_app
from flask import Flask

from app.core.dek.kms import Aead, KmsDrivers
from app.core.dek.local_kms import LOCAL_KMS_TYPE, LocalKms
from app.core.dek.records import Kek, KekChanges, KekRequest
from app.core.dek.service import DekRegistryService
from app.core.types import DEFAULT_CONTEXT

CLOUD_KEK = {"name": "cloud", "kmsType": "aws-kms", "kmsKeyId": "arn:aws:kms:k", "shared": True}


@pytest.fixture
def driverless(database_url: str, dek_app: Flask) -> Iterator[DekApi]:
    """The same database as `deks`, served by an instance with no KMS secret (no driver at all)."""
    app = make_app(database_url)
    yield DekApi(app)
    app.extensions["registry"].storage.close()


def test_a_shared_kek_passes_its_test_and_the_reply_is_the_kek_as_get_returns_it(deks: DekApi,
                                                                                dek_app: Flask) -> None:
    deks.kek("shared1", shared=True)
    reply = deks.post("/keks/shared1/test")
    assert reply.status == 200
    assert reply.json == deks.get("/keks/shared1").json
    assert deks.get("/keks/shared1/deks?deleted=true").json == []  # the throwaway DEK is not stored
    actions = [row["action"] for row in dek_app.test_client().get("/audit").json]
    assert actions == ["CREATE_KEK"]  # the test itself is no change


def test_a_kek_that_is_not_shared_is_42271_naming_shared(deks: DekApi) -> None:
    deks.kek("mine")
    reply = deks.post("/keks/mine/test")
    assert (reply.status, reply.json) == (422, {"error_code": 42271, "message": "shared"})


def test_an_unknown_or_deleted_kek_is_40470(deks: DekApi) -> None:
    absent = deks.post("/keks/absent/test")
    assert (absent.status, absent.json["error_code"]) == (404, 40470)
    deks.kek("gone", shared=True)
    assert deks.delete("/keks/gone").status == 204
    reply = deks.post("/keks/gone/test")
    assert (reply.status, reply.json) == (404, {"error_code": 40470, "message": "Key 'gone' not found"})


def test_a_shared_kek_whose_kms_type_has_no_driver_here_is_50070(deks: DekApi, driverless: DekApi) -> None:
    deks.kek("shared1", shared=True)
    reply = driverless.post("/keks/shared1/test")
    assert (reply.status, reply.json["error_code"]) == (500, 50070)
    assert reply.json["message"].startswith("Could not generate encrypted dek for __TEST")
    assert "no KMS driver for 'local-kms'" in reply.json["message"]


def test_the_test_reads_the_kek_in_the_context_given(deks: DekApi) -> None:
    deks.kek("shared1", shared=True, query="?context=.staging")
    assert deks.post("/keks/shared1/test?context=.staging").json["name"] == "shared1"
    assert deks.post("/keks/shared1/test").json["error_code"] == 40470


def test_test_sharing_on_create_writes_a_shared_kek_that_passes(deks: DekApi) -> None:
    created = deks.kek("shared1", shared=True, query="?testSharing=true")
    assert created.status == 200
    assert deks.get("/keks/shared1").json == created.json


def test_test_sharing_on_create_writes_nothing_when_the_test_fails(deks: DekApi, dek_app: Flask) -> None:
    reply = deks.post("/keks?testSharing=true", CLOUD_KEK)
    # Confluent's answer for a KMS the server cannot reach; without the test it is 42271.
    assert (reply.status, reply.json["error_code"]) == (500, 50070)
    assert deks.get("/keks/cloud").json["error_code"] == 40470
    assert deks.get("/keks?deleted=true").json == []
    assert not [row for row in dek_app.test_client().get("/audit").json if row["outcome"] == "success"]


def test_test_sharing_on_create_leaves_a_kek_that_is_not_shared_untested(driverless: DekApi) -> None:
    assert driverless.kek("mine", query="?testSharing=true").json["shared"] is False


def test_test_sharing_on_update_changes_nothing_when_the_test_fails(driverless: DekApi) -> None:
    before = driverless.kek("mine").json
    reply = driverless.put("/keks/mine?testSharing=true", {"shared": True, "doc": "now shared"})
    assert (reply.status, reply.json["error_code"]) == (500, 50070)
    assert driverless.get("/keks/mine").json == before


def test_test_sharing_on_update_writes_the_change_that_passes(deks: DekApi) -> None:
    deks.kek("mine")
    reply = deks.put("/keks/mine?testSharing=true", {"shared": True, "kmsProps": {"region": "eu"}})
    assert reply.status == 200
    assert (reply.json["shared"], reply.json["kmsProps"]) == (True, {"region": "eu"})
    assert deks.get("/keks/mine").json == reply.json


def test_test_sharing_on_update_of_an_unknown_kek_is_40470(deks: DekApi) -> None:
    reply = deks.put("/keks/absent?testSharing=true", {"shared": True})
    assert (reply.status, reply.json["error_code"]) == (404, 40470)


class _ChangingLocalKms:
    """The local KMS, which, the first time it is asked, lets another administrator change the
    KEK's kmsProps: the race between a test and the write that follows it."""

    kms_type = LOCAL_KMS_TYPE

    def __init__(self, change: Callable[[], object]) -> None:
        self._local = LocalKms("secret")
        self._change = change
        self.asked = 0

    def aead(self, kek: Kek) -> Aead:
        self.asked += 1
        if self.asked == 1:
            self._change()
        return self._local.aead(kek)


def test_a_kek_changed_while_it_was_tested_is_tested_again_before_it_is_written(dek_app: Flask) -> None:
    registry = dek_app.extensions["registry"]
    driver = _ChangingLocalKms(
        lambda: registry.deks.update_kek("shared1", KekChanges(kms_props={"by": "other"}), DEFAULT_CONTEXT))
    deks = DekRegistryService(registry.storage, KmsDrivers({LOCAL_KMS_TYPE: driver}))
    deks.create_kek(KekRequest("shared1", LOCAL_KMS_TYPE, "id", shared=True), DEFAULT_CONTEXT)
    updated = deks.update_kek("shared1", KekChanges(doc="tested"), DEFAULT_CONTEXT, test_sharing=True)
    assert driver.asked == 2
    assert (updated.doc, dict(updated.kms_props)) == ("tested", {"by": "other"})
