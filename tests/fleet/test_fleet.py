"""A fleet of three instances (two gunicorn workers each) behind nginx on one PostgreSQL
database: the database is the only coordinator, so concurrent writers through any instance
get one version sequence and one id per schema, an instance killed under load loses no
acknowledged write, and a change through one instance is seen at once through the others.

One fleet for the module, started at once on an empty database (so its start-up is itself
the migration race). Tests use subjects of their own.
"""
from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor

import pytest
from fleet_client import call, metric, record, register, retried
from sqlalchemy import create_engine, text
from support.fleet import Fleet, NginxUnavailable, start_fleet
from support.invariants import broken_invariants
from support.postgres import PostgresCluster

from app.storage.migrate import head_revision

pytestmark = [pytest.mark.postgres, pytest.mark.slow]


@pytest.fixture(scope="module")
def fleet(pg_cluster: PostgresCluster, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Fleet]:
    name = pg_cluster.create_database("fleet")  # empty: the instances migrate it
    try:
        started = start_fleet(pg_cluster.url(name), tmp_path_factory.mktemp("fleet"))
    except NginxUnavailable as exc:
        pg_cluster.drop_database(name)
        pytest.fail(f"the fleet tests need nginx: {exc}", pytrace=False)
    yield started
    started.stop()
    pg_cluster.drop_database(name)


def rows(database_url: str, sql: str, **params: object) -> list[tuple]:
    engine = create_engine(database_url)
    try:
        with engine.connect() as conn:
            return [tuple(r) for r in conn.execute(text(sql), params)]
    finally:
        engine.dispose()


def registrations_counted(fleet: Fleet) -> float:
    return sum(metric(server.url, "sqlregistry_registrations_total ") for server in fleet.instances)


VERSIONS_SQL = """
    SELECT v.version, s.id FROM subject_versions v
    JOIN subjects sub ON sub.id = v.subject_id JOIN schemas s ON s.pk = v.schema_pk
    WHERE sub.name = :subject ORDER BY v.version"""


def test_three_instances_started_at_once_on_an_empty_database_all_serve(fleet: Fleet) -> None:
    for server in fleet.instances:
        assert call(server.url, "GET", "/health/ready").body == {"status": "UP"}
    assert rows(fleet.database_url, "SELECT version_num FROM alembic_version") == [(head_revision(),)]
    assert call(fleet.url, "GET", "/health/ready").status == 200


def test_16_writers_of_25_schemas_each_into_one_subject_get_versions_1_to_400(fleet: Fleet) -> None:
    subject = "fleet-many-writers"
    start = threading.Barrier(16)
    counted_before = registrations_counted(fleet)

    def writer(w: int) -> list[tuple[int, int]]:
        start.wait()
        done = []
        for n in range(25):
            reply = register(fleet.url, subject, record("Event", f"w{w}_{n}"))
            assert reply.status == 200, reply
            done.append((n, reply.body["id"]))
        return done

    with ThreadPoolExecutor(16) as pool:
        acknowledged = [id_ for result in pool.map(writer, range(16)) for _, id_ in result]

    stored = rows(fleet.database_url, VERSIONS_SQL, subject=subject)
    assert [version for version, _ in stored] == list(range(1, 401))
    ids = [schema_id for _, schema_id in stored]
    assert len(set(ids)) == 400 and ids == sorted(ids)
    assert sorted(acknowledged) == ids
    assert call(fleet.url, "GET", f"/subjects/{subject}/versions").body == list(range(1, 401))
    # Every worker of every instance hands its counts to /metrics within a second or so.
    deadline = time.monotonic() + 5
    while registrations_counted(fleet) - counted_before < 400 and time.monotonic() < deadline:
        time.sleep(0.2)
    assert registrations_counted(fleet) - counted_before == 400


def test_one_new_schema_registered_by_16_clients_at_once_gets_one_version_and_one_id(fleet: Fleet) -> None:
    subject, schema = "fleet-same-schema", record("Same", "a")
    start = threading.Barrier(16)

    def client(_: int) -> tuple[int, object]:
        start.wait()
        reply = register(fleet.url, subject, schema)
        return reply.status, reply.body

    with ThreadPoolExecutor(16) as pool:
        answers = list(pool.map(client, range(16)))
    assert {status for status, _ in answers} == {200}
    assert len({str(body) for _, body in answers}) == 1
    assert [v for v, _ in rows(fleet.database_url, VERSIONS_SQL, subject=subject)] == [1]


def test_one_schema_registered_under_20_subjects_at_once_gets_one_id(fleet: Fleet) -> None:
    schema = record("Shared", "b")
    start = threading.Barrier(20)

    def client(n: int) -> int:
        start.wait()
        reply = register(fleet.url, f"fleet-shared-{n}", schema)
        assert reply.status == 200, reply
        return reply.body["id"]

    with ThreadPoolExecutor(20) as pool:
        ids = set(pool.map(client, range(20)))
    assert len(ids) == 1


def test_a_delete_or_config_change_through_one_instance_is_seen_at_once_by_the_others(fleet: Fleet) -> None:
    first, second, third = (server.url for server in fleet.instances)
    subject = "fleet-visibility"
    assert register(first, subject, record("Seen", "a")).status == 200
    assert register(first, subject, record("Seen", "a", "b")).status == 200
    for url in (first, second, third):  # every instance has `latest` cached now
        assert call(url, "GET", f"/subjects/{subject}/versions/latest").body["version"] == 2

    assert call(second, "PUT", f"/config/{subject}", {"compatibility": "NONE"}).status == 200
    for url in (first, third):
        assert call(url, "GET", f"/config/{subject}").body["compatibilityLevel"] == "NONE"

    assert call(third, "DELETE", f"/subjects/{subject}/versions/2").body == 2
    for url in (first, second):
        assert call(url, "GET", f"/subjects/{subject}/versions/latest").body["version"] == 1
        assert call(url, "GET", f"/subjects/{subject}/versions/2").error_code == 40402


def test_sigkill_of_one_instance_under_load_loses_no_acknowledged_write(fleet: Fleet) -> None:
    stop = threading.Event()
    acknowledged: list[tuple[str, int, int]] = []
    read_failures: list[object] = []

    def writer(w: int) -> None:
        n = 0
        while not stop.is_set():
            subject = f"fleet-kill-{w}"
            reply = register(fleet.url, subject, record("Kill", f"w{w}_{n}"))
            assert reply.status == 200, reply  # retries (502 from a dead instance) succeed
            acknowledged.append((subject, reply.body["version"], reply.body["id"]))
            n += 1

    def reader() -> None:
        while not stop.is_set():
            # nginx retries idempotent reads on another instance itself; a reply the dying
            # instance cut off mid-body is the client's to retry
            reply = retried(fleet.url, "GET", "/subjects")
            if reply.status != 200:
                read_failures.append((reply.status, reply.body))

    with ThreadPoolExecutor(10) as pool:
        futures = [pool.submit(writer, w) for w in range(8)] + [pool.submit(reader) for _ in range(2)]
        time.sleep(1.5)
        before_kill = len(acknowledged)
        fleet.kill(1)
        time.sleep(2.5)
        stop.set()
        for future in futures:
            future.result()
    try:
        assert len(acknowledged) > before_kill  # writes went on after the kill
        assert read_failures == []
        for url in (fleet.instances[0].url, fleet.instances[2].url):
            assert call(url, "GET", "/health/ready").status == 200
        for subject, version, schema_id in acknowledged:
            reply = call(fleet.url, "GET", f"/subjects/{subject}/versions/{version}")
            assert (reply.status, reply.body["id"]) == (200, schema_id)
        assert broken_invariants(fleet.database_url) == {}
    finally:
        fleet.restart(1)
    assert call(fleet.instances[1].url, "GET", "/health/ready").status == 200
