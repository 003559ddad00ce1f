"""Every row of the authorization table (tests/support/authz_rows.py), allowed and denied, for a subject
of the default context, a qualified subject and the `/contexts/{ctx}/...` path form; a 403
is decided before any lookup, so it is the same whether the subject exists or not.

Each case is one request template with the weakest caller the row allows (who must get the
endpoint's real answer, `allowed`) and the caller just below it (who must get exactly
Confluent's 403). The rows are `support.authz_rows`; the callers and grants `support.guarded.TABLE_FILE`'s."""
from __future__ import annotations

from typing import Any

import pytest

from app.api.authorization import RULES, UNLISTED, rule_for
from app.core.access import Action
from support.authz_rows import (
    OPEN_ROWS,
    RUNGS,
    SERVER_DENIED,
    SERVER_ROWS,
    SPELLINGS,
    SUBJECT,
    SUBJECT_ROWS,
    V1,
    forbidden,
    path_of,
    populate,
    populate_context,
    spelled,
)
from support.guarded import GuardedRegistry


def as_ops(guarded: GuardedRegistry):
    ops = guarded.as_("ops")

    def call(method: str, path: str, body: Any) -> tuple[int, Any]:
        reply = ops.call(method, path, body)
        return reply.status, reply.json

    return call


@pytest.mark.parametrize("spelling", SPELLINGS)
@pytest.mark.parametrize("name", SUBJECT_ROWS)
def test_subject_rows_allow_the_role_and_refuse_the_one_below(
    guarded: GuardedRegistry, name: str, spelling: str
) -> None:
    row, form = SUBJECT_ROWS[name], spelled(spelling, SUBJECT)
    allowed_caller, denied_caller, word = RUNGS[row.need]
    path = path_of(row, form)

    missing = guarded.as_(denied_caller).call(row.method, path, row.body, row.query)
    assert (missing.status, missing.json) == (403, forbidden(word, form.qualified)), missing

    populate(as_ops(guarded), form.context + SUBJECT)
    existing = guarded.as_(denied_caller).call(row.method, path, row.body, row.query)
    assert (existing.status, existing.content_type, existing.raw) == (403, missing.content_type, missing.raw)

    reply = guarded.as_(allowed_caller).call(row.method, path, row.body, row.query)
    assert reply.status == row.allowed, reply


def test_a_grant_in_one_context_does_not_reach_the_same_name_in_another(guarded: GuardedRegistry) -> None:
    """`reader` reads `payments.` in `.` and `.staging` only."""
    populate(as_ops(guarded), ":.prod:" + SUBJECT)
    for path in (f"/subjects/:.prod:{SUBJECT}/versions", f"/contexts/.prod/subjects/{SUBJECT}/versions"):
        reply = guarded.as_("reader").get(path)
        assert (reply.status, reply.json) == (403, forbidden("Read", ":.prod:" + SUBJECT))
    assert guarded.as_("everywhere").get(f"/contexts/.prod/subjects/{SUBJECT}/versions").json == [2]


def test_a_subject_outside_every_pattern_is_refused_even_to_a_writer(guarded: GuardedRegistry) -> None:
    reply = guarded.as_("writer").call("POST", "/subjects/orders-value/versions", {"schema": V1})
    assert (reply.status, reply.json) == (403, forbidden("Write", "orders-value"))


# ---------------------------------------------------------------- any caller past authentication
@pytest.mark.parametrize("caller", ["nobody", "anonymous"])
@pytest.mark.parametrize("path", OPEN_ROWS)
def test_reads_of_the_server_are_open_to_any_caller(guarded: GuardedRegistry, path: str, caller: str) -> None:
    populate_context(as_ops(guarded), ".staging")
    reply = guarded.as_(caller).get(path)
    assert reply.status == 200, reply


# ---------------------------------------------------------------- the server's administrator
@pytest.mark.parametrize("name", SERVER_ROWS)
def test_server_rows_need_a_global_admin(guarded: GuardedRegistry, name: str) -> None:
    method, path, body, allowed = SERVER_ROWS[name]
    # `everywhere` administers every subject of every context, yet not the server.
    for caller in ("everywhere", "owner", "nobody", "anonymous"):
        reply = guarded.as_(caller).call(method, path, body)
        assert (reply.status, reply.json) == (403, SERVER_DENIED), (caller, reply)
    populate(as_ops(guarded), ":.staging:" + SUBJECT)
    populate_context(as_ops(guarded), ".staging")
    reply = guarded.as_("ops").call(method, path, body)
    assert reply.status == allowed, reply


# ---------------------------------------------------------------- the table itself
def test_every_api_route_has_a_row(guarded: GuardedRegistry) -> None:
    """A route added later must be decided on here; until then it is a server admin's alone."""
    endpoints = {r.endpoint for r in guarded.app.url_map.iter_rules() if r.endpoint.startswith("api.")}
    unlisted = sorted(e for e in endpoints if rule_for(e) is UNLISTED)
    assert unlisted == []
    assert {e.removeprefix("api.") for e in endpoints} == set(RULES)


def test_an_unlisted_route_needs_the_servers_administrator() -> None:
    assert UNLISTED.action is Action.ADMIN
    assert rule_for("api.audit.something_new") is UNLISTED


# ---------------------------------------------------------------- behind the real front door
FRONT_DOOR_GRANTS = """
[authentication]
allow_anonymous = true

[[grants]]
principal = "group:payments"
role = "write"
subjects = ["prefix:payments."]

[[grants]]
principal = "anonymous"
role = "read"
subjects = ["prefix:payments."]
"""


def test_the_auth_files_grants_decide_behind_authentication(auth_app) -> None:
    """create_app with REGISTRY_AUTH_FILE: Basic callers and the anonymous one are held to
    the grants of the same file authentication loaded."""
    from auth_support import basic, users_text

    client = auth_app(FRONT_DOOR_GRANTS + users_text()).test_client()

    def register(headers: dict[str, str], subject: str = "payments.orders-value") -> tuple[int, Any]:
        reply = client.post(f"/subjects/{subject}/versions", json={"schema": V1}, headers=headers,
                            content_type="application/vnd.schemaregistry.v1+json")
        return reply.status_code, reply.json

    assert register(basic("alice", "alice-secret"))[0] == 200           # group payments: write
    assert register(basic("bob", "bob-secret")) == (403, forbidden("Write", "payments.orders-value"))
    assert register({}) == (403, forbidden("Write", "payments.orders-value"))
    assert register(basic("alice", "alice-secret"), "orders-value") == (403, forbidden("Write", "orders-value"))
    assert client.get("/subjects/payments.orders-value/versions").json == [1]   # anonymous: read
    assert client.get("/subjects", headers=basic("bob", "bob-secret")).json == []
    assert client.put("/config", json={"compatibility": "NONE"}, headers=basic("alice", "alice-secret"),
                      content_type="application/vnd.schemaregistry.v1+json").json == SERVER_DENIED
