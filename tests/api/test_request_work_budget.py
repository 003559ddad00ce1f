"""Every request's work (parsing, policy rules, compatibility checks) runs under a time budget
(`REGISTRY_WORK_BUDGET_SECONDS`): past it the request is refused with 42201 and Confluent's
error shape, and changes nothing.

The budget's CPU clock is the test's own: it advances a tenth of a second at each reading, so a
request's budget (the default 5 s) runs out at its 51st check, on any machine. A record's parse,
canonical form and outline check once per field: a 3-field record takes under ten checks, a
50-field one over a hundred.
"""
from __future__ import annotations

import itertools
import json
from collections.abc import Iterator

import pytest
from flask.testing import FlaskClient

from api_client import Api, enc
from app.server.factory import create_app
from app.formats import work_budget
from app.settings import Settings

SPENT = "longer than the registry allows"


def record(fields: int) -> str:
    return json.dumps({"type": "record", "name": "Rec", "fields": [
        {"name": f"f{i}", "type": "string", "default": ""} for i in range(fields)]})


SMALL, LARGE = record(3), record(50)


@pytest.fixture(autouse=True)
def ticking(monkeypatch: pytest.MonkeyPatch) -> None:
    ticks = itertools.count()
    monkeypatch.setattr(work_budget, "cpu_clock", lambda: next(ticks) / 10)


def assert_spent(reply) -> None:  # type: ignore[no-untyped-def]
    assert reply.status == 422, reply
    assert reply.error_code == 42201
    assert SPENT in reply.json["message"]


def test_a_registration_past_the_budget_is_refused_and_changes_nothing(api: Api) -> None:
    api.registered("s", SMALL)
    before = api.snapshot()

    assert_spent(api.register("s", LARGE))
    assert_spent(api.register("new-subject", LARGE))

    assert api.snapshot() == before


def test_a_compatibility_check_past_the_budget_is_refused_even_when_verbose(api: Api) -> None:
    api.registered("s", SMALL)
    for params in ({}, {"verbose": "true"}):
        assert_spent(api.post(f"/compatibility/subjects/{enc('s')}/versions/latest", {"schema": LARGE}, **params))
        assert_spent(api.post(f"/compatibility/subjects/{enc('s')}/versions", {"schema": LARGE}, **params))


def test_a_lookup_past_the_budget_is_refused(api: Api) -> None:
    api.registered("s", SMALL)
    assert_spent(api.post(f"/subjects/{enc('s')}", {"schema": LARGE}))


def test_a_policy_check_past_the_budget_is_refused(api: Api) -> None:
    assert_spent(api.post(f"/policies/{enc('s')}/check", {"schema": LARGE}))


def test_work_within_the_budget_is_answered(api: Api) -> None:
    assert api.registered("s", SMALL)["version"] == 1
    reply = api.post(f"/compatibility/subjects/{enc('s')}/versions/latest", {"schema": SMALL})
    assert reply.json == {"is_compatible": True}


@pytest.fixture
def unbudgeted(database_url: str) -> Iterator[FlaskClient]:
    app = create_app(Settings(database_url=database_url, work_budget_seconds=0))
    yield app.test_client()
    app.extensions["registry"].storage.close()


def test_a_budget_of_zero_lets_any_work_finish(unbudgeted: FlaskClient) -> None:
    assert Api(unbudgeted).registered("s", LARGE)["version"] == 1


@pytest.mark.parametrize("raw, expected", [("0.001", 0.001), ("0", 0.0), ("12", 12.0)])
def test_the_budget_is_read_from_the_environment(raw: str, expected: float) -> None:
    assert Settings.from_env({"REGISTRY_WORK_BUDGET_SECONDS": raw}).work_budget_seconds == expected


@pytest.mark.parametrize("raw", ["-1", "30", "soon"])
def test_a_budget_that_cannot_end_before_the_worker_timeout_is_refused(raw: str) -> None:
    with pytest.raises(ValueError, match="REGISTRY_WORK_BUDGET_SECONDS"):
        Settings.from_env({"REGISTRY_WORK_BUDGET_SECONDS": raw})


def json_schema_with_patterns(count: int) -> str:
    return json.dumps({"type": "object", "patternProperties": {f"^p{i}_[a-z]+$": {"type": "string"} for i in range(count)}})


def test_a_json_schema_whose_patterns_outrun_the_budget_is_refused_and_changes_nothing(api: Api) -> None:
    """Each pattern is a reading of the budget's clock as it is checked (a request once held
    20,000 and registered after twice the budget)."""
    before = api.snapshot()
    assert_spent(api.post(f"/subjects/{enc('p')}/versions", {"schema": json_schema_with_patterns(100), "schemaType": "JSON"}))
    assert api.snapshot() == before
    reply = api.post(f"/subjects/{enc('p')}/versions", {"schema": json_schema_with_patterns(3), "schemaType": "JSON"})
    assert reply.status == 200, reply
