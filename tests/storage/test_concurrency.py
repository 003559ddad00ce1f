"""Concurrent writers on one database: the row lock per subject and the id sequence.

These run the service from several threads, each with its own pooled connection, which on
PostgreSQL is real concurrency (the same as several gunicorn workers or instances).
"""
from __future__ import annotations

import json
import time
from concurrent.futures import ThreadPoolExecutor

import pytest

from app.core.types import SchemaRequest

WRITERS = 8


def _record(extra_field: str | None) -> str:
    fields = [{"name": "id", "type": "long"}]
    if extra_field:
        fields.append({"name": extra_field, "type": "string", "default": ""})
    return json.dumps({"type": "record", "name": "Event", "fields": fields})


def _run_all(calls):
    with ThreadPoolExecutor(max_workers=WRITERS) as pool:
        return list(pool.map(lambda call: call(), calls))


def test_concurrent_registrations_to_one_subject_get_consecutive_versions(service):
    service.register("events", SchemaRequest(schema=_record(None)))
    results = _run_all(
        [lambda i=i: service.register("events", SchemaRequest(schema=_record(f"f{i}"))) for i in range(WRITERS)]
    )
    assert sorted(r.version for r in results) == list(range(2, WRITERS + 2))
    assert len({r.id for r in results}) == WRITERS
    assert service.list_versions("events") == list(range(1, WRITERS + 2))


def test_concurrent_first_registrations_of_one_schema_share_one_id(service):
    text = _record("shared")
    results = _run_all([lambda i=i: service.register(f"s{i}", SchemaRequest(schema=text)) for i in range(WRITERS)])
    assert len({r.id for r in results}) == 1
    assert all(r.version == 1 for r in results)
    assert sorted(service.subjects_for_id(results[0].id)) == sorted(f"s{i}" for i in range(WRITERS))


def test_concurrent_first_registrations_of_one_schema_into_one_new_subject_make_one_version(service):
    """Each writer's pre-check finds no subject, so each locks the schema's identity with the
    row it tries to create (app/storage/statements.py); one creates it, the others wait for it
    and then find the version it stored."""
    text = _record("once")
    results = _run_all([lambda: service.register("fresh", SchemaRequest(schema=text)) for _ in range(WRITERS)])
    assert {(r.id, r.version) for r in results} == {(results[0].id, 1)}
    assert service.list_versions("fresh") == [1]


def test_ids_are_never_reused_after_a_hard_delete(service):
    first = service.register("gone", SchemaRequest(schema=_record("a")))
    service.delete_subject("gone")
    service.delete_subject("gone", permanent=True)
    again = service.register("gone", SchemaRequest(schema=_record("a")))
    assert again.id > first.id
    assert again.version == 1


@pytest.mark.parametrize("database_url", [pytest.param("postgres", marks=pytest.mark.postgres)], indirect=True)
def test_a_subject_row_deleted_while_another_writer_waits_for_its_lock_is_created_again(database_url):
    """Found by Schemathesis as a 500: a tag edit (a registration) waited for the row lock of a
    subject that a permanent delete then removed, and its locking select came back empty."""
    from app.storage.repository import Repository

    repository = Repository.from_url(database_url)
    try:
        with repository.write() as store:
            store.lock_subject(".", "s")
        with ThreadPoolExecutor(max_workers=1) as pool:
            with repository.write() as holder:
                row = holder.lock_subject(".", "s").row

                def lock_after_holder() -> bool:
                    with repository.write() as waiter:
                        return waiter.lock_subject(".", "s").created

                waiting = pool.submit(lock_after_holder)
                _wait_for_a_lock_wait(repository)
                holder.clear_subject(row.id)
            assert waiting.result(timeout=30) is True
        with repository.read() as store:
            assert store.subject(".", "s") is not None
    finally:
        repository.close()


def _wait_for_a_lock_wait(repository) -> None:
    """Until some session of this database waits for a row lock (the second writer's select)."""
    from sqlalchemy import text

    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        with repository.engine.connect() as conn:
            waiting = conn.execute(text(
                "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'"
            )).scalar()
        if waiting:
            return
        time.sleep(0.02)
    raise AssertionError("the second writer never waited for the lock")
