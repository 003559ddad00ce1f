"""Every row of issue 18's authorization table (section 3), allowed and denied, for a subject
of the default context, a qualified subject and the `/contexts/{ctx}/...` path form; a 403
is decided before any lookup, so it is the same whether the subject exists or not.

Each case is one request template with the weakest caller the row allows (who must get the
endpoint's real answer, `allowed`) and the caller just below it (who must get exactly
Confluent's 403). The callers and grants are `conftest.TABLE_FILE`'s."""
from __future__ import annotations

import json
from typing import Any, NamedTuple

import pytest

from app.api.authorization import RULES, UNLISTED, rule_for
from app.core.access import Action
from app.core.registry import RegistryService
from app.core.types import SchemaRequest
from support.guarded import CALLERS, GuardedRegistry

SUBJECT = "payments.orders-value"
OPS = CALLERS["ops"]


def record(*fields: str) -> str:
    return json.dumps({"type": "record", "name": "Order", "fields": [
        {"name": f, "type": "string", "default": ""} for f in fields]})


V1, V2, V3 = record("a"), record("a", "b"), record("a", "b", "c")
TAGS = {"tagsToAdd": [{"schemaEntity": {"entityPath": "Order.a", "entityType": "sr_field"}, "tags": ["PII"]}]}


def populate(service: RegistryService, subject: str) -> None:
    """Two versions (the first soft-deleted, the second with metadata), the subject's own
    config and mode: enough for every row's allowed request to succeed."""
    service.register(subject, SchemaRequest(schema=V1), principal=OPS)
    service.register(subject, SchemaRequest(schema=V2, metadata={"properties": {"team": "payments"}}), principal=OPS)
    service.delete_version(subject, "1", principal=OPS)
    service.update_config(subject, {"compatibility": "BACKWARD"}, principal=OPS)
    service.update_mode(subject, "READWRITE", principal=OPS)


class Row(NamedTuple):
    method: str
    path: str           # `{s}` is the subject segment
    query: str
    body: Any
    need: str           # read | write | admin
    allowed: int        # the status the allowed caller gets


SUBJECT_ROWS = {
    "list_versions": Row("GET", "/subjects/{s}/versions", "", None, "read", 200),
    "get_version": Row("GET", "/subjects/{s}/versions/2", "", None, "read", 200),
    "get_latest_schema": Row("GET", "/subjects/{s}/versions/latest/schema", "", None, "read", 200),
    "referencedby": Row("GET", "/subjects/{s}/versions/1/referencedby", "", None, "read", 200),
    "metadata": Row("GET", "/subjects/{s}/metadata", "key=team&value=payments", None, "read", 200),
    "lookup": Row("POST", "/subjects/{s}", "", {"schema": V2}, "read", 200),
    "check_all": Row("POST", "/compatibility/subjects/{s}/versions", "", {"schema": V3}, "read", 200),
    "check_one": Row("POST", "/compatibility/subjects/{s}/versions/latest", "", {"schema": V3}, "read", 200),
    "get_config": Row("GET", "/config/{s}", "", None, "read", 200),
    "get_mode": Row("GET", "/mode/{s}", "", None, "read", 200),
    "register": Row("POST", "/subjects/{s}/versions", "", {"schema": V3}, "write", 200),
    "register_force": Row("POST", "/subjects/{s}/versions", "force=true", {"schema": V3}, "admin", 200),
    "register_force_false": Row("POST", "/subjects/{s}/versions", "force=false", {"schema": V3}, "write", 200),
    "modify_tags": Row("POST", "/subjects/{s}/versions/2/tags", "", TAGS, "write", 200),
    "delete_subject": Row("DELETE", "/subjects/{s}", "", None, "write", 200),
    # Authorized, then refused by the registry's own rule (40405: delete softly first).
    "delete_subject_permanent": Row("DELETE", "/subjects/{s}", "permanent=true", None, "admin", 404),
    "delete_version": Row("DELETE", "/subjects/{s}/versions/2", "", None, "write", 200),
    "delete_version_permanent": Row("DELETE", "/subjects/{s}/versions/1", "permanent=true", None, "admin", 200),
    "put_config": Row("PUT", "/config/{s}", "", {"compatibility": "FULL"}, "admin", 200),
    "delete_config": Row("DELETE", "/config/{s}", "", None, "admin", 200),
    "put_mode": Row("PUT", "/mode/{s}", "", {"mode": "READONLY"}, "admin", 200),
    "delete_mode": Row("DELETE", "/mode/{s}", "", None, "admin", 200),
}
# (allowed caller, denied caller, the operation word of the refusal)
RUNGS = {"read": ("reader", "nobody", "Read"), "write": ("writer", "reader", "Write"), "admin": ("owner", "writer", "Admin")}


class Spelling(NamedTuple):
    context: str        # where the subject lives
    qualified: str      # how refusals name it
    prefix: str         # put before the path
    segment: str        # what stands for `{s}`


SPELLINGS = {
    "default": Spelling("", SUBJECT, "", SUBJECT),
    "qualified": Spelling(":.staging:", ":.staging:" + SUBJECT, "", ":.staging:" + SUBJECT),
    "path_form": Spelling(":.staging:", ":.staging:" + SUBJECT, "/contexts/.staging", SUBJECT),
}


def forbidden(word: str, subject: str) -> dict[str, Any]:
    return {"error_code": 40301, "message": f"User is denied operation {word} on Subject: {subject}"}


SERVER_DENIED = {"error_code": 40301, "message": "User is denied operation on this server."}


@pytest.mark.parametrize("spelling", SPELLINGS)
@pytest.mark.parametrize("name", SUBJECT_ROWS)
def test_subject_rows_allow_the_role_and_refuse_the_one_below(guarded: GuardedRegistry, name: str, spelling: str) -> None:
    row, form = SUBJECT_ROWS[name], SPELLINGS[spelling]
    allowed_caller, denied_caller, word = RUNGS[row.need]
    path = form.prefix + row.path.replace("{s}", form.segment)

    missing = guarded.as_(denied_caller).call(row.method, path, row.body, row.query)
    assert (missing.status, missing.json) == (403, forbidden(word, form.qualified)), missing

    populate(guarded.service, form.context + SUBJECT)
    existing = guarded.as_(denied_caller).call(row.method, path, row.body, row.query)
    assert (existing.status, existing.content_type, existing.raw) == (403, missing.content_type, missing.raw)

    reply = guarded.as_(allowed_caller).call(row.method, path, row.body, row.query)
    assert reply.status == row.allowed, reply


def test_a_grant_in_one_context_does_not_reach_the_same_name_in_another(guarded: GuardedRegistry) -> None:
    """`reader` reads `payments.` in `.` and `.staging` only."""
    populate(guarded.service, ":.prod:" + SUBJECT)
    for path in (f"/subjects/:.prod:{SUBJECT}/versions", f"/contexts/.prod/subjects/{SUBJECT}/versions"):
        reply = guarded.as_("reader").get(path)
        assert (reply.status, reply.json) == (403, forbidden("Read", ":.prod:" + SUBJECT))
    assert guarded.as_("everywhere").get(f"/contexts/.prod/subjects/{SUBJECT}/versions").json == [2]


def test_a_subject_outside_every_pattern_is_refused_even_to_a_writer(guarded: GuardedRegistry) -> None:
    reply = guarded.as_("writer").call("POST", "/subjects/orders-value/versions", {"schema": V1})
    assert (reply.status, reply.json) == (403, forbidden("Write", "orders-value"))


# ---------------------------------------------------------------- any caller past authentication
OPEN_ROWS = [
    "/", "/schemas/types", "/v1/metadata/id", "/v1/metadata/version", "/v1/metadata/deployment",
    "/config", "/mode", "/subjects", "/schemas", "/contexts", "/config/:.staging:", "/contexts/.staging/mode",
]


@pytest.mark.parametrize("caller", ["nobody", "anonymous"])
@pytest.mark.parametrize("path", OPEN_ROWS)
def test_reads_of_the_server_are_open_to_any_caller(guarded: GuardedRegistry, path: str, caller: str) -> None:
    guarded.service.update_config(":.staging:", {"compatibility": "FULL"}, principal=OPS)
    guarded.service.update_mode(":.staging:", "READWRITE", principal=OPS)
    reply = guarded.as_(caller).get(path)
    assert reply.status == 200, reply


# ---------------------------------------------------------------- the server's administrator
SERVER_ROWS = {
    "put_config": ("PUT", "/config", {"compatibility": "FULL"}, 200),
    "delete_config": ("DELETE", "/config", None, 200),
    "put_mode": ("PUT", "/mode", {"mode": "READWRITE"}, 200),
    "delete_mode": ("DELETE", "/mode", None, 200),
    "put_context_config": ("PUT", "/config/:.staging:", {"compatibility": "FULL"}, 200),
    "delete_context_config": ("DELETE", "/config/:.staging:", None, 200),
    "put_context_mode": ("PUT", "/mode/:.staging:", {"mode": "READWRITE"}, 200),
    "delete_context_mode": ("DELETE", "/mode/:.staging:", None, 200),
    "put_context_config_path_form": ("PUT", "/contexts/.staging/config", {"compatibility": "FULL"}, 200),
    "delete_context_mode_path_form": ("DELETE", "/contexts/.staging/mode", None, 200),
    "put_global_context_config": ("PUT", "/config/:.__GLOBAL:", {"compatibility": "FULL"}, 200),
    "put_global_context_mode": ("PUT", "/mode/:.__GLOBAL:", {"mode": "READWRITE"}, 200),
    "delete_empty_context": ("DELETE", "/contexts/.empty", None, 204),
    # Authorized, then refused by the registry's own rule (42211: the context holds subjects).
    "delete_used_context": ("DELETE", "/contexts/.staging", None, 422),
}


@pytest.mark.parametrize("name", SERVER_ROWS)
def test_server_rows_need_a_global_admin(guarded: GuardedRegistry, name: str) -> None:
    method, path, body, allowed = SERVER_ROWS[name]
    # `everywhere` administers every subject of every context, yet not the server.
    for caller in ("everywhere", "owner", "nobody", "anonymous"):
        reply = guarded.as_(caller).call(method, path, body)
        assert (reply.status, reply.json) == (403, SERVER_DENIED), (caller, reply)
    populate(guarded.service, ":.staging:" + SUBJECT)
    guarded.service.update_config(":.staging:", {"compatibility": "FULL"}, principal=OPS)
    guarded.service.update_mode(":.staging:", "READWRITE", principal=OPS)
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
