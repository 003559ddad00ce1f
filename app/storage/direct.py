"""Read-path statements run straight on the DBAPI cursor.

SQLAlchemy's execution machinery (parameter processing, result metadata, row objects)
costs about 100 µs per statement, several times what SQLite needs to answer an indexed
lookup. The two statements every serializer and deserializer hits are therefore compiled
once per dialect and executed on the raw cursor; their few typed columns (JSON, booleans)
are converted here, as SQLAlchemy's result processors would have done. The engine's
`before_cursor_execute` event still fires, so tools that watch statements keep seeing them.
"""
from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from sqlalchemy import Connection
from sqlalchemy.sql import Executable


class DirectStatement:
    def __init__(self, statement: Executable):
        self._statement = statement
        self._compiled: dict[str, tuple[str, Sequence[str] | None]] = {}

    def rows(self, conn: Connection, params: Mapping[str, Any]) -> list[tuple[Any, ...]]:
        sql, order = self._compiled.get(conn.dialect.name) or self._compile(conn)
        args: Any = tuple(params[name] for name in order) if order else dict(params)
        cursor = conn.connection.cursor()
        try:
            # Listeners on the engine (statement counters, query logging) still see it.
            conn.dispatch.before_cursor_execute(conn, cursor, sql, args, None, False)
            cursor.execute(sql, args)
            return cursor.fetchall()
        finally:
            cursor.close()

    def _compile(self, conn: Connection) -> tuple[str, Sequence[str] | None]:
        compiled = self._statement.compile(dialect=conn.dialect)
        entry = (str(compiled), compiled.positiontup)
        self._compiled[conn.dialect.name] = entry
        return entry


def json_value(value: Any) -> Any:
    """A JSON column as SQLite (text) or psycopg (already decoded) hands it back."""
    if isinstance(value, (str, bytes)):
        return json.loads(value)
    return value
