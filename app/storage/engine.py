"""Engines: connection pools, per-database session behaviour, and what a database failure means.

PostgreSQL runs in autocommit unless a connection is made `transactional()`.
SQLite runs with WAL (readers never wait for the writer) and explicit transaction control,
so a write transaction takes the database's write lock at BEGIN (`BEGIN IMMEDIATE`) instead
of failing half-way when it upgrades a read lock; reads skip BEGIN entirely.

When the database itself fails (PostgreSQL down or restarting, a connection cut, an SQLite
file that cannot be opened or stays locked), clients get Confluent's 50001 or 50002 rather
than a 500 with a traceback, and get it within seconds: PostgreSQL connections give up after
`connect_timeout` (5 s unless the URL says otherwise), SQLite waits `timeout` for a lock
(30 s unless the URL says otherwise).
"""
from __future__ import annotations

import logging
import select
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

from sqlalchemy import Connection, Engine, create_engine, event
from sqlalchemy.engine import URL, make_url
from sqlalchemy.exc import DBAPIError, DisconnectionError
from sqlalchemy.exc import TimeoutError as PoolTimeout

from app.core.errors import OperationTimeout, RegistryError, StoreError

_log = logging.getLogger(__name__)

_CONNECT_TIMEOUT_S = 5
_SQLITE_LOCK_TIMEOUT_S = 30.0

# PostgreSQL SQLSTATEs. Another attempt of the same transaction may succeed after these:
_PG_RETRYABLE = {"40001", "40P01"}  # serialization_failure, deadlock_detected
# A statement or lock wait was cut short by a timeout:
_PG_TIMED_OUT = {"57014", "55P03", "25P03"}  # query_canceled, lock_not_available, idle_in_transaction timeout
# The server or the connection failed: connection exception, insufficient resources (too many
# connections, disk full), operator intervention (shutdown, restart), system and internal errors.
_PG_UNAVAILABLE_CLASSES = {"08", "53", "57", "58", "XX"}

# SQLite primary result codes (the low byte of the extended code Python reports).
_SQLITE_BUSY, _SQLITE_LOCKED = 5, 6
_SQLITE_BUSY_SNAPSHOT = 517  # a stale WAL snapshot: BEGIN again and it goes away
_SQLITE_UNAVAILABLE = {
    3,   # PERM: the file's permissions refuse access
    7,   # NOMEM
    8,   # READONLY: the file or its directory is read-only
    10,  # IOERR
    11,  # CORRUPT
    13,  # FULL: the disk is full
    14,  # CANTOPEN: the file or its directory is missing or unreadable
    15,  # PROTOCOL: WAL locking failed
    26,  # NOTADB: the file is not an SQLite database
}


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
    parsed = make_url(url)
    # libpq waits for a connection forever unless told otherwise; a registry whose database
    # is unreachable must answer 50002 within seconds instead of holding the request.
    connect_args = {} if "connect_timeout" in parsed.query else {"connect_timeout": _CONNECT_TIMEOUT_S}
    engine = create_engine(
        parsed, isolation_level="AUTOCOMMIT", pool_size=5, max_overflow=10, pool_recycle=1800,
        connect_args=connect_args,
    )
    if parsed.get_backend_name() == "postgresql":
        event.listen(engine, "checkout", _replace_if_closed_by_server)
    return engine


def _replace_if_closed_by_server(dbapi_conn: Any, _record: Any, _proxy: Any) -> None:
    """Keep a pooled connection the server has closed from failing the request that gets it.

    A PostgreSQL that stops or restarts (or that terminates a backend) sends its idle clients
    a FATAL message and closes the socket, so a dead pooled connection is one whose socket
    already has something to read. Asking the kernel costs one poll() system call, about a
    microsecond; `pool_pre_ping` would cost a round trip to the server on every request.
    Raising DisconnectionError makes the pool discard this connection and hand out a new one.
    A connection whose peer vanished without closing it (a host that lost power, a network
    cut) looks alive here; its first statement waits until TCP gives up, which libpq's
    `tcp_user_timeout` in the URL shortens, then answers 50001, and SQLAlchemy replaces the
    whole pool.
    """
    if dbapi_conn.closed:  # psycopg noticed already (a broken connection is closed too)
        raise DisconnectionError("the pooled connection is closed")
    poller = select.poll()
    poller.register(dbapi_conn.fileno(), select.POLLIN)
    if poller.poll(0):  # readable, hung up or in error while idle: the server has gone away
        raise DisconnectionError("the server closed the pooled connection")


def redacted_url(url: str) -> str:
    """The URL with its password masked, fit for a log line or a terminal."""
    return make_url(url).render_as_string(hide_password=True)


def is_transient(exc: Exception) -> bool:
    """A failure another attempt of the same transaction may not meet (a lost race). `exc` is
    SQLAlchemy's wrapper or the driver's own exception (raw-cursor statements, direct.py).

    A busy SQLite file is not one of them: SQLite has already waited its whole lock timeout
    before saying so, and waiting that long again would hold the client for minutes.
    """
    orig = getattr(exc, "orig", exc)
    code = getattr(orig, "sqlite_errorcode", None)
    if code is not None:
        return code == _SQLITE_BUSY_SNAPSHOT
    return getattr(orig, "sqlstate", None) in _PG_RETRYABLE


def database_failure(exc: BaseException, dbapi: ModuleType) -> RegistryError | None:
    """Confluent's error for a failure of the database itself, or None for anything else.

    `exc` is what SQLAlchemy raised, or a driver exception from `dbapi` (statements in
    direct.py run on the raw cursor). 50002 when the database did not answer in time, 50001
    when it failed or cannot be reached. Anything else (a constraint, a bad statement) is not
    the database's fault and keeps its traceback for the generic 500 handler.
    """
    if isinstance(exc, PoolTimeout):
        _log.warning("no pooled database connection became free in time: %s", exc)
        return OperationTimeout.backend()
    orig = exc.orig if isinstance(exc, DBAPIError) else exc
    if not isinstance(orig, dbapi.Error):
        return None
    if _timed_out(orig):
        _log.warning("the database did not answer in time: %s", orig)
        return OperationTimeout.backend()
    if _unavailable(orig, dbapi):
        _log.warning("the database failed or cannot be reached: %s", orig)
        return StoreError.backend()
    return None


def _timed_out(orig: BaseException) -> bool:
    code = getattr(orig, "sqlite_errorcode", None)
    if code is not None:
        return code & 0xFF in (_SQLITE_BUSY, _SQLITE_LOCKED)
    if getattr(orig, "sqlstate", None) in _PG_TIMED_OUT:
        return True
    # An expired `connect_timeout` has no SQLSTATE: psycopg raises its ConnectionTimeout
    # (3.2+; earlier releases an OperationalError saying so).
    timeout_class = getattr(sys.modules.get("psycopg.errors"), "ConnectionTimeout", None)
    if timeout_class is not None:
        return isinstance(orig, timeout_class)
    return "timeout expired" in str(orig)


def _unavailable(orig: BaseException, dbapi: ModuleType) -> bool:
    code = getattr(orig, "sqlite_errorcode", None)
    if code is not None:
        return code & 0xFF in _SQLITE_UNAVAILABLE
    sqlstate = getattr(orig, "sqlstate", None)
    if sqlstate is None:
        # Failures on the client's side of the connection (refused, lost, closed) carry no SQLSTATE.
        return isinstance(orig, (dbapi.OperationalError, dbapi.InterfaceError))
    return sqlstate[:2] in _PG_UNAVAILABLE_CLASSES


def _sqlite_engine(url: str) -> Engine:
    parsed: URL = make_url(url)
    database = parsed.database
    if database and database != ":memory:":
        Path(database).parent.mkdir(parents=True, exist_ok=True)
    # `timeout` is how long a statement waits for another process's lock (SQLite's busy
    # timeout); `?timeout=` in the URL overrides it.
    connect_args: dict[str, Any] = {"check_same_thread": False}
    if "timeout" not in parsed.query:
        connect_args["timeout"] = _SQLITE_LOCK_TIMEOUT_S
    engine = create_engine(parsed, connect_args=connect_args)

    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_conn: Any, _record: Any) -> None:
        dbapi_conn.isolation_level = None
        cur = dbapi_conn.cursor()
        for pragma in ("journal_mode=WAL", "foreign_keys=ON", "synchronous=NORMAL"):
            cur.execute(f"PRAGMA {pragma}")
        cur.close()

    @event.listens_for(engine, "begin")
    def _on_begin(conn: Connection) -> None:
        options = conn.get_execution_options()
        if options.get("sqlite_no_begin"):
            return
        conn.exec_driver_sql("BEGIN IMMEDIATE" if options.get("sqlite_immediate") else "BEGIN")

    return engine
