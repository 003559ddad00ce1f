"""Counting the SQL statements a piece of work sends: how the tests pin query budgets
(fixed counts, no N+1) without timing anything."""
from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from sqlalchemy import Engine, event


@contextmanager
def counted(engine: Engine) -> Iterator[list[str]]:
    """The statements sent through `engine` (raw-cursor ones included) while the block runs."""
    statements: list[str] = []

    def record(conn: Any, cursor: Any, statement: str, *_: Any) -> None:
        statements.append(statement)

    event.listen(engine, "before_cursor_execute", record)
    try:
        yield statements
    finally:
        event.remove(engine, "before_cursor_execute", record)
