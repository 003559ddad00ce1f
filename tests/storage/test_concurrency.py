"""Concurrent writers on one database: the row lock per subject and the id sequence.

These run the service from several threads, each with its own pooled connection, which on
PostgreSQL is real concurrency (the same as several gunicorn workers or instances).
"""
from __future__ import annotations

import json
from concurrent.futures import ThreadPoolExecutor

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


def test_ids_are_never_reused_after_a_hard_delete(service):
    first = service.register("gone", SchemaRequest(schema=_record("a")))
    service.delete_subject("gone")
    service.delete_subject("gone", permanent=True)
    again = service.register("gone", SchemaRequest(schema=_record("a")))
    assert again.id > first.id
    assert again.version == 1
