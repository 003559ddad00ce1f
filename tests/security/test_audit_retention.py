"""The audit trail's own limits, on SQLite and PostgreSQL: a row's names are cut to their
column's size as its path and user agent are, and REGISTRY_AUDIT_RETENTION_DAYS has the
server delete what is older, at most once an hour per process, after a write."""
from __future__ import annotations

import json
import time
from collections.abc import Iterator

import pytest
from flask import Flask
from sqlalchemy import Engine, text

from app.core.audit import PRUNE_INTERVAL_SECONDS
from app.core.store.audit import AuditQuery, SUBJECT_CHARS
from app.server.factory import create_app
from app.settings import Settings

V1 = "application/vnd.schemaregistry.v1+json"
DAY_MS = 86_400_000


def register(app: Flask, subject: str, name: str = "A") -> int:
    body = {"schema": json.dumps({"type": "record", "name": name, "fields": []})}
    return app.test_client().post(f"/subjects/{subject}/versions", data=json.dumps(body),
                                  headers={"Content-Type": V1}).status_code


def rows(app: Flask) -> list:
    return app.extensions["registry"].storage.audit_events(AuditQuery(limit=1000))


def age_every_row(app: Flask, days: int) -> None:
    engine: Engine = app.extensions["registry"].storage.engine
    with engine.begin() as conn:
        conn.execute(text("UPDATE audit_events SET ts = ts - :ms"), {"ms": days * DAY_MS})


@pytest.fixture
def retained(settings: Settings) -> Iterator[Flask]:
    app = create_app(settings.with_overrides(audit_retention_days=30))
    yield app
    app.extensions["registry"].storage.close()


def test_a_refused_write_naming_a_huge_subject_records_it_cut(app: Flask) -> None:
    subject = "s" * 7_900
    reply = app.test_client().delete(f"/config/{subject}")
    assert 400 <= reply.status_code < 500
    (row,) = rows(app)
    assert row.entry.subject == subject[:SUBJECT_CHARS]


def test_the_server_prunes_rows_past_the_retention_after_a_write(app: Flask, settings: Settings) -> None:
    """Rows written by an instance without a retention, then one with 30 days starts."""
    assert register(app, "old-a") == 200 and register(app, "kept") == 200
    age_every_row(app, 31)
    engine: Engine = app.extensions["registry"].storage.engine
    with engine.begin() as conn:  # "kept" is 29 days old
        conn.execute(text("UPDATE audit_events SET ts = ts + :ms WHERE subject = 'kept'"), {"ms": 2 * DAY_MS})
    retained = create_app(settings.with_overrides(audit_retention_days=30))
    try:
        assert register(retained, "recent") == 200  # the first write of this process prunes
        assert [r.entry.subject for r in rows(retained)] == ["recent", "kept"]
    finally:
        retained.extensions["registry"].storage.close()


def test_the_server_prunes_at_most_once_an_hour(retained: Flask) -> None:
    trail = retained.extensions["registry"].trail
    assert register(retained, "first") == 200  # prunes (nothing yet) and starts the hour
    age_every_row(retained, 31)
    assert register(retained, "second") == 200
    assert [r.entry.subject for r in rows(retained)] == ["second", "first"]  # within the hour: kept
    assert trail.prune_if_due() == 0
    trail._next_prune -= PRUNE_INTERVAL_SECONDS  # an hour later
    assert trail.prune_if_due() == 1
    assert [r.entry.subject for r in rows(retained)] == ["second"]


def test_without_a_retention_the_server_deletes_nothing(app: Flask) -> None:
    assert register(app, "ancient") == 200
    age_every_row(app, 3650)
    assert register(app, "recent") == 200
    assert len(rows(app)) == 2


def test_a_prune_deletes_batch_after_batch_until_every_old_row_is_gone(
    app: Flask, monkeypatch: pytest.MonkeyPatch
) -> None:
    from app.storage import audit as audit_storage

    monkeypatch.setattr(audit_storage, "PRUNE_BATCH", 2)
    for i in range(5):
        assert register(app, f"old-{i}") == 200
    age_every_row(app, 2)
    assert register(app, "recent") == 200
    storage = app.extensions["registry"].storage
    assert storage.prune_audit(int(time.time() * 1000) - DAY_MS, 3) == 3
    assert storage.prune_audit(int(time.time() * 1000) - DAY_MS) == 2
    assert [r.entry.subject for r in rows(app)] == ["recent"]


def test_a_backlog_is_worked_off_over_the_writes_that_follow(
    app: Flask, settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each write waits for at most PRUNE_ROWS_PER_WRITE rows of pruning (here 2)."""
    from app.core import audit

    monkeypatch.setattr(audit, "PRUNE_ROWS_PER_WRITE", 2)
    for i in range(5):
        assert register(app, f"old-{i}") == 200
    age_every_row(app, 31)
    retained = create_app(settings.with_overrides(audit_retention_days=30))
    try:
        left = []
        for i in range(4):
            assert register(retained, f"new-{i}") == 200
            left.append(sum(1 for r in rows(retained) if r.entry.subject.startswith("old-")))
        assert left == [3, 1, 0, 0]
    finally:
        retained.extensions["registry"].storage.close()
