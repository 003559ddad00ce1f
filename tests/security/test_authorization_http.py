"""The authorization table over real HTTPS: `sqlregistry serve` (gunicorn, two workers, the
test PKI's server certificate) with REGISTRY_AUTH_FILE set, each caller proving who it is
with Basic credentials, on SQLite and on PostgreSQL.

The rows are those of the in-process run (`support.authz_rows`); the server is shared by the
module, so every case works on subjects of its own."""
from __future__ import annotations

import json
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import requests
from auth_support import hashed, serve_with_auth_file

from support.reloads import wait_for_every_worker
from support.authz_rows import (
    RUNGS,
    SERVER_DENIED,
    SERVER_ROWS,
    SPELLINGS,
    SUBJECT_ROWS,
    V1,
    V2,
    forbidden,
    path_of,
    populate,
    populate_context,
    spelled,
)
from support.live import start_server, start_tls_server
from support.pki import TestPki

V1_JSON = "application/vnd.schemaregistry.v1+json"
# The callers of `support.guarded.TABLE_FILE`, as an operator writes them.
AUTH_FILE = """
[authentication]
methods = ["basic"]

{users}

[[grants]]
principal = "user:ops"
role = "admin"
scope = "global"

[[grants]]
principal = "user:reader"
role = "read"
subjects = ["prefix:payments."]
contexts = [".", ".staging"]

[[grants]]
principal = "group:publishers"
role = "write"
subjects = ["prefix:payments."]
contexts = [".", ".staging"]

[[grants]]
principal = "user:owner"
role = "admin"
subjects = ["prefix:payments."]
contexts = [".", ".staging"]

[[grants]]
principal = "user:everywhere"
role = "admin"
subjects = ["*"]
contexts = ["*"]
"""
GROUPS = {"writer": ["publishers"]}
NAMES = ("nobody", "reader", "writer", "owner", "everywhere", "ops")


def users() -> str:
    return "\n".join(
        f'[[users]]\nname = "{name}"\npassword = "{hashed(name + "-secret")}"\ngroups = {GROUPS.get(name, [])!r}\n'
        .replace("'", '"')
        for name in NAMES
    )


class Server:
    """The registry over HTTPS: every caller checks the server's certificate against `ca`."""

    def __init__(self, url: str, ca: Path) -> None:
        self.url = url
        self.ca = ca
        self.sessions: dict[str, requests.Session] = {}

    def as_(self, name: str) -> requests.Session:
        if name not in self.sessions:
            session = requests.Session()
            session.auth = (name, name + "-secret")
            self.sessions[name] = session
        return self.sessions[name]

    def call(self, name: str, method: str, path: str, body: Any = None, query: str = "") -> requests.Response:
        headers = {"Content-Type": V1_JSON} if body is not None else {}
        target = self.url + path + (f"?{query}" if query else "")
        # Per request: a session's `verify` loses to REQUESTS_CA_BUNDLE when that is set.
        return self.as_(name).request(method, target, json=body, headers=headers, timeout=30, verify=str(self.ca))

    def ops(self, method: str, path: str, body: Any) -> tuple[int, Any]:
        reply = self.call("ops", method, path, body)
        return reply.status_code, reply.text


@pytest.fixture(scope="module", params=[
    pytest.param("sqlite", id="sqlite"), pytest.param("postgres", id="postgres", marks=pytest.mark.postgres)])
def server(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory, pki: TestPki) -> Iterator[Server]:
    workdir: Path = tmp_path_factory.mktemp(f"authz-{request.param}")
    auth_file = workdir / "auth.toml"
    auth_file.write_text(AUTH_FILE.format(users=users()))
    if request.param == "sqlite":
        url, cleanup = f"sqlite:///{workdir / 'registry.db'}", None
    else:
        cluster = request.getfixturevalue("pg_cluster")
        name = cluster.create_database("authz")
        url, cleanup = cluster.url(name), lambda: cluster.drop_database(name)
    live = start_tls_server(url, workdir / "server.log", pki, cert_reqs=0, env={"REGISTRY_AUTH_FILE": str(auth_file)})
    served = Server(live.url, pki.ca.cert_path)
    try:
        yield served
    finally:
        for session in served.sessions.values():
            session.close()
        live.stop()
        if cleanup is not None:
            cleanup()


def fresh_subject(name: str) -> str:
    return f"payments.{name}-{uuid.uuid4().hex[:8]}"


@pytest.mark.parametrize("spelling", SPELLINGS)
@pytest.mark.parametrize("name", SUBJECT_ROWS)
def test_subject_rows_over_http(server: Server, name: str, spelling: str) -> None:
    row, form = SUBJECT_ROWS[name], spelled(spelling, fresh_subject(name))
    allowed_caller, denied_caller, word = RUNGS[row.need]
    path = path_of(row, form)

    missing = server.call(denied_caller, row.method, path, row.body, row.query)
    assert (missing.status_code, missing.json()) == (403, forbidden(word, form.qualified)), missing.text
    assert missing.headers["Content-Type"] == V1_JSON

    populate(server.ops, form.qualified)
    existing = server.call(denied_caller, row.method, path, row.body, row.query)
    assert (existing.status_code, existing.content) == (403, missing.content)

    reply = server.call(allowed_caller, row.method, path, row.body, row.query)
    assert reply.status_code == row.allowed, reply.text


@pytest.mark.parametrize("name", SERVER_ROWS)
def test_server_rows_over_http(server: Server, name: str) -> None:
    method, path, body, allowed = SERVER_ROWS[name]
    for caller in ("everywhere", "owner", "nobody"):
        reply = server.call(caller, method, path, body)
        assert (reply.status_code, reply.json()) == (403, SERVER_DENIED), (caller, reply.text)
    populate(server.ops, ":.staging:" + fresh_subject(name))
    populate_context(server.ops, ".staging")
    reply = server.call("ops", method, path, body)
    assert reply.status_code == allowed, reply.text


def test_lists_over_http_show_only_what_the_caller_may_read(server: Server) -> None:
    readable, hidden = fresh_subject("list"), f"orders.list-{uuid.uuid4().hex[:8]}"
    for subject in (readable, hidden):
        assert server.ops("POST", f"/subjects/{subject}/versions", {"schema": V1})[0] == 200
    listed = server.call("reader", "GET", "/subjects").json()
    assert readable in listed and hidden not in listed
    assert hidden in server.call("ops", "GET", "/subjects").json()
    assert server.call("nobody", "GET", "/subjects").json() == []


def test_the_confluent_client_sees_a_denied_write_as_403_40301(server: Server) -> None:
    from confluent_kafka.schema_registry import Schema, SchemaRegistryClient
    from confluent_kafka.schema_registry.error import SchemaRegistryError

    subject = fresh_subject("client")
    tls = {"url": server.url, "ssl.ca.location": str(server.ca)}
    reader = SchemaRegistryClient({**tls, "basic.auth.user.info": "reader:reader-secret"})
    writer = SchemaRegistryClient({**tls, "basic.auth.user.info": "writer:writer-secret"})
    try:
        with pytest.raises(SchemaRegistryError) as raised:
            reader.register_schema(subject, Schema(V1, "AVRO"))
        assert (raised.value.http_status_code, raised.value.error_code) == (403, 40301)
        assert raised.value.error_message == f"User is denied operation Write on Subject: {subject}"
        schema_id = writer.register_schema(subject, Schema(V2, "AVRO"))
        assert json.loads(reader.get_schema(schema_id).schema_str) == json.loads(V2)
        assert reader.get_latest_version(subject).schema_id == schema_id
    finally:
        reader.close()
        writer.close()


# ---------------------------------------------------------------- grants changed under a running server
def test_a_changed_grant_is_in_force_on_both_workers_without_a_restart(tmp_path: Path) -> None:
    """Granted, then revoked, by rewriting the file: each state holds on every one of 30
    fresh connections (both workers) once every worker has looked at the file again."""
    def file(role: str) -> str:
        return (f'[[users]]\nname = "carol"\npassword = "{hashed("carol-secret")}"\ngroups = ["payments"]\n'
                f'[[grants]]\nprincipal = "group:payments"\nrole = "{role}"\nsubjects = ["prefix:payments."]\n')

    live = serve_with_auth_file(tmp_path, file("read"))
    subject = fresh_subject("reload")

    def register() -> int:
        return requests.post(f"{live.url}/subjects/{subject}/versions", json={"schema": V1},
                             auth=("carol", "carol-secret"), headers={"Content-Type": V1_JSON}, timeout=10).status_code

    def in_force_within(expected: int) -> None:
        wait_for_every_worker(lambda: register() == expected)
        assert [register() for _ in range(30)] == [expected] * 30

    try:
        assert register() == 403
        (tmp_path / "auth.toml").write_text(file("write"))
        in_force_within(200)
        (tmp_path / "auth.toml").write_text(file("read"))
        in_force_within(403)
    finally:
        live.stop()
