"""Whether a database is at the migration head, asked through its client library alone.

A gunicorn master checks this before forking (`app.server.serving.prepare_database`). Answering it
with SQLAlchemy and Alembic would put their import, most of a registry's start-up, in front
of every start against a database already at head (a restart, the usual case); the client
library alone answers in a few milliseconds. For PostgreSQL that is libpq, called through
ctypes: importing psycopg costs ~80 ms, which the master would spend before any worker
exists (workers import it later, after their first answer). Anything this cannot tell
(another driver, an unusual URL, no libpq to load, any failure at all) answers False, and
the caller takes the full path, which migrates or reports the failure with its usual message.
"""
from __future__ import annotations

import ctypes
import importlib.util
import sqlite3
from pathlib import Path
from typing import Any
from urllib.parse import quote

# The newest script in app/storage/migrations/versions. Knowing it without Alembic lets a
# start against a database already at head cost one query instead of loading Alembic and
# every script; tests/storage/test_migrations.py fails when a new script lands without it.
HEAD_REVISION = "0013"
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
    if "connect_timeout=" not in conninfo:
        conninfo += ("&" if "?" in conninfo else "?") + f"connect_timeout={_CONNECT_TIMEOUT_S}"
    libpq = _load_libpq()
    if libpq is None:
        return False
    conn = libpq.PQconnectdb(conninfo.encode())
    try:
        if not conn or libpq.PQstatus(conn) != _CONNECTION_OK:
            return False
        result = libpq.PQexec(conn, _QUERY.encode())
        try:
            answered = bool(result) and libpq.PQresultStatus(result) == _PGRES_TUPLES_OK
            one_value = answered and libpq.PQntuples(result) == 1 and libpq.PQnfields(result) == 1
            return one_value and libpq.PQgetvalue(result, 0, 0) == HEAD_REVISION.encode()
        finally:
            libpq.PQclear(result)
    finally:
        libpq.PQfinish(conn)


_CONNECTION_OK, _PGRES_TUPLES_OK = 0, 2  # libpq's ConnStatusType and ExecStatusType values


def _load_libpq() -> Any:
    """The libpq psycopg's binary wheel bundles (found without importing it), else the
    system's; None when neither loads."""
    candidates: list[str] = []
    spec = importlib.util.find_spec("psycopg_binary")
    for location in (spec.submodule_search_locations or []) if spec is not None else []:
        candidates += [str(p) for p in sorted(Path(location).parent.glob("psycopg_binary.libs/libpq-*.so*"))]
    for candidate in [*candidates, "libpq.so.5"]:
        try:
            libpq = ctypes.CDLL(candidate)
        except OSError:
            continue
        pointer, text, number = ctypes.c_void_p, ctypes.c_char_p, ctypes.c_int
        for name, restype, argtypes in (
            ("PQconnectdb", pointer, [text]), ("PQstatus", number, [pointer]), ("PQexec", pointer, [pointer, text]),
            ("PQresultStatus", number, [pointer]), ("PQntuples", number, [pointer]),
            ("PQnfields", number, [pointer]), ("PQgetvalue", text, [pointer, number, number]),
            ("PQclear", None, [pointer]), ("PQfinish", None, [pointer]),
        ):
            function = getattr(libpq, name)
            function.restype, function.argtypes = restype, argtypes
        return libpq
    return None
