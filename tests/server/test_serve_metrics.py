"""`sqlregistry serve` with several workers: `/metrics` reports the whole instance whichever
worker answers the scrape (prometheus-client's multiprocess mode, the directory prepared
by the master), and REGISTRY_ACCESS_LOG_FORMAT=json writes one JSON object per request."""
from __future__ import annotations

import json
import time
import urllib.error
import urllib.request
from pathlib import Path

from support.live import start_server

ROUTE = "/subjects/<subject:subject>/versions/<segment:version>"


def fetch(url: str) -> tuple[int, str]:
    try:
        with urllib.request.urlopen(url, timeout=10) as reply:
            return reply.status, reply.read().decode()
    except urllib.error.HTTPError as error:
        return error.code, error.read().decode()


def counted(text: str, route: str, status: int) -> float:
    total = 0.0
    for line in text.splitlines():
        if line.startswith("sqlregistry_http_request_duration_seconds_count{") and f'route="{route}"' in line \
                and f'status="{status}"' in line:
            total += float(line.rsplit(" ", 1)[1])
    return total


def test_metrics_sum_every_worker_and_the_access_log_is_json(tmp_path: Path) -> None:
    access = tmp_path / "access.log"
    server = start_server(f"sqlite:///{tmp_path / 'registry.db'}", tmp_path / "server.log", workers=3,
                          env={"REGISTRY_ACCESS_LOG": str(access), "REGISTRY_ACCESS_LOG_FORMAT": "json"})
    try:
        for _ in range(30):  # one connection each: gunicorn's workers share them out
            assert fetch(server.url + "/subjects/no%2Fsuch/versions/1")[0] == 404
        deadline, seen = time.monotonic() + 10, 0.0
        while time.monotonic() < deadline and seen < 30:  # workers hand their counts over each second
            seen = counted(fetch(server.url + "/metrics")[1], ROUTE, 404)
            time.sleep(0.3)
    finally:
        server.stop()
    assert seen == 30
    lines = [json.loads(line) for line in access.read_text().splitlines()]
    looked_up = [line for line in lines if line["route"] == ROUTE]
    assert len(looked_up) == 30
    assert {(line["method"], line["status"], line["subject"]) for line in looked_up} == {("GET", 404, "no/such")}
    assert all(isinstance(line["ms"], float) and line["ms"] >= 0 for line in looked_up)
    assert any(line["route"] == "/metrics" for line in lines)
