"""Exporters running between live registries (`sqlregistry serve`, whose worker starts the
runner): what is copied and where, pause and resume, a refusal that stops an exporter in
ERROR until fixed, and (PostgreSQL) a runner killed with SIGKILL replaced by another instance.
Every verdict polls with a generous deadline; the one wait for something NOT to happen is
closed by a witness exporter that copies a later change."""
from __future__ import annotations

import base64
import json
import os
import signal
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import create_engine, text

from support.waiting import wait_for
from support.live import LiveServer, start_server
from transfer_helpers import Rest, record, seg


BOTH = pytest.mark.parametrize("kind", ["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])

V1 = record("Order", ("id", "long"))
V2 = json.dumps({"type": "record", "name": "Order", "namespace": "com.acme",
                 "fields": [{"name": "id", "type": "long"}, {"name": "note", "type": "string", "default": ""}]})


def version(rest: Rest, subject: str, number: int) -> dict[str, Any] | None:
    body = rest.call("GET", f"/subjects/{seg(subject)}/versions/{number}", ok=(200, 404))
    # An unqualified name missing from the default context is answered from another context.
    return None if "error_code" in body or body.get("subject") != subject else body


def exporter(name: str, target: str, **fields: Any) -> dict[str, Any]:
    return {"name": name, "config": {"schema.registry.url": target}, **fields}


def status(rest: Rest, name: str) -> dict[str, Any]:
    return rest.call("GET", f"/exporters/{name}/status")


@BOTH
def test_an_exporter_copies_the_chosen_subjects_with_their_ids_and_follows_changes(registry, kind: str) -> None:
    source, target = Rest(registry(kind)), Rest(registry(kind))
    target.register("unrelated", record("Unrelated", ("x", "int")))  # the target's own id 1 ...
    source.register("filler", record("Filler", ("y", "int")))  # ... so the source's orders get id 2
    first = source.register("orders-value", V1)
    source.register("payments-value", record("Payment", ("id", "long")))
    source.config("orders-value", compatibility="FULL")
    source.call("POST", "/exporters", exporter("plain", target.url, subjects=["orders-*"], contextType="NONE"))

    copied = wait_for("orders-value v1 on the target", lambda: version(target, "orders-value", 1))
    assert copied["id"] == first["id"] == 2
    wait_for("the subject's config copied", lambda: target.call("GET", "/config/orders-value", ok=(200, 404))
             .get("compatibilityLevel") == "FULL")
    # modes are put back after configs (importer.write_plan), so the pass may still be between the two
    wait_for("IMPORT mode undone", lambda: target.call("GET", "/mode/orders-value", ok=(200, 404))
             .get("error_code") == 40409)
    assert version(target, "payments-value", 1) is None  # outside the filter
    assert wait_for("RUNNING", lambda: status(source, "plain")["state"] == "RUNNING")

    second = source.register("orders-value", V2)
    assert wait_for("v2 followed", lambda: version(target, "orders-value", 2))["id"] == second["id"]
    source.delete_version("orders-value", 1)
    wait_for("the soft delete followed", lambda: target.call("GET", "/subjects/orders-value/versions") == [2])
    assert status(source, "plain")["offset"] > 0


@BOTH
def test_renames_and_contexts_land_where_the_context_type_says(registry, kind: str) -> None:
    source, target = Rest(registry(kind)), Rest(registry(kind))
    first = source.register("orders-value", V1)
    source.call("POST", "/exporters", exporter("custom", target.url, subjects=["orders-*"], contextType="CUSTOM",
                                               context="dr", subjectRenameFormat="${subject}-copy"))
    source.call("POST", "/exporters", exporter("auto", target.url, subjects=["orders-*"], contextType="AUTO"))
    assert wait_for("CUSTOM + rename", lambda: version(target, ":.dr:orders-value-copy", 1))["id"] == first["id"]
    assert wait_for("AUTO", lambda: version(target, ":.sqlregistry:orders-value", 1))["id"] == first["id"]
    assert version(target, "orders-value", 1) is None  # nothing in the default context


@BOTH
def test_pause_holds_and_resume_catches_up(registry, kind: str) -> None:
    source, target = Rest(registry(kind)), Rest(registry(kind))
    source.register("orders-value", V1)
    source.call("POST", "/exporters", exporter("held", target.url, subjects=["orders-*"], contextType="NONE"))
    source.call("POST", "/exporters", exporter("witness", target.url, subjects=["probe-*"], contextType="NONE"))
    wait_for("v1 copied", lambda: version(target, "orders-value", 1))
    source.call("PUT", "/exporters/held/pause", {})
    source.register("orders-value", V2)
    source.register("probe-value", record("Probe", ("p", "int")))
    wait_for("the witness copied a later change", lambda: version(target, "probe-value", 1))
    assert version(target, "orders-value", 2) is None
    assert status(source, "held")["state"] == "PAUSED"
    source.call("PUT", "/exporters/held/resume", {})
    wait_for("v2 after resume", lambda: version(target, "orders-value", 2))


@BOTH
def test_a_refused_write_stops_in_error_with_its_trace_and_resumes_once_fixed(registry, kind: str) -> None:
    source, target = Rest(registry(kind)), Rest(registry(kind))
    target.register(":.other:x", record("X", ("x", "int")))
    target.register("clash", record("Theirs", ("t", "int")))  # version 1 of `clash`, other content
    source.register("clash", V1)
    source.call("POST", "/exporters", exporter("strict", target.url, subjects=["clash"], contextType="NONE"))
    failed = wait_for("ERROR", lambda: (s := status(source, "strict"))["state"] == "ERROR" and s)
    assert "VERSION_TAKEN" in failed["trace"] and "clash" in failed["trace"]

    target.delete_version("clash", 1)
    target.delete_version("clash", 1, permanent=True)
    source.call("PUT", "/exporters/strict/resume", {})
    wait_for("RUNNING after the fix", lambda: status(source, "strict")["state"] == "RUNNING")
    assert version(target, "clash", 1)["schema"] == version(source, "clash", 1)["schema"]


@BOTH
def test_wrong_credentials_are_an_error_that_a_new_config_clears(registry, kind: str) -> None:
    source, target = Rest(registry(kind)), Rest(registry(kind))
    source.register("orders-value", V1)
    source.call("POST", "/exporters", exporter("away", "http://127.0.0.1:9", subjects=["orders-*"],
                                               contextType="NONE"))
    failed = wait_for("ERROR", lambda: (s := status(source, "away"))["state"] == "ERROR" and s)
    assert "127.0.0.1:9" in failed["trace"]
    source.call("PUT", "/exporters/away/config", {"schema.registry.url": target.url})
    source.call("PUT", "/exporters/away/reset", {})
    wait_for("copied after the fix", lambda: version(target, "orders-value", 1))


@pytest.fixture
def fleet(pg_cluster: Any, tmp_path: Path) -> Iterator[tuple[str, list[LiveServer]]]:
    name = pg_cluster.create_database("fleet")
    url = pg_cluster.url(name)
    servers = [start_server(url, tmp_path / f"fleet-{i}.log", workers=1) for i in range(2)]
    yield url, servers
    for server in servers:
        server.stop()
    pg_cluster.drop_database(name)


def _children(pid: int) -> list[int]:
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                fields = Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[1]) == pid:
                found.append(int(entry))
    return found


@pytest.mark.postgres
def test_a_killed_runner_is_replaced_by_another_instance(fleet, registry) -> None:
    database, servers = fleet
    target = Rest(registry("postgres"))
    first = Rest(servers[0].url)
    first.register("orders-value", V1)
    first.call("POST", "/exporters", exporter("ha", target.url, subjects=["orders-*"], contextType="NONE"))
    wait_for("v1 copied", lambda: version(target, "orders-value", 1))
    engine = create_engine(database)
    with engine.connect() as conn:
        owner = conn.execute(text("SELECT lease_owner FROM exporters WHERE name = 'ha'")).scalar_one()
    worker = int(owner.split(":")[1])
    holder = next(s for s in servers if worker in _children(s.process.pid))
    survivor = next(s for s in servers if s is not holder)
    os.kill(worker, signal.SIGKILL)
    holder.process.send_signal(signal.SIGKILL)
    holder.process.wait()

    second = Rest(survivor.url).register("orders-value", V2)
    assert wait_for("v2 copied by the survivor", lambda: version(target, "orders-value", 2))["id"] == second["id"]
    with engine.connect() as conn:
        now_owner = conn.execute(text("SELECT lease_owner FROM exporters WHERE name = 'ha'")).scalar_one()
    engine.dispose()
    assert int(now_owner.split(":")[1]) in _children(survivor.process.pid)


@BOTH
def test_an_id_the_target_gave_another_schema_stops_in_error(registry, kind: str) -> None:
    source, target = Rest(registry(kind)), Rest(registry(kind))
    theirs = target.register("theirs", record("Theirs", ("t", "int")))
    mine = source.register("mine", V1)
    assert theirs["id"] == mine["id"]
    source.call("POST", "/exporters", exporter("ids", target.url, subjects=["mine"], contextType="NONE"))
    failed = wait_for("ERROR", lambda: (s := status(source, "ids"))["state"] == "ERROR" and s)
    assert "ID_TAKEN" in failed["trace"] and f"id={mine['id']}" in failed["trace"]
    assert version(target, "mine", 1) is None


@BOTH
def test_refused_credentials_stop_in_error_and_the_right_ones_resume(registry, kind: str) -> None:
    right = "Basic " + base64.b64encode(b"alice:right").decode()
    source, target = Rest(registry(kind)), Rest(registry(kind, authorization=[right]))
    source.register("orders-value", V1)
    source.call("POST", "/exporters", {"name": "auth", "subjects": ["orders-*"], "contextType": "NONE", "config": {
        "schema.registry.url": target.url, "basic.auth.credentials.source": "USER_INFO",
        "basic.auth.user.info": "alice:wrong"}})
    failed = wait_for("ERROR", lambda: (s := status(source, "auth"))["state"] == "ERROR" and s)
    assert "401" in failed["trace"] and "wrong" not in failed["trace"]
    source.call("PUT", "/exporters/auth/config", {"basic.auth.user.info": "alice:right"})
    source.call("PUT", "/exporters/auth/resume", {})
    wait_for("RUNNING", lambda: status(source, "auth")["state"] == "RUNNING")
    target.http.headers["Authorization"] = right
    assert version(target, "orders-value", 1) is not None


def test_exporters_run_under_a_bare_gunicorn_wsgi_app(registry, sqlite_at_head, tmp_path: Path) -> None:
    """No worker hook of ours runs there: a worker starts its runner at its first request."""
    from support.live import launch
    from support.postgres import free_port

    port = free_port()
    command = [sys.executable, "-m", "gunicorn", "--bind", f"127.0.0.1:{port}", "--workers", "1", "wsgi:app"]
    server = launch(command, port, tmp_path / "bare.log", {"REGISTRY_DATABASE_URL": sqlite_at_head(tmp_path / "bare.db"),
                                                           "REGISTRY_METRICS": "false", "REGISTRY_LOG_LEVEL": "warning"})
    try:
        source, target = Rest(server.url), Rest(registry("sqlite"))
        first = source.register("orders-value", V1)
        source.call("POST", "/exporters", exporter("bare", target.url, subjects=["orders-*"], contextType="NONE"))
        assert wait_for("copied", lambda: version(target, "orders-value", 1))["id"] == first["id"]
        wait_for("RUNNING", lambda: status(source, "bare")["state"] == "RUNNING")
        into_itself = exporter("loop", server.url, subjects=["orders-*"], contextType="NONE",
                               subjectRenameFormat="${subject}-copy")
        assert source.call("POST", "/exporters", into_itself, ok=(409,))["error_code"] == 40952  # would grow for ever
    finally:
        server.stop()
