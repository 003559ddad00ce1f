"""Across hosts the change token moves with PostgreSQL's NOTIFY (sent by triggers, migration
0004): an instance that shares no host signal with the writer stops serving a cached reply
once a write commits, whether the write came through another instance or straight in SQL."""
from __future__ import annotations

import json
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import text
from support.postgres import PostgresCluster

from app.core.registry import RegistryService
from app.core.types import SchemaRequest
from app.settings import Settings
from app.storage import changes
from app.wiring import build_registry

pytestmark = pytest.mark.postgres

REPO = Path(__file__).resolve().parents[2]


def record(*fields: str) -> str:
    return json.dumps({"type": "record", "name": "R", "fields": [
        {"name": f, "type": "string", "default": ""} for f in fields
    ]})


@pytest.fixture
def two_hosts(pg_cluster: PostgresCluster, pg_template: str, tmp_path: Path,
              monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[RegistryService, RegistryService]]:
    """Two registries on one database whose host signals are apart, as on two machines."""
    name = pg_cluster.create_database("fleet", template=pg_template)
    settings = Settings(database_url=pg_cluster.url(name))
    writer = build_registry(settings)
    monkeypatch.setattr(changes, "shared_dir", lambda: tmp_path / "other-host")
    reader = build_registry(settings)
    try:
        yield writer, reader
    finally:
        writer.storage.close()  # type: ignore[attr-defined]
        reader.storage.close()  # type: ignore[attr-defined]
        pg_cluster.drop_database(name)


def eventually(check: Callable[[], bool], seconds: float = 5.0) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if check():
            return True
        time.sleep(0.02)
    return check()


def listening(service: RegistryService) -> bool:
    return service.storage.change_token() is not None  # type: ignore[attr-defined]


def test_another_instance_sees_a_registration_through_notify(two_hosts) -> None:
    writer, reader = two_hosts
    writer.register("orders", SchemaRequest(schema=record("a")))
    assert eventually(lambda: listening(reader))
    assert reader.get_version("orders", "latest").version == 1  # now cached under the reader's token

    writer.register("orders", SchemaRequest(schema=record("a", "b")))

    assert eventually(lambda: reader.get_version("orders", "latest").version == 2)


def test_a_write_made_outside_the_registry_also_invalidates_cached_replies(two_hosts) -> None:
    writer, reader = two_hosts
    writer.register("payments", SchemaRequest(schema=record("a")))
    writer.register("payments", SchemaRequest(schema=record("a", "b")))
    assert eventually(lambda: listening(reader))
    assert reader.get_version("payments", "latest").version == 2

    with reader.storage.engine.begin() as conn:  # type: ignore[attr-defined]  # an operator's UPDATE
        conn.execute(text("UPDATE subject_versions SET deleted = true WHERE version = 2"))

    assert eventually(lambda: reader.get_version("payments", "latest").version == 1)


# ------------------------------------------------------------------ one listener per host
HOLD_A_SIGNAL = """
import sys, time
from app.storage.changes import ChangeSignal
signal = ChangeSignal(sys.argv[1], sys.argv[2])
while signal.token() is None:
    time.sleep(0.01)
print("ready", flush=True)
time.sleep(600)
"""


def listeners(conninfo: str, database: str) -> int:
    import psycopg

    with psycopg.connect(conninfo, autocommit=True) as conn:
        row = conn.execute("SELECT count(*) FROM pg_stat_activity WHERE datname = %s AND query LIKE 'LISTEN %%'",
                           (database,)).fetchone()
    return int(row[0])  # type: ignore[index]


@pytest.fixture
def fleet_database(pg_cluster: PostgresCluster, pg_template: str) -> Iterator[tuple[str, str]]:
    """(database name, libpq conninfo) of a migrated database of its own."""
    name = pg_cluster.create_database("lease", template=pg_template)
    try:
        yield name, pg_cluster.url(name, driver="postgresql")
    finally:
        pg_cluster.drop_database(name)


def start_holders(count: int, key: str, conninfo: str) -> list[subprocess.Popen[str]]:
    holders = [subprocess.Popen([sys.executable, "-c", HOLD_A_SIGNAL, key, conninfo], cwd=REPO,
                                stdout=subprocess.PIPE, text=True) for _ in range(count)]
    for holder in holders:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "ready"
    return holders


def test_one_process_per_host_listens_however_many_ask_for_tokens(fleet_database) -> None:
    database, conninfo = fleet_database
    holders = start_holders(4, f"lease-{database}", conninfo)
    try:
        assert eventually(lambda: listeners(conninfo, database) == 1)
        time.sleep(0.3)  # a second listener would have connected by now
        assert listeners(conninfo, database) == 1
    finally:
        for holder in holders:
            holder.kill()
            holder.wait()


def test_when_the_listening_process_dies_another_takes_its_place(fleet_database) -> None:
    database, conninfo = fleet_database
    key = f"lease-{database}"
    (holder,) = start_holders(1, key, conninfo)
    signal = changes.ChangeSignal(key, conninfo)
    try:
        before = signal.token()
        assert before is not None  # read from the holder's listener, without a listener of its own
        with psycopg_connection(conninfo) as conn:
            conn.execute(f"NOTIFY {changes.CHANNEL}")
            assert eventually(lambda: signal.token() not in (None, before))
            holder.kill()
            holder.wait()
            # The next token asks for the lease, gets it and listens itself.
            assert eventually(lambda: signal.token() is not None)
            assert listeners(conninfo, database) == 1
            taken_over = signal.token()
            conn.execute(f"NOTIFY {changes.CHANNEL}")
            assert eventually(lambda: signal.token() not in (None, taken_over))
    finally:
        signal.close()
        holder.kill()
        holder.wait()


def test_a_closed_listener_leaves_the_token_unknown_until_another_listens(fleet_database) -> None:
    database, conninfo = fleet_database
    key = f"lease-{database}"
    first, second = changes.ChangeSignal(key, conninfo), changes.ChangeSignal(key, conninfo)
    try:
        assert eventually(lambda: first.token() is not None)
        assert second.token() is not None and listeners(conninfo, database) == 1
        first.close()
        assert eventually(lambda: second.token() is not None)  # the second took the lease over
        assert eventually(lambda: listeners(conninfo, database) == 1)
    finally:
        first.close()
        second.close()


def psycopg_connection(conninfo: str) -> Any:
    import psycopg

    return psycopg.connect(conninfo, autocommit=True)
