"""Across hosts the change token moves with PostgreSQL's NOTIFY (sent by triggers, migration
0004): an instance that shares no host signal with the writer stops serving a cached reply
once a write commits, whether the write came through another instance or straight in SQL."""
from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from sqlalchemy import text
from support.postgres import PostgresCluster

from app.core.registry import RegistryService
from app.core.types import SchemaRequest
from app.settings import Settings
from app.storage import changes
from app.wiring import build_registry

pytestmark = pytest.mark.postgres


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
    monkeypatch.setattr(changes, "_shared_dir", lambda: tmp_path / "other-host")
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
