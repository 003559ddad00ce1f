"""Apply Alembic migrations: at start-up of the embedded default, or `sqlregistry db upgrade`.

A fleet on PostgreSQL may start many processes at once; they serialize on an advisory lock
so exactly one of them migrates and the others find the database at head.

The migration scripts ship inside this package (`app/storage/migrations/`), so an installed
wheel migrates without the source tree. Alembic is imported only inside the functions that
migrate: workers that start against a database already at head never load it.
"""
from __future__ import annotations

import logging
from pathlib import Path
from typing import TYPE_CHECKING

from sqlalchemy import Engine, inspect, text
from sqlalchemy.engine import make_url

from app.storage.engine import make_engine, transactional
from app.storage.head_check import HEAD_REVISION

if TYPE_CHECKING:
    from alembic.config import Config

MIGRATIONS_DIR = Path(__file__).resolve().parent / "migrations"
_MIGRATION_LOCK_KEY = 0x5351_4C52_4547  # "SQLREG": any constant shared by every instance

log = logging.getLogger(__name__)


def alembic_config(url: str | None = None) -> Config:
    """An Alembic Config for the packaged scripts; no ini file, so logging stays the caller's."""
    from alembic.config import Config

    cfg = Config()
    cfg.set_main_option("script_location", str(MIGRATIONS_DIR))
    cfg.attributes["configure_logging"] = False
    if url is not None:
        cfg.set_main_option("sqlalchemy.url", url.replace("%", "%%"))
    return cfg


def head_revision() -> str | None:
    """The head according to the scripts themselves (HEAD_REVISION is checked against it)."""
    from alembic.script import ScriptDirectory

    return ScriptDirectory.from_config(alembic_config()).get_current_head()


def current_revision(engine: Engine) -> str | None:
    from alembic.runtime.migration import MigrationContext

    with engine.connect() as conn:
        return MigrationContext.configure(conn).get_current_revision()


def _at_head(engine: Engine) -> bool:
    """Whether the database is at HEAD_REVISION, asked with one plain query (no Alembic)."""
    with engine.connect() as conn:
        if not inspect(conn).has_table("alembic_version"):
            return False
        versions = conn.execute(text("SELECT version_num FROM alembic_version")).scalars().all()
    return versions == [HEAD_REVISION]


def missing_sqlite_file(url: str) -> Path | None:
    """The file a SQLite URL names when it does not exist yet, else None.

    Opening such a URL would create the file (and the engine its directories), which a
    read-only question like `db current` must not do.
    """
    parsed = make_url(url)
    if parsed.get_backend_name() != "sqlite" or not parsed.database or parsed.database == ":memory:":
        return None
    path = Path(parsed.database)
    return None if path.exists() else path


def upgrade_url(url: str) -> None:
    """Migrate the database behind `url` on a short-lived engine (CLI, test templates)."""
    engine = make_engine(url)
    try:
        upgrade_to_head(engine)
    finally:
        engine.dispose()


def upgrade_to_head(engine: Engine) -> None:
    """Bring the database to the newest revision; a no-op (one query) when it is there."""
    if _at_head(engine):
        return
    from alembic import command
    from alembic.runtime.migration import MigrationContext

    head = head_revision()
    cfg = alembic_config()
    with engine.connect() as conn:
        transactional(conn)  # one transaction per upgrade, even on autocommit engines
        if conn.dialect.name == "postgresql":
            conn.execute(text("SELECT pg_advisory_lock(:k)"), {"k": _MIGRATION_LOCK_KEY})
            conn.commit()
        try:
            current = MigrationContext.configure(conn).get_current_revision()
            if current != head:
                # The line that tells which instance of a fleet migrated (the others wait above).
                log.info("migrating %s from %s to revision %s",
                         engine.url.render_as_string(hide_password=True), current or "an empty database", head)
                cfg.attributes["connection"] = conn
                command.upgrade(cfg, "head")
                conn.commit()
        finally:
            if conn.dialect.name == "postgresql":
                conn.execute(text("SELECT pg_advisory_unlock(:k)"), {"k": _MIGRATION_LOCK_KEY})
                conn.commit()
