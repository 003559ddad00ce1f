"""No Protobuf schema may end a gunicorn worker (issue 35): every crash shape through every
route that compiles a sent schema answers 42201 and stores nothing, the worker that answered
stays the same process, and a compile process that dies mid-request refuses that request only."""
from __future__ import annotations

import json
import os
import threading
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from support.live import LiveServer, start_server
from support.postgres import PostgresCluster
from support.protobuf_crash_shapes import CRASH_SHAPES
from support.stopped_child import killed_while_asked

from app.formats.protobuf.compiler import CRASHED

V1_JSON = "application/vnd.schemaregistry.v1+json"
VALID = 'syntax = "proto3";\npackage base;\nmessage Base { string a = 1; }\n'


@pytest.fixture(scope="module", params=[
    pytest.param("sqlite", id="sqlite"), pytest.param("postgres", id="postgres", marks=pytest.mark.postgres)])
def server(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    """One worker, so that "the same worker" is the only one."""
    workdir = tmp_path_factory.mktemp("protoc-crash")
    if request.param == "sqlite":
        url, cleanup = f"sqlite:///{workdir / 'registry.db'}", None
    else:
        cluster: PostgresCluster = request.getfixturevalue("pg_cluster")
        name = cluster.create_database("protoc")
        url, cleanup = cluster.url(name), lambda: cluster.drop_database(name)
    # A budget far past any compile here: on a loaded machine the 5 s default could end the
    # wait on a stopped compile process before the test kills it.
    live = start_server(url, workdir / "server.log", workers=1, env={"REGISTRY_WORK_BUDGET_SECONDS": "25"})
    try:
        yield live
    finally:
        live.stop()
        if cleanup is not None:
            cleanup()


def call(server: LiveServer, method: str, path: str, body: Any = None) -> tuple[int, Any]:
    data = json.dumps(body).encode() if body is not None else None
    request = urllib.request.Request(server.url + path, data=data, method=method, headers={"Content-Type": V1_JSON})
    try:
        with urllib.request.urlopen(request, timeout=60) as reply:
            return reply.status, json.loads(reply.read() or b"null")
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read() or b"null")


def children(pid: int) -> set[int]:
    found: set[int] = set()
    for task in Path(f"/proc/{pid}/task").iterdir():
        found.update(int(p) for p in (task / "children").read_text().split())
    return found


def protobuf(text: str, **extra: Any) -> dict[str, Any]:
    return {"schemaType": "PROTOBUF", "schema": text, **extra}


def test_every_crash_shape_on_every_route_answers_42201_and_the_worker_lives(server: LiveServer) -> None:
    assert call(server, "POST", "/subjects/base/versions", protobuf(VALID))[0] == 200
    workers = children(server.process.pid)
    assert len(workers) == 1
    assert call(server, "PUT", "/mode/imported", {"mode": "IMPORT"})[0] == 200
    routes = {
        "register": "/subjects/crash/versions",
        "register_normalized": "/subjects/crash/versions?normalize=true",
        "compatibility": "/compatibility/subjects/base/versions/latest",
        "lookup": "/subjects/base",
        "policy_check": "/policies/base/check",
        "import": "/subjects/imported/versions",
    }
    for k, (shape, (text, option, line)) in enumerate(sorted(CRASH_SHAPES.items())):
        for route, path in routes.items():
            body = protobuf(text, id=5000 + k, version=1) if route == "import" else protobuf(text)
            status, reply = call(server, "POST", path, body)
            assert (status, reply.get("error_code")) == (422, 42201), (shape, route, reply)
            assert f"the option {option} on line {line}" in reply["message"], (shape, route, reply)
    assert call(server, "GET", "/subjects") == (200, ["base"])
    assert call(server, "GET", "/subjects/imported/versions")[0] == 404
    assert children(server.process.pid) == workers
    log = server.log_path.read_text(errors="replace")
    assert "SIGABRT" not in log and "Worker (pid" not in log and "compiler process" not in log


def compile_process(worker: int) -> int:
    """The worker's compile process, once it runs protoc_child.py (a process just forked has
    neither that command line nor its pipe yet)."""
    waiting = threading.Event()
    for _ in range(1000):
        for pid in children(worker):
            try:
                started = "protoc_child.py" in Path(f"/proc/{pid}/cmdline").read_text(errors="replace")
                if started and Path(f"/proc/{pid}/fd/0").exists():
                    return pid
            except OSError:
                continue
        waiting.wait(0.01)
    raise AssertionError(f"worker {worker} has no compile process")


def test_a_compile_process_killed_mid_request_refuses_that_request_and_the_next_works(server: LiveServer) -> None:
    """A check parses its schema once (a registration parses again under the subject's lock)."""
    assert call(server, "POST", "/subjects/base/versions", protobuf(VALID))[0] == 200
    (worker,) = children(server.process.pid)
    child = compile_process(worker)
    schema = VALID.replace("Base", "Killed")
    check = "/compatibility/subjects/base/versions/latest"
    status, reply = killed_while_asked(child, lambda: call(server, "POST", check, protobuf(schema)))
    assert (status, reply["error_code"]) == (422, 42201)
    assert reply["message"].endswith(CRASHED)
    assert call(server, "POST", check, protobuf(schema)) == (200, {"is_compatible": False})
    assert children(server.process.pid) == {worker}
    assert compile_process(worker) != child
    log = server.log_path.read_text(errors="replace")
    assert "ended while compiling a schema (signal 9)" in log and "Worker (pid" not in log
