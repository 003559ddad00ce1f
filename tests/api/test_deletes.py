"""Soft and hard deletes: what they hide, what they keep, and the order of checks."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

import pytest

from api_client import Api, Reply
from api_samples import BASE, BASE_NAME, OUTER, RECORD_V1, RECORD_V2

REF = [{"name": BASE_NAME, "subject": "base", "version": 1}]


def _base(api: Api) -> None:
    api.registered("base", BASE)


def _referenced(api: Api) -> None:
    _base(api)
    api.registered("outer", OUTER, references=REF)


def _read_only(subject: str) -> Callable[[Api], None]:
    return lambda api: api.set_mode("READONLY", subject)


def _soft_delete_version(subject: str, version: int) -> Callable[[Api], None]:
    return lambda api: api.delete_version(subject, version)


def _soft_delete_subject(subject: str) -> Callable[[Api], None]:
    return lambda api: api.delete_subject(subject)


@dataclass
class Order:
    name: str
    act: Callable[[Api], Reply]
    code: int
    arrange: list[Callable[[Api], None]] = field(default_factory=list)


# Version delete: 42202 -> soft-deleted & !permanent (40406) -> 40401/40402 -> 42205 -> 42206 -> 40407.
VERSION_ORDER = [
    Order("bad version beats unknown subject", lambda api: api.delete_version("nobody", "zero"), 42202),
    Order("already soft deleted beats READONLY", lambda api: api.delete_version("base", 1), 40406,
          [_base, _soft_delete_version("base", 1), _read_only("base")]),
    Order("unknown subject", lambda api: api.delete_version("nobody", 1), 40401),
    Order("missing version beats READONLY", lambda api: api.delete_version("base", 5), 40402,
          [_base, _read_only("base")]),
    Order("READONLY beats referenced", lambda api: api.delete_version("base", 1), 42205,
          [_referenced, _read_only("base")]),
    Order("referenced beats permanent-on-live", lambda api: api.delete_version("base", 1, permanent="true"),
          42206, [_referenced]),
    Order("permanent on a live version", lambda api: api.delete_version("base", 1, permanent="true"), 40407,
          [_base]),
]

# Subject delete: 40401 -> 40404 -> 42205 -> 42206 (another subject) -> 40405.
SUBJECT_ORDER = [
    Order("no versions at all, even in READONLY", lambda api: api.delete_subject("nobody"), 40401,
          [_read_only("nobody")]),
    Order("already soft deleted beats READONLY", lambda api: api.delete_subject("base"), 40404,
          [_base, _soft_delete_subject("base"), _read_only("base")]),
    Order("READONLY beats referenced", lambda api: api.delete_subject("base"), 42205,
          [_referenced, _read_only("base")]),
    Order("referenced beats permanent-on-live", lambda api: api.delete_subject("base", permanent="true"),
          42206, [_referenced]),
    Order("permanent on a live subject", lambda api: api.delete_subject("base", permanent="true"), 40405,
          [_base]),
]


@pytest.mark.parametrize("order", VERSION_ORDER + SUBJECT_ORDER, ids=lambda o: o.name)
def test_delete_checks_run_in_confluent_order(api: Api, order: Order) -> None:
    for step in order.arrange:
        step(api)
    reply = order.act(api)
    assert reply.error_code == order.code, reply


def test_soft_deleted_version_is_hidden_but_its_id_still_resolves(api: Api) -> None:
    api.registered("s", RECORD_V1)
    second = api.registered("s", RECORD_V2)
    assert api.delete_version("s", 2).json == 2
    assert api.versions("s").json == [1]
    assert api.version("s", "latest").json["version"] == 1
    assert api.version("s", 2).error_code == 40402
    assert api.version("s", 2, deleted="true").json["deleted"] is True
    assert api.get(f"/schemas/ids/{second['id']}").status == 200
    assert api.get(f"/schemas/ids/{second['id']}/subjects").json == []
    assert api.get(f"/schemas/ids/{second['id']}/subjects", deleted="true").json == ["s"]


def test_soft_deleted_subject_leaves_listings_but_keeps_config(api: Api) -> None:
    api.registered("s", RECORD_V1)
    api.set_config("s", compatibility="NONE")
    assert api.delete_subject("s").json == [1]
    assert api.get("/subjects").json == []
    assert api.get("/subjects", deleted="true").json == ["s"]
    assert api.get("/config/s").json == {"compatibilityLevel": "NONE"}


def test_hard_subject_delete_lists_every_version_and_drops_config(api: Api) -> None:
    api.registered("s", RECORD_V1)
    api.registered("s", RECORD_V2)
    api.set_config("s", compatibility="NONE")
    api.delete_subject("s")
    assert sorted(api.delete_subject("s", permanent="true").json) == [1, 2]
    assert api.versions("s", deleted="true").error_code == 40401
    assert api.get("/config/s").error_code == 40408
    assert api.registered("s", RECORD_V1)["version"] == 1  # numbering restarts


def test_hard_deleting_the_highest_version_frees_its_number(api: Api) -> None:
    api.registered("s", RECORD_V1)
    api.registered("s", RECORD_V2)
    api.delete_version("s", 2)
    assert api.delete_version("s", 2, permanent="true").json == 2
    assert api.registered("s", RECORD_V2)["version"] == 2


def test_soft_deleted_numbers_are_never_reused(api: Api) -> None:
    api.registered("s", RECORD_V1)
    api.registered("s", RECORD_V2)
    api.delete_version("s", 2)
    assert api.registered("s", RECORD_V2.replace("f2", "g2"))["version"] == 3


def test_delete_latest_removes_the_highest_live_version(api: Api) -> None:
    api.registered("s", RECORD_V1)
    api.registered("s", RECORD_V2)
    assert api.delete_version("s", "latest").json == 2
    assert api.versions("s").json == [1]


def test_deletes_are_allowed_in_import_mode(api: Api) -> None:
    api.registered("s", RECORD_V1)
    api.set_mode("IMPORT", "s", force="true")
    assert api.delete_version("s", 1).json == 1


def test_soft_delete_is_blocked_only_by_live_referrers(api: Api) -> None:
    _referenced(api)
    api.delete_subject("outer")
    assert api.delete_version("base", 1).json == 1
    # The soft-deleted referrer still blocks the hard delete.
    assert api.delete_version("base", 1, permanent="true").error_code == 42206


def test_references_inside_one_subject_do_not_block_its_deletion(api: Api) -> None:
    api.set_config("both", compatibility="NONE")
    api.registered("both", BASE)
    api.registered("both", OUTER, references=[{"name": BASE_NAME, "subject": "both", "version": 1}])
    assert api.delete_subject("both").json == [1, 2]
