"""Databases stopped at an older migration, for the tests that show an upgrade fills what
that migration added for rows stored before it."""
from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from alembic import command
from sqlalchemy import Connection

from app.core.registry import RegistryService
from app.settings import Settings
from app.storage.engine import make_engine
from app.storage.migrate import alembic_config
from app.wiring import build_registry


@contextmanager
def database_at(url: str, revision: str) -> Iterator[Connection]:
    """The empty database at `url` migrated to `revision`, and one transaction on it to store
    rows as that revision's code would have (committed when the block ends)."""
    engine = make_engine(url)
    try:
        with engine.connect() as conn:
            cfg = alembic_config()
            cfg.attributes["connection"] = conn
            command.upgrade(cfg, revision)
            conn.commit()
        with engine.begin() as conn:
            yield conn
    finally:
        engine.dispose()


@contextmanager
def registry_at_head(url: str) -> Iterator[RegistryService]:
    """A registry on `url`, which migrates the database to head as a starting server does."""
    service = build_registry(Settings(database_url=url))
    try:
        yield service
    finally:
        service.storage.close()  # type: ignore[attr-defined]
