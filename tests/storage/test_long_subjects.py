"""A registration's lookups in a long subject read a bounded number of rows, whatever the
planner believes: statistics gathered while subjects held a version or two (the usual) make
a plan that walks the whole subject look as cheap as one that does not, and a pooled
connection keeps the plan it made. PostgreSQL's generic plans are checked here with
EXPLAIN ANALYZE, SQLite's with EXPLAIN QUERY PLAN: the cost must not grow with the subject."""
from __future__ import annotations

import hashlib
import json
import re
import sqlite3
from typing import Any

import pytest
from psycopg.sql import Literal
from sqlalchemy import create_engine
from sqlalchemy.engine import make_url

from app.core.types import SchemaRequest
from app.settings import Settings
from app.storage import statements as st
from app.wiring import build_registry

VERSIONS = 300


def record(tag: str) -> str:
    return json.dumps({"type": "record", "name": "R", "fields": [
        {"name": "a", "type": "string", "default": ""}, {"name": tag, "type": ["null", "long"], "default": None}]})


def long_subject(database_url: str) -> dict[str, Any]:
    """Many one-version subjects, analyzed; then one subject of VERSIONS versions, not."""
    service = build_registry(Settings(database_url=database_url))
    try:
        for n in range(200):
            service.register(f"short-{n}", SchemaRequest(schema=record(f"s{n}")))
        engine = create_engine(database_url)
        with engine.connect() as conn:
            conn.exec_driver_sql("ANALYZE")
            conn.commit()
        service.update_config("long", {"compatibility": "NONE"})
        for n in range(VERSIONS):
            service.register("long", SchemaRequest(schema=record(f"t{n}")))
        with engine.connect() as conn:
            subject_id = conn.exec_driver_sql("SELECT id FROM subjects WHERE name = 'long'").scalar()
        engine.dispose()
    finally:
        service.storage.close()  # type: ignore[attr-defined]
    text = record(f"t{VERSIONS // 2}")
    return {"subject_id": subject_id, "text": text, "text_hash": hashlib.md5(text.encode()).hexdigest()}


def most_rows_read(database_url: str, statement: st.DirectStatement, params: dict[str, Any]) -> int:
    """The largest row count any node of the statement's generic plan produced."""
    engine = create_engine(database_url)
    try:
        with engine.connect() as conn:
            compiled = statement._compile(conn)  # noqa: SLF001 - the SQL the store runs
            names = list(dict.fromkeys(re.findall(r"%\((\w+)\)s", compiled.sql)))
            sql = compiled.sql
            for n, name in enumerate(names, 1):
                sql = sql.replace(f"%({name})s", f"${n}")
            values = {**compiled.defaults, **params}
            raw = conn.connection.dbapi_connection
            raw.execute("SET plan_cache_mode = force_generic_plan")
            raw.execute(f"PREPARE probe AS {sql}")
            literals = ", ".join(Literal(values[name]).as_string(raw) for name in names)
            plan = raw.execute(f"EXPLAIN (ANALYZE, FORMAT JSON) EXECUTE probe({literals})").fetchone()[0]
    finally:
        engine.dispose()

    def rows(node: dict[str, Any]) -> int:
        return max([int(node["Actual Rows"]), *(rows(child) for child in node.get("Plans", []))])

    return rows(plan[0]["Plan"])


@pytest.mark.postgres
@pytest.mark.parametrize("database_url", ["postgres"], indirect=True)
def test_postgres_finds_a_long_subjects_head_and_versions_of_a_text_without_reading_the_subject(database_url):
    params = long_subject(database_url)
    assert most_rows_read(database_url, st.SUBJECT_HEAD_DIRECT, {"subject_id": params["subject_id"]}) <= 2
    assert most_rows_read(database_url, st.VERSIONS_WITH_TEXT_DIRECT, params) <= 2


@pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)
def test_sqlite_looks_up_a_text_from_its_content_and_the_head_from_the_top(database_url):
    from sqlalchemy.dialects import sqlite

    path = make_url(database_url).database
    conn = sqlite3.connect(path)
    try:
        by_text = str(st._versions_with_text("sqlite").compile(dialect=sqlite.dialect()))  # noqa: SLF001
        plan = [row[3] for row in conn.execute("EXPLAIN QUERY PLAN " + by_text, ("h", "t", 1))]
        assert plan[0].startswith("SEARCH schemas USING INDEX ix_schemas_text_hash")
        assert "ix_subject_versions_schema_pk_subject_id (schema_pk=? AND subject_id=?)" in plan[1]
    finally:
        conn.close()
