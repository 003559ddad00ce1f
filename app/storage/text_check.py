"""`sqlregistry db check`: the stored strings the registry can no longer read back cleanly.

Requests now refuse strings holding NUL or a lone surrogate (app/core/storable_text.py),
but older versions stored some: inside JSON documents as `\\u0000` or `\\ud800` escapes
(both databases keep a `json` column's text as written), and NUL or bytes that are not
UTF-8 in SQLite's text columns. The readers show them escaped; this finds them, so that an
operator can see which row holds what and, with `--fix`, replace each such character by
U+FFFD in one transaction that also writes an audit row listing every cell changed.

PostgreSQL's text columns cannot hold either (it refuses NUL and invalid UTF-8), so on
PostgreSQL only the JSON columns are read, and only rows whose text holds an escape. A
schema's text is checked as text: `\\u0000` spelled as an escape inside it is six ordinary
characters, accepted at registration and stored as written.
"""
from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any, NamedTuple

from sqlalchemy import JSON, Column, Engine, LargeBinary, String, Table, Text, and_, cast, select, update

from app.core.storable_text import TextFlaw, first_flaw, problem, repaired, repaired_document, shown
from app.core.store.audit import AuditEntry, NO_ORIGIN
from app.storage.audit import insert_audit
from app.storage.engine import transactional
from app.storage.models import Base
from app.storage.version_writes import now_ms

_NOT_JSON = "is not valid JSON"


class FlawedCell(NamedTuple):
    """One column of one row holding what cannot be read back cleanly. `key` is the row's
    primary key (column -> value); `where` names the string inside a JSON document."""

    table: str
    key: dict[str, Any]
    column: str
    problem: str
    where: str | None = None

    def describe(self) -> str:
        key = " ".join(f"{name}={shown(str(value))}" for name, value in self.key.items())
        inside = f" at {self.where}" if self.where else ""
        return f"{self.table} {key} {self.column}{inside}: {self.problem}"

    def as_json(self) -> dict[str, Any]:
        """The cell as the fix's audit row lists it."""
        return {"table": self.table, "key": {k: _plain(v) for k, v in self.key.items()}, "column": self.column}


def _plain(value: Any) -> Any:
    return shown(value) if isinstance(value, str) else value


def flawed_cells(engine: Engine) -> Iterator[FlawedCell]:
    """Every flawed cell, table by table, read in batches (a database's whole content passes
    through here once; nothing is held but the current batch)."""
    sqlite = engine.dialect.name == "sqlite"
    with engine.connect() as conn:
        if not sqlite:
            # PostgreSQL's server-side cursors need a transaction (rolled back when the
            # connection closes): one snapshot for the whole check.
            conn.execution_options(isolation_level="REPEATABLE READ")
            conn.begin()
        for table in Base.metadata.sorted_tables:
            for column in table.columns:
                if isinstance(column.type, JSON):
                    statement = _json_rows(table, column, sqlite)
                elif isinstance(column.type, String) and sqlite:
                    statement = select(*table.primary_key.columns, cast(column, LargeBinary)).where(
                        column.is_not(None)
                    )
                else:
                    continue
                rows = conn.execution_options(stream_results=True, yield_per=500).execute(statement)
                for row in rows:
                    found = _flaw(row[-1], isinstance(column.type, JSON))
                    if found is not None:
                        key = {c.name: row[i] for i, c in enumerate(table.primary_key.columns)}
                        yield FlawedCell(table.name, key, column.name, found.problem, found.path or None)


def _json_rows(table: Table, column: Column[Any], sqlite: bool) -> Any:
    """A JSON column's raw text: as bytes on SQLite (whose text may not be UTF-8); on
    PostgreSQL as text, only where it holds an escape (a flaw can only be one there)."""
    keys = table.primary_key.columns
    if sqlite:
        return select(*keys, cast(column, LargeBinary)).where(column.is_not(None))
    text = cast(column, Text)
    return select(*keys, text).where(and_(column.is_not(None), text.contains("\\u", autoescape=True)))


def _flaw(raw: bytes | str, is_json: bool) -> TextFlaw | None:
    text = raw.decode("utf-8", "surrogateescape") if isinstance(raw, bytes) else raw
    if not is_json:
        found = problem(text)
        return None if found is None else TextFlaw("", found)
    try:
        document = json.loads(text)
    except ValueError:
        return TextFlaw("", _NOT_JSON)
    return first_flaw(document)


def repair(engine: Engine, cells: list[FlawedCell], principal: str, action: str) -> int:
    """Replace the flawed characters of `cells` by U+FFFD and add one audit row (`action`, the
    core's REPAIR_TEXT) naming them, in one transaction; how many cells changed. A JSON document
    that does not parse is left as it is (and stays reported)."""
    tables = {table.name: table for table in Base.metadata.sorted_tables}
    changed: list[FlawedCell] = []
    with engine.connect() as conn:
        transactional(conn)
        with conn.begin():
            for cell in cells:
                if cell.problem == _NOT_JSON:
                    continue
                table = tables[cell.table]
                column = table.c[cell.column]
                where = and_(*(table.c[name] == value for name, value in cell.key.items()))
                raw = conn.execute(select(cast(column, LargeBinary) if engine.dialect.name == "sqlite"
                                          else cast(column, Text)).where(where)).scalar_one()
                text = raw.decode("utf-8", "surrogateescape") if isinstance(raw, bytes) else raw
                value = repaired_document(json.loads(text)) if isinstance(column.type, JSON) else repaired(text)
                conn.execute(update(table).where(where).values({cell.column: value}))
                changed.append(cell)
            if changed:
                entry = AuditEntry(
                    action=action, principal=principal, auth_method="cli", origin=NO_ORIGIN,
                    detail={"replacedWith": "U+FFFD", "cells": [cell.as_json() for cell in changed]},
                )
                insert_audit(conn, entry, now_ms())
    return len(changed)
