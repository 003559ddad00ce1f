"""Version numbering and ids through register, soft delete, hard delete and re-register, step by
step (the rules a scenario of Confluent's RestApiTest also exercises), one test per step.

Each test replays the steps before it and then checks its own step, so a failure names
the first step where the registry departs from the reference. Default context, BACKWARD,
A and B compatible (B adds a field with a default).
"""
from __future__ import annotations

from typing import Callable

import pytest

from api_samples import RECORD_V1 as A, RECORD_V2 as B
from api_client import Api


def step1_register_a_under_s1(api: Api) -> None:
    reply = api.registered("s1", A)
    assert (reply["id"], reply["version"]) == (1, 1)


def step2_register_a_under_s2_reuses_the_id(api: Api) -> None:
    reply = api.registered("s2", A)
    assert (reply["id"], reply["version"]) == (1, 1)


def step3_register_b_under_s1(api: Api) -> None:
    reply = api.registered("s1", B)
    assert (reply["id"], reply["version"]) == (2, 2)


def step4_register_a_again_returns_the_existing_version(api: Api) -> None:
    reply = api.registered("s1", A)
    assert (reply["id"], reply["version"]) == (1, 1)
    assert api.versions("s1").json == [1, 2]


def step5_soft_delete_v2_keeps_its_id_readable(api: Api) -> None:
    reply = api.delete_version("s1", 2)
    assert (reply.status, reply.json) == (200, 2)
    assert api.versions("s1").json == [1]
    assert api.get("/schemas/ids/2").status == 200


def step6_soft_delete_v1_leaves_no_live_version(api: Api) -> None:
    reply = api.delete_version("s1", 1)
    assert (reply.status, reply.json) == (200, 1)
    listing = api.versions("s1")
    assert (listing.status, listing.error_code) == (404, 40401)


def step7_reregister_a_gets_v3_with_the_old_id(api: Api) -> None:
    reply = api.registered("s1", A)
    assert (reply["id"], reply["version"]) == (1, 3)
    assert api.versions("s1").json == [3]
    # The soft-deleted v1 holding the same id was hard-deleted; v2 (id 2) is still soft-deleted.
    assert api.versions("s1", deleted="true").json == [2, 3]
    assert api.version("s1", 1, deleted="true").error_code == 40402


def step8_hard_delete_v2_frees_id_2(api: Api) -> None:
    reply = api.delete_version("s1", 2, permanent="true")
    assert (reply.status, reply.json) == (200, 2)
    assert api.versions("s1", deleted="true").json == [3]
    assert api.get("/schemas/ids/2").error_code == 40403
    again = api.registered("s1", B)
    assert (again["id"], again["version"]) == (3, 4)


STEPS: list[Callable[[Api], None]] = [
    step1_register_a_under_s1,
    step2_register_a_under_s2_reuses_the_id,
    step3_register_b_under_s1,
    step4_register_a_again_returns_the_existing_version,
    step5_soft_delete_v2_keeps_its_id_readable,
    step6_soft_delete_v1_leaves_no_live_version,
    step7_reregister_a_gets_v3_with_the_old_id,
    step8_hard_delete_v2_frees_id_2,
]


@pytest.mark.parametrize("index", range(len(STEPS)), ids=[s.__name__ for s in STEPS])
def test_worked_example_step(api: Api, index: int) -> None:
    for earlier in STEPS[:index]:
        earlier(api)
    STEPS[index](api)
