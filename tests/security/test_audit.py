"""The audit trail, on SQLite and PostgreSQL: one row per change, written by
the change's own transaction; refused write attempts recorded; nothing for reads, lookups,
checks, re-registrations that changed nothing, or 401s; `GET /audit` and its filters."""
from __future__ import annotations

import json
import re
from collections.abc import Iterable, Iterator
from datetime import datetime, timezone
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from sqlalchemy import Engine, text

from app.core.access import Action, Principal
from app.core.audit import iso_time, parse_time
from app.core.errors import Forbidden, RegistryError, StoreError, WriteConflict
from app.core.registry import RegistryService
from app.core.store.audit import AuditEntry, AuditQuery, AuditRow, NO_ORIGIN
from app.core.types import SchemaRequest
from app.server.factory import create_app
from app.settings import Settings
from app.wiring import build_registry
from support.statements import counted

V1 = "application/vnd.schemaregistry.v1+json"
ALICE = Principal("user:alice", frozenset({"group:payments"}), "basic")
ISO_UTC_MS = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z")


def record(name: str, *fields: str) -> str:
    return json.dumps({"type": "record", "name": name, "fields": [
        {"name": f, "type": "string", "default": ""} for f in fields]})


def send(client: FlaskClient, method: str, path: str, body: Any = None, **headers: str) -> Any:
    data = json.dumps(body) if body is not None else None
    return client.open(path, method=method, data=data, headers={"Content-Type": V1, **headers})


def trail(service: RegistryService, **filters: Any) -> list[AuditRow]:
    """Every row, oldest first."""
    return list(reversed(service.storage.audit_events(AuditQuery(limit=1000, **filters))))


def summary(rows: Iterable[AuditRow]) -> list[tuple[Any, ...]]:
    return [(r.entry.action, r.entry.context, r.entry.subject, r.entry.version, r.entry.outcome, r.entry.detail)
            for r in rows]


class DenySecret:
    """Nobody may touch a subject whose name contains "secret"; a subject containing
    "expired" answers like an authentication failure (401) would."""

    def check(self, principal: Principal, action: Action, subject: str) -> None:
        if "expired" in subject:
            raise RegistryError("Unauthorized", error_code=401, http_status=401)
        if "secret" in subject or (action is Action.WRITE_CONFIG and subject == "" and principal.name != "user:ops"):
            raise Forbidden.for_subject(action.value.capitalize(), subject)

    def filter(self, principal: Principal, subjects: Iterable[str]) -> list[str]:
        return [s for s in subjects if "secret" not in s]

    def check_context_admin(self, principal: Principal, context: str) -> None:
        if "secret" in context:
            raise Forbidden.for_context_admin(context)

    def read_scope(self, principal: Principal) -> Principal:
        return principal


@pytest.fixture
def audited(settings: Settings) -> Iterator[tuple[Flask, RegistryService]]:
    """The app with 10.0.0.0/8 as its trusted proxies."""
    app = create_app(settings.with_overrides(trusted_proxies="10.0.0.0/8"))
    yield app, app.extensions["registry"]
    app.extensions["registry"].storage.close()


@pytest.fixture
def guarded(settings: Settings) -> Iterator[tuple[FlaskClient, RegistryService]]:
    """The app behind the DenySecret authorizer."""
    service = build_registry(settings, authorizer=DenySecret())
    app = create_app(settings, registry=service)
    yield app.test_client(), service
    service.storage.close()  # type: ignore[attr-defined]


# ------------------------------------------------------------------ one row per change
def test_each_kind_of_change_writes_one_row_and_reads_checks_and_repeats_write_none(audited) -> None:
    app, service = audited
    client = app.test_client()
    schema = {"schema": record("A", "a")}
    assert send(client, "POST", "/subjects/orders-value/versions", schema).status_code == 200
    # Not recorded: a re-registration that changed nothing, reads, lookups, checks, listings.
    assert send(client, "POST", "/subjects/orders-value/versions", schema).status_code == 200
    assert send(client, "POST", "/subjects/orders-value", schema).status_code == 200
    assert send(client, "POST", "/compatibility/subjects/orders-value/versions/latest", schema).status_code == 200
    assert client.get("/subjects/orders-value/versions/1").status_code == 200
    assert client.get("/subjects").status_code == 200
    assert send(client, "POST", "/subjects/orders-value/versions", {"schema": record("A", "a", "b")}).status_code == 200
    assert send(client, "PUT", "/config/orders-value", {"compatibility": "NONE"}).status_code == 200
    assert send(client, "DELETE", "/config/orders-value").status_code == 200
    assert send(client, "PUT", "/config", {"compatibility": "FULL"}).status_code == 200
    assert send(client, "PUT", "/mode/orders-value", {"mode": "READONLY"}).status_code == 200
    assert send(client, "DELETE", "/mode/orders-value").status_code == 200
    assert send(client, "DELETE", "/subjects/orders-value/versions/2").status_code == 200
    assert send(client, "DELETE", "/subjects/orders-value/versions/2?permanent=true").status_code == 200
    assert send(client, "DELETE", "/subjects/orders-value").status_code == 200
    assert send(client, "DELETE", "/subjects/orders-value?permanent=true").status_code == 200
    assert send(client, "POST", "/contexts/.staging/subjects/s/versions", schema).status_code == 200
    assert send(client, "DELETE", "/subjects/:.staging:s?permanent=false").status_code == 200
    assert send(client, "DELETE", "/subjects/:.staging:s?permanent=true").status_code == 200
    assert send(client, "PUT", "/contexts/.staging/mode", {"mode": "READONLY"}).status_code == 200
    assert send(client, "DELETE", "/contexts/.staging/mode").status_code == 200
    assert send(client, "DELETE", "/contexts/.staging").status_code == 204

    rows = trail(service)
    assert summary(rows) == [
        ("REGISTER", ".", "orders-value", 1, "success", None),
        ("REGISTER", ".", "orders-value", 2, "success", None),
        ("SET_CONFIG", ".", "orders-value", None, "success", {"old": None, "new": {"compatibility": "NONE"}}),
        ("DELETE_CONFIG", ".", "orders-value", None, "success", {"old": {"compatibility": "NONE"}}),
        ("SET_CONFIG", ".", None, None, "success", {"old": None, "new": {"compatibility": "FULL"}}),
        ("SET_MODE", ".", "orders-value", None, "success", {"old": None, "new": "READONLY"}),
        ("DELETE_MODE", ".", "orders-value", None, "success", {"old": "READONLY"}),
        ("DELETE_VERSION", ".", "orders-value", 2, "success", {"permanent": False}),
        ("DELETE_VERSION", ".", "orders-value", 2, "success", {"permanent": True}),
        ("DELETE_SUBJECT", ".", "orders-value", None, "success", {"permanent": False, "versions": [1]}),
        ("DELETE_SUBJECT", ".", "orders-value", None, "success", {"permanent": True, "versions": [1]}),
        ("REGISTER", ".staging", ":.staging:s", 1, "success", None),
        ("DELETE_SUBJECT", ".staging", ":.staging:s", None, "success", {"permanent": False, "versions": [1]}),
        ("DELETE_SUBJECT", ".staging", ":.staging:s", None, "success", {"permanent": True, "versions": [1]}),
        ("SET_MODE", ".staging", None, None, "success", {"old": None, "new": "READONLY"}),
        ("DELETE_MODE", ".staging", None, None, "success", {"old": "READONLY"}),
        ("DELETE_CONTEXT", ".staging", None, None, "success", None),
    ]
    first = rows[0].entry
    assert first.schema_id == 1 and rows[1].entry.schema_id == 2
    assert rows[7].entry.schema_id == 2  # the version deleted held schema 2
    assert (first.principal, first.auth_method, first.origin.method, first.origin.path) == (
        "anonymous", "none", "POST", "/subjects/orders-value/versions")
    # The path as the client wrote it, before the `/contexts/{ctx}/` rewrite.
    assert rows[11].entry.origin.path == "/contexts/.staging/subjects/s/versions"
    # A committed change records the status its route answered, and no error code.
    assert [r.entry.status for r in rows] == [200] * (len(rows) - 1) + [204]
    assert all(r.entry.error_code is None for r in rows)
    assert [r.id for r in rows] == sorted(r.id for r in rows)


def test_forced_and_imported_registrations_carry_their_flags(audited) -> None:
    app, service = audited
    client = app.test_client()
    assert send(client, "POST", "/subjects/f/versions", {"schema": record("A", "a")}).status_code == 200
    incompatible = {"schema": json.dumps({"type": "record", "name": "A", "fields": [{"name": "z", "type": "int"}]})}
    assert send(client, "POST", "/subjects/f/versions?force=true", incompatible).status_code == 200
    assert send(client, "PUT", "/mode/imported", {"mode": "IMPORT"}).status_code == 200
    body = {"schema": record("B", "b"), "id": 100, "version": 3}
    assert send(client, "POST", "/subjects/imported/versions", body).status_code == 200
    rows = trail(service, action="REGISTER")
    skipped = rows[1].entry.detail.pop("skippedIncompatibilities")  # what force let through
    assert "READER_FIELD_MISSING_DEFAULT_VALUE" in skipped[0] and skipped[1] == "{oldSchemaVersion: 1}"
    assert not any('"fields"' in entry for entry in skipped)  # no schema text in the trail
    assert [(r.entry.subject, r.entry.version, r.entry.schema_id, r.entry.detail) for r in rows] == [
        ("f", 1, 1, None),
        ("f", 2, 2, {"force": True}),
        ("imported", 3, 100, {"importedId": 100, "importedVersion": 3}),
    ]


def test_a_tag_edit_is_recorded_as_the_registration_it_makes(audited) -> None:
    app, service = audited
    client = app.test_client()
    assert send(client, "POST", "/subjects/t/versions", {"schema": record("A", "a")}).status_code == 200
    edit = {"tagsToAdd": [{"schemaEntity": {"entityPath": "A", "entityType": "sr_record"}, "tags": ["PII"]}]}
    assert send(client, "POST", "/subjects/t/versions/1/tags", edit).status_code == 200
    last = trail(service)[-1].entry
    assert (last.action, last.subject, last.version, last.detail) == ("REGISTER", "t", 2, {"tagsOnVersion": "1"})
    assert last.origin.path == "/subjects/t/versions/1/tags"


def test_the_caller_and_where_it_called_from_are_recorded(audited) -> None:
    app, service = audited
    client = app.test_client()
    long_agent = "agent/" + "x" * 400
    send(client, "POST", "/subjects/a/versions", {"schema": record("A", "a")},
         **{"User-Agent": long_agent, "X-Forwarded-For": "203.0.113.7, 10.1.1.1"})
    client.environ_base["REMOTE_ADDR"] = "10.2.3.4"  # a trusted proxy
    send(client, "POST", "/subjects/b/versions", {"schema": record("B", "b")},
         **{"X-Forwarded-For": "203.0.113.7, 10.1.1.1"})
    service.register("c", SchemaRequest(schema=record("C", "c")), principal=ALICE)  # no request at all
    untrusted, trusted, direct = (r.entry for r in trail(service))
    assert untrusted.origin.remote_addr == "127.0.0.1"
    assert untrusted.origin.forwarded_for is None  # 127.0.0.1 is not in 10.0.0.0/8
    assert untrusted.origin.user_agent == long_agent[:200]
    assert (trusted.origin.remote_addr, trusted.origin.forwarded_for) == ("10.2.3.4", "203.0.113.7, 10.1.1.1")
    assert (direct.principal, direct.auth_method, direct.origin.path) == ("user:alice", "basic", None)


# ------------------------------------------------------------------ same transaction
def refuse_audit_inserts(engine: Engine) -> None:
    """From now on the database refuses every audit insert, as a constraint violation."""
    with engine.begin() as conn:
        if conn.dialect.name == "sqlite":
            conn.execute(text("CREATE TRIGGER refuse_audit BEFORE INSERT ON audit_events "
                              "BEGIN SELECT RAISE(ABORT, 'audit refused'); END"))
        else:
            conn.execute(text("CREATE FUNCTION refuse_audit() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN "
                              "RAISE EXCEPTION 'audit refused' USING ERRCODE = 'check_violation'; END $$"))
            conn.execute(text("CREATE TRIGGER refuse_audit BEFORE INSERT ON audit_events "
                              "FOR EACH ROW EXECUTE FUNCTION refuse_audit()"))


def test_a_failing_audit_insert_rolls_the_change_back(audited) -> None:
    _, service = audited
    service.register("kept", SchemaRequest(schema=record("A", "a")))
    service.update_config("kept", {"compatibility": "NONE"})
    before = trail(service)
    engine: Engine = service.storage.engine  # type: ignore[attr-defined]
    refuse_audit_inserts(engine)

    changes = [
        lambda: service.register("new", SchemaRequest(schema=record("B", "b"))),
        lambda: service.register("kept", SchemaRequest(schema=record("A", "a", "b"))),
        lambda: service.delete_version("kept", "1"),
        lambda: service.delete_subject("kept"),
        lambda: service.update_config("kept", {"compatibility": "FULL"}),
        lambda: service.delete_config("kept"),
        lambda: service.update_mode(None, "READONLY"),
    ]
    for change in changes:
        with pytest.raises((StoreError, WriteConflict)):
            change()
    assert service.list_subjects() == ["kept"]
    assert service.list_versions("kept") == [1]
    assert service.get_config("kept") == {"compatibility": "NONE"}
    assert service.get_mode(None) == "READWRITE"
    with engine.connect() as conn:
        assert conn.execute(text("SELECT count(*) FROM subject_versions")).scalar() == 1
    assert trail(service) == before


# ------------------------------------------------------------------ refused attempts
def test_rejected_write_attempts_get_a_row_of_their_own(audited) -> None:
    app, service = audited
    client = app.test_client()
    send(client, "POST", "/subjects/r/versions", {"schema": record("A", "a")})
    incompatible = {"schema": json.dumps({"type": "record", "name": "A", "fields": [{"name": "z", "type": "int"}]})}
    assert send(client, "POST", "/subjects/r/versions", incompatible).status_code == 409
    assert send(client, "POST", "/subjects/r/versions", {"schema": "{not avro"}).status_code == 422
    assert send(client, "DELETE", "/subjects/nowhere?permanent=true").status_code == 404
    assert send(client, "DELETE", "/subjects/r/versions/7").status_code == 404
    assert send(client, "PUT", "/config/r", {"compatibility": "SIDEWAYS"}).status_code == 422
    assert send(client, "PUT", "/mode", {"mode": "SOMETIMES"}).status_code == 422
    # Reads, lookups and checks that fail are not attempts to change anything.
    assert client.get("/subjects/nowhere/versions").status_code == 404
    assert send(client, "POST", "/subjects/nowhere", {"schema": record("A", "a")}).status_code == 404
    assert send(client, "POST", "/compatibility/subjects/r/versions/9", {"schema": record("A", "a")}).status_code == 404

    refused = [(r.entry.action, r.entry.subject, r.entry.version, r.entry.status, r.entry.error_code,
                r.entry.detail) for r in trail(service, outcome="rejected")]
    assert refused == [
        ("REGISTER", "r", None, 409, 40901, None),
        ("REGISTER", "r", None, 422, 42201, None),
        ("DELETE_SUBJECT", "nowhere", None, 404, 40401, {"permanent": True}),
        ("DELETE_VERSION", "r", 7, 404, 40402, None),
        ("SET_CONFIG", "r", None, 422, 42203, None),
        ("SET_MODE", None, None, 422, 42204, None),
    ]
    assert {r.entry.outcome for r in trail(service)} == {"success", "rejected"}


def test_a_refused_attempt_on_a_name_no_database_stores_still_gets_its_row(audited) -> None:
    app, service = audited
    client = app.test_client()
    reply = send(client, "POST", "/subjects/bad%00name%FF/versions", {"schema": record("A", "a")})
    assert 400 <= reply.status_code < 500
    (row,) = trail(service)
    assert row.entry.outcome == "rejected" and row.entry.status == reply.status_code
    assert row.entry.subject is not None and "\x00" not in row.entry.subject


def test_denied_write_attempts_are_recorded_and_401s_are_not(guarded) -> None:
    client, service = guarded
    body = {"schema": record("A", "a")}
    assert send(client, "POST", "/subjects/secret-value/versions", body).get_json()["error_code"] == 40301
    assert send(client, "DELETE", "/subjects/secret-value?permanent=true").status_code == 403
    assert send(client, "PUT", "/config", {"compatibility": "NONE"}).status_code == 403
    assert send(client, "POST", "/subjects/expired-value/versions", body).status_code == 401
    assert send(client, "POST", "/subjects/public-value/versions", body).status_code == 200
    assert client.get("/subjects/secret-value/versions").status_code == 403  # a read: not recorded
    assert summary(trail(service)) == [
        ("REGISTER", ".", "secret-value", None, "denied", None),
        ("DELETE_SUBJECT", ".", "secret-value", None, "denied", {"permanent": True}),
        ("SET_CONFIG", ".", None, None, "denied", None),
        ("REGISTER", ".", "public-value", 1, "success", None),
    ]
    assert {(r.entry.status, r.entry.error_code) for r in trail(service, outcome="denied")} == {(403, 40301)}


# ------------------------------------------------------------------ GET /audit
def seed_for_listing(service: RegistryService) -> list[AuditRow]:
    service.register("a-value", SchemaRequest(schema=record("A", "a")), principal=ALICE)
    service.register("b-value", SchemaRequest(schema=record("B", "b")))
    service.update_config("a-value", {"compatibility": "NONE"}, principal=ALICE)
    service.delete_subject("b-value")
    service.register(":.ctx:a-value", SchemaRequest(schema=record("A", "a")), principal=ALICE)
    return trail(service)


def ids(reply: Any) -> list[int]:
    assert reply.status_code == 200, reply.get_json()
    return [item["id"] for item in reply.get_json()]


def test_audit_lists_newest_first_with_confluent_style_keys(audited) -> None:
    app, service = audited
    rows = seed_for_listing(service)
    reply = app.test_client().get("/audit")
    assert reply.headers["Content-Type"].startswith(V1)
    items = reply.get_json()
    assert [i["id"] for i in items] == [r.id for r in reversed(rows)]
    assert items[-1] == {
        "id": rows[0].id, "ts": iso_time(rows[0].ts), "principal": "user:alice", "authMethod": "basic",
        "action": "REGISTER", "context": ".", "subject": "a-value", "version": 1, "schemaId": 1,
        "outcome": "success",
    }
    assert items[1]["detail"] == {"permanent": False, "versions": [1]}


def test_audit_filters_by_subject_principal_action_outcome_and_time(audited) -> None:
    app, service = audited
    client = app.test_client()
    rows = seed_for_listing(service)
    by_id = {r.id: r for r in rows}
    assert [by_id[i].entry.action for i in ids(client.get("/audit?subject=a-value"))] == ["SET_CONFIG", "REGISTER"]
    assert [by_id[i].entry.subject for i in ids(client.get("/audit?subject=:.ctx:a-value"))] == [":.ctx:a-value"]
    assert len(ids(client.get("/audit?principal=user:alice"))) == 3
    assert len(ids(client.get("/audit?action=REGISTER"))) == 3
    assert ids(client.get("/audit?outcome=denied")) == []
    assert len(ids(client.get("/audit?outcome=success&principal=anonymous"))) == 2
    third = rows[2]
    since_ms = ids(client.get(f"/audit?since={third.ts}"))
    since_iso = ids(client.get("/audit", query_string={"since": iso_time(third.ts)}))
    assert since_ms == since_iso and third.id in since_ms
    assert all(by_id[i].ts >= third.ts for i in since_ms)
    until = ids(client.get("/audit", query_string={"until": iso_time(third.ts)}))
    assert third.id in until and all(by_id[i].ts <= third.ts for i in until)
    assert ids(client.get(f"/audit?since={rows[-1].ts + 1}")) == []
    assert ids(client.get("/audit?offset=1&limit=2")) == [r.id for r in reversed(rows)][1:3]
    assert ids(client.get("/audit?limit=0")) == []


def test_audit_limit_defaults_to_100_and_stops_at_1000(audited) -> None:
    app, service = audited
    entry = AuditEntry(action="REGISTER", principal="user:alice", auth_method="basic", origin=NO_ORIGIN)
    for _ in range(1005):
        service.storage.append_audit(entry)
    client = app.test_client()
    assert len(ids(client.get("/audit"))) == 100
    assert len(ids(client.get("/audit?limit=5000"))) == 1000


@pytest.mark.parametrize("query, name", [
    ("since=yesterday", "since"), ("until=2026-13-40T00:00:00Z", "until"), ("limit=-1", "limit"),
    ("limit=ten", "limit"), ("offset=1.5", "offset"), ("action=DROP_TABLE", "action"), ("outcome=maybe", "outcome"),
    # past Java's int (a larger offset overflowed PostgreSQL's bigint: 500), and a digit int() cannot read
    ("offset=605106761742015791104", "offset"), ("limit=2147483648", "limit"), ("offset=²", "offset"),
])
def test_a_bad_audit_parameter_is_a_400_naming_it(client: FlaskClient, query: str, name: str) -> None:
    reply = client.get(f"/audit?{query}")
    assert reply.status_code == 400
    body = reply.get_json()
    assert set(body) == {"error_code", "message"} and body["error_code"] == 400
    assert body["message"].startswith(f"Invalid value for {name}: {query.split('=', 1)[1]}")


def test_audit_is_for_global_administrators_only(guarded) -> None:
    client, service = guarded
    reply = client.get("/audit")
    assert (reply.status_code, reply.get_json()["error_code"]) == (403, 40301)
    ops = Principal("user:ops", method="basic")
    assert service.audit_events(AuditQuery(), principal=ops) == []


# ------------------------------------------------------------------ times
def test_times_are_iso_8601_utc_with_milliseconds_and_read_back_in_any_offset() -> None:
    moment = datetime(2026, 11, 25, 13, 12, 19, 123000, tzinfo=timezone.utc)
    ms = int(moment.timestamp() * 1000)
    assert iso_time(ms) == "2026-11-25T13:12:19.123Z" and ISO_UTC_MS.fullmatch(iso_time(ms))
    for spelling in ("2026-11-25T13:12:19.123Z", "2026-11-25T14:12:19.123+01:00", "2026-11-25T13:12:19.123",
                     str(ms)):
        assert parse_time(spelling) == ms, spelling
    assert parse_time("2026-11-25") == int(datetime(2026, 11, 25, tzinfo=timezone.utc).timestamp() * 1000)


def test_a_rows_time_is_when_it_was_written(audited) -> None:
    _, service = audited
    before = datetime.now(timezone.utc).timestamp() * 1000
    service.register("x", SchemaRequest(schema=record("A", "a")))
    after = datetime.now(timezone.utc).timestamp() * 1000
    (row,) = trail(service)
    assert before - 1 <= row.ts <= after + 1


# ------------------------------------------------------------------ cost and the switch
def statements_of(engine: Engine, action: Any) -> list[str]:
    with counted(engine) as seen:
        action()
    return seen


def test_the_trail_costs_a_registration_at_most_one_statement_and_can_be_switched_off(settings: Settings) -> None:
    """SQLite runs the audit insert as a statement of its own; PostgreSQL writes the row in
    the statement that stores the version (app/storage/version_writes.py), so there the trail
    costs no statement at all."""
    costs = {}
    for enabled in (True, False):
        service = build_registry(settings.with_overrides(audit=enabled))
        try:
            subject, name = f"cost-{enabled}", f"Cost{int(enabled)}"  # new content on each pass
            first = service.register(subject, SchemaRequest(schema=record(name, "a")))  # warm the caches
            second = SchemaRequest(schema=record(name, "a", "b"))
            registered = []
            statements = statements_of(service.storage.engine,  # type: ignore[attr-defined]
                                       lambda: registered.append(service.register(subject, second)))
            costs[enabled] = statements
            if not enabled:
                assert trail(service, subject=subject) == []
            else:
                rows = [(r.entry.version, r.entry.schema_id) for r in trail(service, subject=subject)]
                assert rows == [(1, first.id), (2, registered[0].id)]
        finally:
            service.storage.close()  # type: ignore[attr-defined]
    own_statement = settings.database_url.startswith("sqlite")
    assert len(costs[True]) == len(costs[False]) + (1 if own_statement else 0)
    writing = [s for s in costs[True] if "INSERT INTO audit_events" in s]
    assert len(writing) == 1
    assert writing[0].lstrip().startswith("INSERT INTO audit_events") == own_statement
    assert not any("audit_events" in s for s in costs[False])


# ------------------------------------------------------------------ under gunicorn
@pytest.fixture(scope="module")
def proxied_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """`sqlregistry serve` on SQLite with the loopback as its trusted proxy."""
    from support.live import start_server

    workdir = tmp_path_factory.mktemp("audit-live")
    server = start_server(f"sqlite:///{workdir / 'registry.db'}", workdir / "server.log", workers=1,
                          env={"REGISTRY_TRUSTED_PROXIES": "127.0.0.0/8, ::1"})
    yield server.url
    server.stop()


def test_under_gunicorn_the_peer_the_proxys_client_and_the_path_as_sent_are_recorded(proxied_server: str) -> None:
    import urllib.request

    def call(method: str, path: str, body: Any = None) -> Any:
        request = urllib.request.Request(
            proxied_server + path, method=method, data=None if body is None else json.dumps(body).encode(),
            headers={"Content-Type": V1, "User-Agent": "audit-test/1.0", "X-Forwarded-For": "198.51.100.9"},
        )
        with urllib.request.urlopen(request, timeout=30) as reply:
            return json.loads(reply.read() or b"null")

    call("POST", "/contexts/.live/subjects/a%2Fb/versions", {"schema": record("A", "a")})
    (entry,) = call("GET", "/audit?subject=:.live:a/b")
    assert entry["remoteAddr"] == "127.0.0.1" and entry["forwardedFor"] == "198.51.100.9"
    assert entry["userAgent"] == "audit-test/1.0" and entry["method"] == "POST"
    assert entry["path"] == "/contexts/.live/subjects/a%2Fb/versions"
    assert (entry["context"], entry["subject"], entry["version"]) == (".live", ":.live:a/b", 1)
    assert ISO_UTC_MS.fullmatch(entry["ts"])


def test_versions_removed_for_good_as_a_side_effect_are_named_in_the_row(audited) -> None:
    """Switching to IMPORT purges soft-deleted versions; re-registering a soft-deleted
    schema replaces its old version: both are part of the recorded change."""
    app, service = audited
    client = app.test_client()
    first, second = {"schema": record("A", "a")}, {"schema": record("A", "a", "b")}
    send(client, "POST", "/subjects/again/versions", first)
    send(client, "POST", "/subjects/again/versions", second)
    send(client, "DELETE", "/subjects/again/versions/1")
    assert send(client, "POST", "/subjects/again/versions", first).get_json()["version"] == 3
    send(client, "POST", "/subjects/gone/versions", first)
    send(client, "DELETE", "/subjects/gone")
    send(client, "DELETE", "/subjects/again")
    assert send(client, "PUT", "/mode", {"mode": "IMPORT"}).status_code == 200
    rows = trail(service)
    assert rows[3].entry.action == "REGISTER" and rows[3].entry.detail == {"purgedVersions": [1]}
    assert rows[-1].entry.action == "SET_MODE"
    assert rows[-1].entry.detail == {"old": None, "new": "IMPORT", "purged": {"again": [2, 3], "gone": [1]}}


def test_trusted_proxies_are_cidrs_and_a_bad_one_is_refused_at_start_naming_the_variable() -> None:
    settings = Settings.from_env({"REGISTRY_TRUSTED_PROXIES": "10.0.0.0/8, 192.0.2.1, ::1", "REGISTRY_AUDIT": "false"})
    assert [str(n) for n in settings.trusted_proxy_networks] == ["10.0.0.0/8", "192.0.2.1/32", "::1/128"]
    assert settings.audit is False
    with pytest.raises(ValueError, match="REGISTRY_TRUSTED_PROXIES"):
        Settings.from_env({"REGISTRY_TRUSTED_PROXIES": "10.0.0.0/33"})
