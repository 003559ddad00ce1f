"""Apply Alembic migrations: at start-up of the embedded default, or `sqlregistry db upgrade`.

A fleet on PostgreSQL may start many processes at once; they serialize on an advisory lock
so exactly one of them migrates and the others find the database at head.
"""
from __future__ import annotations

from pathlib import Path

from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import Engine, text

from app.storage.engine import make_engine, transactional

REPO_ROOT = Path(__file__).resolve().parents[2]
_MIGRATION_LOCK_KEY = 0x5351_4C52_4547  # "SQLREG": any constant shared by every instance


def alembic_config(url: str | None = None) -> Config:
    cfg = Config(str(REPO_ROOT / "alembic.ini"))
    cfg.set_main_option("script_location", str(REPO_ROOT / "migrations"))
    cfg.attributes["configure_logging"] = False
    if url is not None:
        cfg.set_main_option("sqlalchemy.url", url.replace("%", "%%"))
    return cfg


def head_revision() -> str | None:
    return ScriptDirectory.from_config(alembic_config()).get_current_head()


def current_revision(engine: Engine) -> str | None:
    with engine.connect() as conn:
        return MigrationContext.configure(conn).get_current_revision()


def upgrade_url(url: str) -> None:
    """Migrate the database behind `url` on a short-lived engine (CLI, test templates)."""
    engine = make_engine(url)
    try:
        upgrade_to_head(engine)
    finally:
        engine.dispose()


def upgrade_to_head(engine: Engine) -> None:
    """Bring the database to the newest revision; a no-op (one query) when it is there."""
    head = head_revision()
    if current_revision(engine) == head:
        return
    cfg = alembic_config()
    with engine.connect() as conn:
        transactional(conn)  # one transaction per upgrade, even on autocommit engines
        if conn.dialect.name == "postgresql":
            conn.execute(text("SELECT pg_advisory_lock(:k)"), {"k": _MIGRATION_LOCK_KEY})
            conn.commit()
        try:
            if MigrationContext.configure(conn).get_current_revision() != head:
                cfg.attributes["connection"] = conn
                command.upgrade(cfg, "head")
                conn.commit()
        finally:
            if conn.dialect.name == "postgresql":
                conn.execute(text("SELECT pg_advisory_unlock(:k)"), {"k": _MIGRATION_LOCK_KEY})
                conn.commit()
