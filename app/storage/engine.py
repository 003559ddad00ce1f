"""Engines: connection pools and per-database session behaviour.

PostgreSQL runs in autocommit unless a connection is made `transactional()`.
SQLite runs with WAL (readers never wait for the writer) and explicit transaction control,
so a write transaction takes the database's write lock at BEGIN (`BEGIN IMMEDIATE`) instead
of failing half-way when it upgrades a read lock; reads skip BEGIN entirely.
"""
from __future__ import annotations

from pathlib import Path
from typing import Any

from sqlalchemy import Connection, Engine, create_engine, event
from sqlalchemy.engine import make_url
from sqlalchemy.exc import DBAPIError

_TRANSIENT = ("deadlock", "database is locked", "could not serialize", "busy")


def transactional(conn: Connection) -> Connection:
    """Make a connection transactional for a write or a migration.

    PostgreSQL engines default to autocommit, because reads are the hot path and switching a
    pooled connection's mode costs round trips; writes switch to READ COMMITTED (the subject
    row lock does the rest). SQLite takes its write lock at BEGIN (`BEGIN IMMEDIATE`).
    """
    if conn.dialect.name == "sqlite":
        return conn.execution_options(sqlite_immediate=True)
    return conn.execution_options(isolation_level="READ COMMITTED")


def make_engine(url: str) -> Engine:
    if url.startswith("sqlite"):
        return _sqlite_engine(url)
    # No pre-ping: it would cost a round trip per request. A dropped connection fails one
    # request (clients retry on 500) and SQLAlchemy then invalidates the pool.
    return create_engine(url, isolation_level="AUTOCOMMIT", pool_size=5, max_overflow=10, pool_recycle=1800)


def redacted_url(url: str) -> str:
    """The URL with its password masked, fit for a log line or a terminal."""
    return make_url(url).render_as_string(hide_password=True)


def is_transient(exc: DBAPIError) -> bool:
    """A failure another attempt of the same transaction may not meet."""
    message = str(exc.orig).lower()
    return any(s in message for s in _TRANSIENT)


def _sqlite_engine(url: str) -> Engine:
    database = make_url(url).database
    if database and database != ":memory:":
        Path(database).parent.mkdir(parents=True, exist_ok=True)
    engine = create_engine(url, connect_args={"timeout": 30, "check_same_thread": False})

    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_conn: Any, _record: Any) -> None:
        dbapi_conn.isolation_level = None
        cur = dbapi_conn.cursor()
        for pragma in ("journal_mode=WAL", "foreign_keys=ON", "busy_timeout=30000", "synchronous=NORMAL"):
            cur.execute(f"PRAGMA {pragma}")
        cur.close()

    @event.listens_for(engine, "begin")
    def _on_begin(conn: Connection) -> None:
        options = conn.get_execution_options()
        if options.get("sqlite_no_begin"):
            return
        conn.exec_driver_sql("BEGIN IMMEDIATE" if options.get("sqlite_immediate") else "BEGIN")

    return engine
