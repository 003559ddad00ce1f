"""Write attempts refused before a route matched (denied and rejected write attempts
after authentication get an audit row of their own): a body over the size limit and a
context name with a colon, which WSGI middleware refuses before Flask routes the request,
and a write method that matched no endpoint (routing's 404 and 405). Each gets exactly one
row, after authentication; reads, lookups, the open paths and 401s get none. Also: the
route table names the audit action of every API route a write method reaches."""
from __future__ import annotations

import http.client
import json
import urllib.request
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from auth_support import basic, users_text
from flask import Flask
from flask.testing import FlaskClient

from app.api.authorization import API_BLUEPRINT, WRITE_METHODS, rule_for
from app.core.registry import RegistryService
from app.core.store.audit import AuditQuery, AuditRow
from app.server.factory import create_app
from app.settings import Settings

V1 = "application/vnd.schemaregistry.v1+json"
LIMIT = 4096
SCHEMA = {"schema": json.dumps({"type": "record", "name": "A", "fields": [{"name": "a", "type": "string"}]})}
ALICE = basic("alice", "alice-secret")  # group ops: global admin
BOB = basic("bob", "bob-secret")        # reads everything, writes nothing


def auth_file() -> str:
    return f"""
    [authentication]
    methods = ["basic"]
    {users_text()}
    [[grants]]
    principal = "group:ops"
    role = "admin"
    scope = "global"

    [[grants]]
    principal = "user:bob"
    role = "read"
    subjects = ["*"]
    contexts = ["*"]
    """


@pytest.fixture
def secured(auth_app: Callable[..., Flask]) -> tuple[FlaskClient, RegistryService]:
    app = auth_app(auth_file(), max_request_bytes=LIMIT)
    return app.test_client(), app.extensions["registry"]


def send(client: FlaskClient, method: str, path: str, body: Any = None, headers: dict[str, str] | None = None,
         data: bytes | None = None) -> Any:
    if body is not None:
        data = json.dumps(body).encode()
    return client.open(path, method=method, data=data, headers={"Content-Type": V1, **(headers or {})})


def trail(service: RegistryService) -> list[AuditRow]:
    """Every row, oldest first."""
    return list(reversed(service.storage.audit_events(AuditQuery(limit=1000))))


def rows(service: RegistryService) -> list[tuple[Any, ...]]:
    return [(r.entry.action, r.entry.context, r.entry.subject, r.entry.principal, r.entry.origin.method,
             r.entry.origin.path, r.entry.outcome, r.entry.status, r.entry.error_code) for r in trail(service)]


def test_write_attempts_refused_before_a_route_matched_get_one_row_each(secured) -> None:
    client, service = secured
    oversized = b'{"schema": "' + b"x" * LIMIT + b'"}'
    replies = [
        send(client, "PUT", "/subjects/orders-value/versions", SCHEMA, ALICE),               # 405
        send(client, "POST", "/subjects/orders-value/versionz", SCHEMA, ALICE),              # 404
        send(client, "POST", "/contexts/.a:b/subjects/orders-value/versions", SCHEMA, ALICE),  # colon
        send(client, "DELETE", "/contexts/.a:b", headers=ALICE),
        send(client, "PUT", "/contexts/a:b/config", {"compatibility": "NONE"}, ALICE),
        send(client, "POST", "/subjects/orders-value/versions", headers=ALICE, data=oversized),  # 413
        send(client, "POST", "/contexts/.staging/subjects/orders-value/versions", headers=BOB, data=oversized),
    ]
    assert [r.status_code for r in replies] == [405, 404, 400, 400, 400, 413, 413]
    assert all(set(r.get_json()) == {"error_code", "message"} for r in replies)
    alice, bob = "user:alice", "user:bob"
    assert rows(service) == [
        ("UNKNOWN_OPERATION", None, None, alice, "PUT", "/subjects/orders-value/versions", "rejected", 405, 405),
        ("UNKNOWN_OPERATION", None, None, alice, "POST", "/subjects/orders-value/versionz", "rejected", 404, 404),
        ("REGISTER", None, None, alice, "POST", "/contexts/.a:b/subjects/orders-value/versions", "rejected",
         400, 400),
        ("DELETE_CONTEXT", None, None, alice, "DELETE", "/contexts/.a:b", "rejected", 400, 400),
        ("SET_CONFIG", None, None, alice, "PUT", "/contexts/a:b/config", "rejected", 400, 400),
        ("REGISTER", ".", "orders-value", alice, "POST", "/subjects/orders-value/versions", "rejected", 413, 413),
        ("REGISTER", ".staging", ":.staging:orders-value", bob, "POST",
         "/contexts/.staging/subjects/orders-value/versions", "rejected", 413, 413),
    ]
    assert all(r.entry.auth_method == "basic" for r in trail(service))


def test_reads_lookups_and_the_open_paths_refused_before_routing_get_no_row(secured) -> None:
    client, service = secured
    oversized = b"x" * (LIMIT + 1)
    replies = [
        send(client, "GET", "/contexts/.a:b/subjects", headers=ALICE),                       # a read
        send(client, "GET", "/nowhere", headers=ALICE),                                      # a read
        send(client, "POST", "/contexts/.a:b/subjects/orders-value", SCHEMA, ALICE),         # a lookup
        send(client, "POST", "/compatibility/subjects/:.a:b:x/versions", headers=ALICE, data=oversized),  # a check
        send(client, "POST", "/health/live", headers=ALICE),
        send(client, "POST", "/metrics", headers=ALICE),
        send(client, "POST", "/openapi.json"),
        send(client, "POST", "/health/ready", data=oversized),
    ]
    assert [r.status_code for r in replies] == [400, 404, 400, 413, 405, 405, 405, 413]
    assert trail(service) == []


def test_without_credentials_these_requests_get_401_first_and_no_row(secured) -> None:
    client, service = secured
    replies = [
        send(client, "POST", "/contexts/.a:b/subjects/orders-value/versions", SCHEMA),
        send(client, "DELETE", "/contexts/a:b"),
        send(client, "POST", "/subjects/orders-value/versions", data=b"x" * (LIMIT + 1)),
        send(client, "PUT", "/subjects/orders-value/versions", SCHEMA),
        send(client, "POST", "/nowhere", SCHEMA, basic("alice", "wrong")),
    ]
    assert [(r.status_code, r.get_json()) for r in replies] == [
        (401, {"error_code": 401, "message": "Unauthorized"})] * len(replies)
    assert all(r.headers.get_all("WWW-Authenticate") == ['Basic realm="sqlregistry", charset="UTF-8"']
               for r in replies)
    assert trail(service) == []


def test_without_an_auth_file_the_anonymous_callers_refused_attempts_are_recorded_too(settings: Settings) -> None:
    app = create_app(settings.with_overrides(max_request_bytes=LIMIT))
    service: RegistryService = app.extensions["registry"]
    try:
        client = app.test_client()
        assert send(client, "DELETE", "/contexts/x:y").status_code == 400
        assert send(client, "POST", "/subjects/s/versions", data=b"x" * (LIMIT + 1)).status_code == 413
        assert [(r.entry.action, r.entry.principal, r.entry.auth_method, r.entry.status) for r in trail(service)] == [
            ("DELETE_CONTEXT", "anonymous", "none", 400), ("REGISTER", "anonymous", "none", 413)]
    finally:
        service.storage.close()  # type: ignore[attr-defined]


# Routes a POST reaches that read: lookups, compatibility and policy checks, Confluent's `POST /`,
# a KEK's test, a batch of association reads, an impact check.
READING_POSTS = frozenset({
    "subjects.lookup", "compatibility.check_against_all", "compatibility.check_against_one", "policies.check",
    "server.root_post", "dek_registry.test_kek", "associations.batch_get_associations",
    "impact.candidate_impact",
})


def test_the_route_table_names_the_audit_action_of_every_route_a_write_method_reaches(app: Flask) -> None:
    unaudited = []
    for rule in app.url_map.iter_rules():
        if not rule.endpoint.startswith(API_BLUEPRINT + ".") or not (rule.methods or set()) & WRITE_METHODS:
            continue
        name = rule.endpoint.removeprefix(API_BLUEPRINT + ".")
        audited = rule_for(rule.endpoint).audited
        if (audited is None) != (name in READING_POSTS):
            unaudited.append(name)
    assert unaudited == []
    assert rule_for("api.contexts.delete_context").success_status == 204
    assert {rule_for(e).success_status for e in ("api.subjects.register", "api.config.put_config")} == {200}


# ------------------------------------------------------------------ under gunicorn
@pytest.fixture(scope="module")
def live_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """`sqlregistry serve` on SQLite, without an auth file, with a 4 KiB body limit."""
    from support.live import start_server

    workdir = tmp_path_factory.mktemp("refusals-live")
    server = start_server(f"sqlite:///{workdir / 'registry.db'}", workdir / "server.log", workers=1,
                          env={"REGISTRY_MAX_REQUEST_BYTES": str(LIMIT)})
    yield server.url
    server.stop()


def test_under_gunicorn_a_declared_or_chunked_oversized_body_and_a_colon_context_get_one_row_each(
    live_url: str,
) -> None:
    host, port = live_url.removeprefix("http://").split(":")

    def status(method: str, path: str, body: bytes | Iterator[bytes] | None = None, chunked: bool = False) -> int:
        connection = http.client.HTTPConnection(host, int(port), timeout=30)
        try:
            connection.request(method, path, body=body, headers={"Content-Type": V1}, encode_chunked=chunked)
            return connection.getresponse().status
        finally:
            connection.close()

    too_big = b"x" * (LIMIT + 1)
    assert status("POST", "/subjects/declared/versions", too_big) == 413
    assert status("POST", "/subjects/chunked/versions", iter([too_big[:1000], too_big[1000:]]), chunked=True) == 413
    assert status("DELETE", "/contexts/.a:b") == 400
    assert status("PATCH", "/config") == 405
    with urllib.request.urlopen(live_url + "/audit", timeout=30) as reply:
        entries = json.loads(reply.read())
    assert [(e["action"], e.get("subject"), e["path"], e["status"]) for e in reversed(entries)] == [
        ("REGISTER", "declared", "/subjects/declared/versions", 413),
        ("REGISTER", "chunked", "/subjects/chunked/versions", 413),
        ("DELETE_CONTEXT", None, "/contexts/.a:b", 400),
        ("UNKNOWN_OPERATION", None, "/config", 405),
    ]
