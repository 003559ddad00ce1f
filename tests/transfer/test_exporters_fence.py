"""The exporters' lease is a fence: a holder paused mid-pass past its lease, whose lease another
runner took meanwhile, writes nothing more once it resumes, and the two runners' writes to a
real target (counted as they are sent) neither repeat nor interleave. Two runners of one
process stand for two processes (each its own owner, as two hosts are); the lease clock is
theirs to move, and the pause is a hook on the paused runner's writes, released by the test."""
from __future__ import annotations

import itertools
import json
import threading
from typing import Any

from support.waiting import wait_for
from app.server.runners import exporters as exporter_runner
from app.server.runners.exporters import ExporterRunner
from app.transfer.rest import RestRegistry
from transfer_helpers import Rest, record, seg

SUBJECTS = [f"orders-{i}" for i in range(4)]
WAIT_S = 60.0  # only ends a wait that would never succeed


class LeaseClock:
    def __init__(self) -> None:
        self.now = 1_000_000

    def __call__(self) -> int:
        return self.now


class Writes:
    """Every write each runner sent to the target, in the order they were sent; the paused
    runner's writes from the `pause_at`-th on wait for `resume` (before the fence is read)."""

    def __init__(self, pause_at: int) -> None:
        self.sent: list[tuple[str, str, str, str]] = []
        self.pause_at = pause_at
        self.paused = threading.Event()
        self.resume = threading.Event()
        self._count = itertools.count(1)
        self._lock = threading.Lock()

    def target_class(self, runner: str) -> type[RestRegistry]:
        writes = self

        class Observed(RestRegistry):
            def _write(self, method: str, path: str, query: Any = None, body: Any = None,
                       missing: frozenset[int] = frozenset()) -> Any:
                if runner == "paused":
                    with writes._lock:
                        number = next(writes._count)
                    if number >= writes.pause_at:
                        writes.paused.set()
                        assert writes.resume.wait(WAIT_S)
                reply = super()._write(method, path, query, body, missing)
                with writes._lock:
                    writes.sent.append((runner, method, path, json.dumps(body, sort_keys=True)))
                return reply

        return Observed


def _ticks(runner: ExporterRunner) -> None:
    """Two turns of the coordinator: the first reloads the definitions, the second (a beat
    with an exporter to run) takes the lease and hands the pass to the exporter's thread."""
    for _ in range(2):
        runner.tick()


def test_a_holder_paused_past_its_lease_writes_nothing_once_another_runner_took_it(service: Any, client: Any,
                                                                                   registry: Any) -> None:
    target = Rest(registry("sqlite"))
    ids = {}
    for subject in SUBJECTS:
        reply = client.post(f"/subjects/{subject}/versions", json={"schema": record(subject.replace("-", "_"),
                                                                                      ("id", "long"))})
        ids[subject] = reply.json["id"]
    body = {"name": "fenced", "subjects": ["orders-*"], "contextType": "NONE",
            "config": {"schema.registry.url": target.url}}
    assert client.post("/exporters", json=body).status_code == 200

    clock, writes = LeaseClock(), Writes(pause_at=3)
    paused = ExporterRunner(service, owner="paused", clock=clock, target_class=writes.target_class("paused"))
    other = ExporterRunner(service, owner="other", clock=clock, target_class=writes.target_class("other"))
    try:
        _ticks(paused)
        assert writes.paused.wait(WAIT_S), "the first pass never reached its third write"
        clock.now += exporter_runner.LEASE_MS + 1  # the paused holder's lease runs out ...
        _ticks(other)  # ... and the other runner takes it and copies everything
        wait_for("the other runner's pass", lambda: client.get("/exporters/fenced/status").json["state"] == "RUNNING")
        before = len(writes.sent)
        writes.resume.set()
        paused.stop(timeout=WAIT_S)  # waits for the paused pass to end
    finally:
        writes.resume.set()
        paused.stop(timeout=WAIT_S)
        other.stop(timeout=WAIT_S)

    runners = [runner for runner, *_ in writes.sent]
    assert runners.count("paused") == 2 and len(writes.sent) == before  # nothing more once resumed
    assert runners == sorted(runners, key=lambda r: r != "paused")  # all the paused one's, then the other's
    assert len(set(writes.sent)) == len(writes.sent)  # no write repeated
    for subject in SUBJECTS:
        assert target.call("GET", f"/subjects/{seg(subject)}/versions/1")["id"] == ids[subject]
        assert target.call("GET", f"/mode/{seg(subject)}", ok=(404,))["error_code"] == 40409  # no IMPORT left
    status = client.get("/exporters/fenced/status").json
    assert (status["state"], status["trace"]) == ("RUNNING", "")
