"""An exporter's trace quotes whatever stopped it, the target's reply included: it is stored
as the status shows it, bounded, and readable back on both databases whatever that reply held."""
from __future__ import annotations

from typing import Any

from app.core.exporters.records import ERROR, STARTING, trace_text
from app.core.storable_text import problem


def test_a_trace_quoting_a_nul_and_a_lone_surrogate_is_stored_and_read_back_escaped(service: Any,
                                                                                    client: Any) -> None:
    body = {"name": "dr", "config": {"schema.registry.url": "http://127.0.0.1:9/"}}
    assert client.post("/exporters", json=body).status_code == 200
    trace = trace_text("TransferError: the target said 'bad\x00id \ud800'")
    with service.storage.read() as store:
        generation = store.take_exporter_lease("dr", "runner", 0, 2**62)
        assert generation is not None
        assert store.report_exporter("dr", "runner", generation, (STARTING,), ERROR, 0, trace, 1)
    status = client.get("/exporters/dr/status").json
    assert status["state"] == ERROR
    assert status["trace"] == "TransferError: the target said 'bad\\u0000id \\ud800'"


def test_a_long_trace_is_cut_and_stays_storable() -> None:
    trace = trace_text("\x00" * 10_000)
    assert problem(trace) is None
    assert len(trace) < 5000
