"""PostgreSQL restarted under load, behind a fleet of three instances and nginx: requests
during the outage fail fast with Confluent's 50001/50002 JSON, service resumes within
seconds without restarting any instance, and nothing served or acknowledged is wrong.

The cluster is this module's own (the session's shared one is never stopped).
"""
from __future__ import annotations

import os
import threading
import time
from collections.abc import Iterator

import pytest
from fleet_client import Reply, call, metric, record
from support.fleet import Fleet, NginxUnavailable, start_fleet
from support.invariants import broken_invariants
from support.postgres import PostgresCluster, PostgresUnavailable, start_cluster

pytestmark = [pytest.mark.postgres, pytest.mark.slow]

# Longest a request may take while the database is down: it must answer, not hang
# (connect_timeout is 5 s; nginx would time out at 35 s).
PROMPT_S = 6.0
# Longest from the database being back to the fleet serving writes again.
RESUME_S = 10.0


@pytest.fixture(scope="module")
def outage_fleet(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Fleet, PostgresCluster]]:
    try:
        cluster = start_cluster()
    except PostgresUnavailable as exc:
        if os.environ.get("CI", "").strip().lower() not in ("", "0", "false", "no"):
            pytest.fail(f"CI must run the PostgreSQL tests, but: {exc}", pytrace=False)
        pytest.skip(f"PostgreSQL not available: {exc}")
    try:
        fleet = start_fleet(cluster.url(cluster.create_database("outage")), tmp_path_factory.mktemp("outage"))
    except NginxUnavailable as exc:
        cluster.stop()
        pytest.fail(f"the fleet tests need nginx: {exc}", pytrace=False)
    yield fleet, cluster
    fleet.stop()
    cluster.stop()


def test_postgres_restart_under_load_gives_fast_errors_then_resumes(outage_fleet) -> None:
    fleet, cluster = outage_fleet
    seeded = call(fleet.url, "POST", "/subjects/outage-seed/versions", {"schema": record("Seed", "a")})
    assert seeded.status == 200
    seed_id = seeded.body["id"]
    expected = call(fleet.url, "GET", f"/schemas/ids/{seed_id}").body
    stop = threading.Event()
    outcomes: list[tuple[str, Reply]] = []
    acknowledged: list[tuple[str, int, int]] = []

    def writer(w: int) -> None:
        n = 0
        while not stop.is_set():
            subject = f"outage-{w}"
            reply = call(fleet.url, "POST", f"/subjects/{subject}/versions", {"schema": record("Out", f"w{w}_{n}")})
            outcomes.append(("write", reply))
            if reply.status == 200:
                acknowledged.append((subject, reply.body["version"], reply.body["id"]))
                n += 1
            else:
                time.sleep(0.05)

    def reader() -> None:
        while not stop.is_set():
            reply = call(fleet.url, "GET", f"/schemas/ids/{seed_id}")
            outcomes.append(("read", reply))
            if reply.status != 200:
                time.sleep(0.05)

    threads = [threading.Thread(target=writer, args=(w,)) for w in range(4)] + \
              [threading.Thread(target=reader) for _ in range(2)]
    for t in threads:
        t.start()
    try:
        time.sleep(1.0)
        cluster.stop_server("fast")
        time.sleep(1.0)
        probes = [(call(server.url, "GET", "/health/live"), call(server.url, "GET", "/health/ready"))
                  for server in fleet.instances]
        time.sleep(1.0)
        during = len(outcomes)
        cluster.start_server()
        back = time.monotonic()
        resumed = None
        while time.monotonic() - back < RESUME_S:
            probe = call(fleet.url, "POST", "/subjects/outage-probe/versions", {"schema": record("Probe")})
            if probe.status == 200:
                resumed = time.monotonic() - back
                break
            time.sleep(0.1)
        time.sleep(0.5)
    finally:
        stop.set()
        for t in threads:
            t.join()

    assert resumed is not None, f"no registration succeeded within {RESUME_S}s of PostgreSQL's return"
    for live, ready in probes:  # a balancer would take instances out, an orchestrator restart none
        assert (live.status, live.body) == (200, {"status": "UP"})
        assert ready.status == 503 and ready.body["status"] == "DOWN" and ready.error_code in (50001, 50002)
    errors = sum(metric(server.url, "sqlregistry_db_errors_total{") for server in fleet.instances)
    assert errors > 0  # the outage shows in /metrics
    failures = [(kind, r) for kind, r in outcomes if r.status != 200]
    assert failures, "the outage was not observed"
    for kind, reply in failures:
        assert reply.status == 500 and reply.error_code in (50001, 50002), (kind, reply)
        assert reply.seconds < PROMPT_S, (kind, reply)
    assert all(r.body == expected for kind, r in outcomes if kind == "read" and r.status == 200)
    assert any(r.status == 200 for _, r in outcomes[during:])  # traffic resumed, instances untouched
    assert all(server.process.poll() is None for server in fleet.instances)
    for subject, version, schema_id in acknowledged:
        reply = call(fleet.url, "GET", f"/subjects/{subject}/versions/{version}")
        assert (reply.status, reply.body["id"]) == (200, schema_id)
    assert broken_invariants(fleet.database_url) == {}
