"""Each exporter copies on a thread of its own: a target that never answers holds up its own
exporter only, and the others' copies arrive meanwhile (seen on their target, while the silent
target still holds its first request). A target's reply of the wrong shape stops its exporter
in ERROR with one sentence as the trace, never a Python exception's name."""
from __future__ import annotations

import threading
from collections.abc import Iterator
from typing import Any

import pytest

from support.waiting import wait_for
from app.server.runners.exporters import ExporterRunner
from support.stub_server import Scripted, running_stubs
from transfer_helpers import Rest, record

WAIT_S = 60.0  # only ends a wait that would never succeed


@pytest.fixture
def stub() -> Iterator[Any]:
    with running_stubs() as start:
        yield start


def _create(client: Any, name: str, url: str) -> None:
    body = {"name": name, "subjects": ["orders-*"], "contextType": "NONE", "config": {"schema.registry.url": url}}
    assert client.post("/exporters", json=body).status_code == 200


def test_a_target_that_never_answers_does_not_delay_another_exporters_copies(service: Any, client: Any,
                                                                              registry: Any, stub: Any) -> None:
    never = threading.Event()
    silent = stub(default=Scripted(hold=never))
    healthy = Rest(registry("sqlite"))
    assert client.post("/subjects/orders-value/versions", json={"schema": record("Order", ("id", "long"))}).status_code == 200
    _create(client, "a-silent", silent.url)  # first in the runner's order
    _create(client, "b-healthy", healthy.url)
    runner = ExporterRunner(service, target_timeout=600.0).start()  # the silent target's request never times out here
    try:
        wait_for("the silent target asked", lambda: silent.hits)
        copied = wait_for("the healthy target's copy", lambda: "error_code" not in (
            reply := healthy.call("GET", "/subjects/orders-value/versions/1", ok=(200, 404))) and reply)
        assert copied["subject"] == "orders-value"
        wait_for("the healthy one RUNNING", lambda: client.get("/exporters/b-healthy/status").json["state"] == "RUNNING")
        assert len(silent.hits) == 1 and not never.is_set()  # its first request still unanswered
    finally:
        never.set()
        runner.stop(timeout=WAIT_S)


@pytest.mark.parametrize(("reply", "sentence"), [
    ({"types": ["AVRO"]}, "the target's reply to GET /schemas/types was not a JSON list"),
    ("<html>busy</html>", "the target's reply to GET /schemas/types was not a JSON list"),
])
def test_a_reply_of_the_wrong_shape_stops_the_exporter_with_one_sentence(service: Any, client: Any, stub: Any,
                                                                         reply: Any, sentence: str) -> None:
    target = stub(default=Scripted(200, reply))
    assert client.post("/subjects/orders-value/versions", json={"schema": record("Order", ("id", "long"))}).status_code == 200
    _create(client, "shaped", target.url)
    runner = ExporterRunner(service)
    try:
        for _ in range(2):
            runner.tick()
        status = wait_for("ERROR", lambda: (s := client.get("/exporters/shaped/status").json)["state"] == "ERROR" and s)
    finally:
        runner.stop(timeout=WAIT_S)
    assert status["trace"] == sentence


def test_a_target_nobody_listens_on_stops_the_exporter_with_a_sentence(service: Any, client: Any) -> None:
    from support.postgres import free_port

    dead = f"http://127.0.0.1:{free_port()}"
    assert client.post("/subjects/orders-value/versions", json={"schema": record("Order", ("id", "long"))}).status_code == 200
    _create(client, "away", dead)
    runner = ExporterRunner(service)
    try:
        for _ in range(2):
            runner.tick()
        status = wait_for("ERROR", lambda: (s := client.get("/exporters/away/status").json)["state"] == "ERROR" and s)
    finally:
        runner.stop(timeout=WAIT_S)
    assert status["trace"] == f"GET {dead}/schemas/types: cannot connect (Connection refused)"
