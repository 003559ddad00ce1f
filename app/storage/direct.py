"""Hot-path statements run straight on the DBAPI cursor.

SQLAlchemy's execution machinery (parameter processing, result metadata, row objects)
costs about 100 µs per statement, several times what SQLite needs to answer an indexed
lookup. The statements every serializer and deserializer hits, and most of those a
registration runs, are therefore compiled once per dialect and executed on the raw cursor;
their few typed columns (JSON, booleans) are converted by the caller, as SQLAlchemy's result
processors would have done. Parameters must be plain values (no JSON documents). The
engine's `before_cursor_execute` event still fires, so tools that watch statements keep
seeing them.
"""
from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from typing import Any, NamedTuple

from sqlalchemy import Connection
from sqlalchemy.sql import Executable


class _Compiled(NamedTuple):
    sql: str
    order: Sequence[str] | None  # positional parameter names (SQLite's qmark), None for named
    defaults: Mapping[str, Any]  # values the statement itself fixes (`deleted=False`)


class DirectStatement:
    """`statement` is one statement for every dialect, or a function giving each dialect's
    own (upserts and row locks are spelled per dialect)."""

    def __init__(self, statement: Executable | Callable[[str], Executable]):
        self._statement = statement
        self._compiled: dict[str, _Compiled] = {}

    def rows(self, conn: Connection, params: Mapping[str, Any]) -> list[tuple[Any, ...]]:
        """Execute once; every row the statement returns (none for plain DML)."""
        compiled, cursor = self._cursor(conn)
        args = self._args(compiled, params)
        try:
            # Listeners on the engine (statement counters, query logging) still see it.
            conn.dispatch.before_cursor_execute(conn, cursor, compiled.sql, args, None, False)
            cursor.execute(compiled.sql, args)
            return cursor.fetchall() if _returned_rows(cursor) else []
        finally:
            cursor.close()

    def execute_many(self, conn: Connection, params: Sequence[Mapping[str, Any]]) -> None:
        """Execute once per parameter set, in one call to the driver (inserts of several rows)."""
        compiled, cursor = self._cursor(conn)
        args = [self._args(compiled, p) for p in params]
        try:
            conn.dispatch.before_cursor_execute(conn, cursor, compiled.sql, args, None, True)
            cursor.executemany(compiled.sql, args)
        finally:
            cursor.close()

    def _cursor(self, conn: Connection) -> tuple[_Compiled, Any]:
        compiled = self._compiled.get(conn.dialect.name) or self._compile(conn)
        return compiled, conn.connection.cursor()

    @staticmethod
    def _args(compiled: _Compiled, params: Mapping[str, Any]) -> Any:
        merged = {**compiled.defaults, **params} if compiled.defaults else params
        return tuple(merged[name] for name in compiled.order) if compiled.order else dict(merged)

    def _compile(self, conn: Connection) -> _Compiled:
        dialect = conn.dialect
        statement = self._statement if isinstance(self._statement, Executable) else self._statement(dialect.name)
        compiled = statement.compile(dialect=dialect)
        defaults = {name: bind.effective_value for name, bind in compiled.binds.items() if not bind.required}
        entry = _Compiled(str(compiled), compiled.positiontup, defaults)
        self._compiled[dialect.name] = entry
        return entry


# libpq's PGRES_TUPLES_OK: the statement returned a result set (possibly empty).
_PG_TUPLES_OK = 2


def _returned_rows(cursor: Any) -> bool:
    """Whether the last statement produced rows to fetch. psycopg's `description` builds a
    column object per column on every call (several µs a statement); the result's status
    says the same for free. sqlite3 keeps its description ready, so it is asked directly."""
    result = getattr(cursor, "pgresult", cursor)
    if result is cursor:
        return cursor.description is not None
    return result is not None and result.status == _PG_TUPLES_OK


def json_param(document: Any) -> str | None:
    """A JSON column's parameter: its text, or None for SQL NULL (the columns' `none_as_null`)."""
    return None if document is None else json.dumps(document)


def json_value(value: Any) -> Any:
    """A JSON column as SQLite (text) or psycopg (already decoded) hands it back."""
    if isinstance(value, (str, bytes)):
        return json.loads(value)
    return value
