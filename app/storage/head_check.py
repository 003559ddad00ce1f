"""Whether a database is at the migration head, asked through its driver alone.

A gunicorn master checks this before forking (`app.serving.prepare_database`). Answering it
with SQLAlchemy and Alembic would put their import, most of a registry's start-up, in front
of every start against a database already at head (a restart, the usual case); the driver
alone answers in a few milliseconds. Anything this cannot tell (another driver, an unusual
URL, any failure at all) answers False, and the caller takes the full path, which migrates
or reports the failure with its usual message.
"""
from __future__ import annotations

import sqlite3
from urllib.parse import quote

# The newest script in app/storage/migrations/versions. Knowing it without Alembic lets a
# start against a database already at head cost one query instead of loading Alembic and
# every script; tests/storage/test_migrations.py fails when a new script lands without it.
HEAD_REVISION = "0008"
_QUERY = "SELECT version_num FROM alembic_version"
_CONNECT_TIMEOUT_S = 5


def at_head(url: str) -> bool:
    """True when the database behind the SQLAlchemy `url` answers and is at HEAD_REVISION."""
    scheme, _, rest = url.partition("://")
    backend, _, driver = scheme.partition("+")
    try:
        if backend == "sqlite" and driver in ("", "pysqlite"):
            return _sqlite_at_head(rest)
        if backend == "postgresql" and driver in ("", "psycopg"):
            return _postgres_at_head(f"postgresql://{rest}")
    except Exception:  # noqa: BLE001 - "cannot tell": the full path decides and reports
        return False
    return False


def _sqlite_at_head(rest: str) -> bool:
    """`sqlite:///relative.db` or `sqlite:////absolute.db`; opened read-only, so a missing
    file is not created (the full path creates and migrates it)."""
    path, _, query = rest[1:].partition("?")
    if not path or path == ":memory:" or "%" in path or "uri=" in query:
        return False
    conn = sqlite3.connect(f"file:{quote(path)}?mode=ro", uri=True, timeout=_CONNECT_TIMEOUT_S)
    try:
        return conn.execute(_QUERY).fetchall() == [(HEAD_REVISION,)]
    finally:
        conn.close()


def _postgres_at_head(conninfo: str) -> bool:
    """libpq reads the same URL SQLAlchemy does once its `+psycopg` is gone."""
    import psycopg

    timeout = {} if "connect_timeout=" in conninfo else {"connect_timeout": _CONNECT_TIMEOUT_S}
    with psycopg.connect(conninfo, autocommit=True, **timeout) as conn:
        return conn.execute(_QUERY).fetchall() == [(HEAD_REVISION,)]
