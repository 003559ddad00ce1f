"""What the exporters runner asks of the database: on a server where no exporter runs, its
loop ticks on the change token alone and sends nothing; exporters passing together share one
read of the subjects' marks. Driven in the test's thread for a counted
number of ticks (every tick a heartbeat tick), statements counted on the real engine, once
the change token is known; the passes they hand out run on the exporters' threads, waited for."""
from __future__ import annotations

import threading
from typing import Any

import pytest
from sqlalchemy import event

from app.server.runners import exporters as exporter_runner
from app.server.runners.exporters import ExporterRunner
from support.change_token import wait_for_change_token

TICKS = 40


class _StopAfter(threading.Event):
    """The runner's stop event, set once the loop has waited `ticks` times (no time passes)."""

    def __init__(self, ticks: int) -> None:
        super().__init__()
        self.left = ticks

    def wait(self, timeout: float | None = None) -> bool:
        self.left -= 1
        if self.left <= 0:
            self.set()
        return self.is_set()


def _statements(service: Any) -> list[str]:
    seen: list[str] = []
    engine = service.storage.engine
    event.listen(engine, "before_cursor_execute", lambda conn, cursor, statement, *rest: seen.append(statement))
    return seen


def _create(client: Any, name: str) -> None:
    """An exporter toward a port nothing listens on: no pass here gets as far as the target."""
    body = {"name": name, "config": {"schema.registry.url": "http://127.0.0.1:9/"}}
    assert client.post("/exporters", json=body).status_code == 200


def _run_ticks(service: Any, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    monkeypatch.setattr(exporter_runner, "HEARTBEAT_S", 0.0)  # every tick would be a heartbeat tick
    runner = ExporterRunner(service, owner="test-runner")
    runner._stopped = _StopAfter(TICKS)
    wait_for_change_token(service)  # an unknown token (PostgreSQL's listener not yet up) reads every beat
    seen = _statements(service)
    runner._run()
    runner.stop(timeout=60)  # the passes handed out run on the exporters' own threads: let them end
    return seen


def test_an_idle_runner_reads_the_exporters_once_then_only_the_change_token(service: Any,
                                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    seen = _run_ticks(service, monkeypatch)
    assert len([s for s in seen if "exporters" in s]) == 1


def test_a_paused_exporter_costs_the_idle_runner_nothing_either(service: Any, client: Any,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    _create(client, "dr")
    assert client.put("/exporters/dr/pause").status_code == 200
    seen = _run_ticks(service, monkeypatch)
    assert len([s for s in seen if "exporters" in s]) == 1


def test_a_running_exporter_is_watched_every_heartbeat_tick(service: Any, client: Any,
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    """Its holder may die without a commit to say so: the lease is looked at once a beat."""
    _create(client, "dr")
    with service.storage.read() as store:
        assert store.take_exporter_lease("dr", "another-instance", 0, 2**62)
    seen = _run_ticks(service, monkeypatch)
    assert len([s for s in seen if "FROM exporters" in s]) >= TICKS - 2


def test_exporters_passing_in_one_tick_share_one_read_of_the_subjects_marks(service: Any, client: Any,
                                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("first", "second", "third"):
        _create(client, name)
    seen = _run_ticks(service, monkeypatch)
    assert all(client.get(f"/exporters/{name}/status").json["state"] == "RUNNING"
               for name in ("first", "second", "third"))
    assert len([s for s in seen if "GROUP BY" in s]) == 1
