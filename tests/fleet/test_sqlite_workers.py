"""SQLite under several gunicorn workers: writers in different processes queue on SQLite's
write lock (WAL, BEGIN IMMEDIATE, a 30 s busy timeout: app/storage/engine.py) instead of
failing, so no "database is locked" (or any error) reaches a client."""
from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from fleet_client import call, record
from sqlalchemy import create_engine, text
from support.live import start_server

pytestmark = pytest.mark.slow


def test_concurrent_writers_through_four_workers_never_see_a_locked_database(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'registry.db'}"
    server = start_server(url, tmp_path / "server.log", workers=4)
    start = threading.Barrier(16)

    def writer(w: int) -> list[tuple[int, object]]:
        start.wait()
        replies = []
        for n in range(15):
            # Half into one shared subject (version numbers contend), half into their own.
            subject = "sqlite-shared" if w % 2 else f"sqlite-own-{w}"
            reply = call(server.url, "POST", f"/subjects/{subject}/versions", {"schema": record("Lock", f"w{w}_{n}")})
            replies.append((reply.status, reply.body))
            call(server.url, "PUT", f"/config/sqlite-own-{w}", {"compatibility": "BACKWARD"})
        return replies

    try:
        with ThreadPoolExecutor(16) as pool:
            replies = [r for result in pool.map(writer, range(16)) for r in result]
    finally:
        server.stop()
    assert [r for r in replies if r[0] != 200] == []
    assert "locked" not in server.log_tail(100_000)
    engine = create_engine(url)
    try:
        with engine.connect() as conn:
            assert conn.execute(text("PRAGMA journal_mode")).scalar() == "wal"
            shared = conn.execute(text(
                "SELECT count(*), max(v.version) FROM subject_versions v JOIN subjects s ON s.id = v.subject_id "
                "WHERE s.name = 'sqlite-shared'")).one()
    finally:
        engine.dispose()
    assert tuple(shared) == (120, 120)
