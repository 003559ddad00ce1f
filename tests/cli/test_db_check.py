"""`sqlregistry db check`: finds the stored values holding NUL or a lone surrogate (table, row
key, column, where inside a JSON document), exits 1 if any and changes nothing; `--fix`
replaces those characters with U+FFFD in one transaction with an audit row. Both databases
keep JSON columns' escapes as written; only SQLite's text columns can hold NUL."""
from __future__ import annotations

import json

import pytest
from sqlalchemy import select, update
from sqlalchemy.exc import DataError

from app.cli.main import main
from app.core.store.audit import AuditEntry, NO_ORIGIN
from app.core.types import SchemaRequest
from app.settings import Settings
from app.storage.models import AuditEvent, Schema, Subject
from app.wiring import build_registry

RECORD = json.dumps({"type": "record", "name": "R", "fields": [{"name": "a", "type": "string"}]})
# Escapes spelled inside the schema's own text are characters of the text, not flaws.
ESCAPED_DOC = json.dumps({"type": "record", "name": "E", "doc": "a\\u0000b\\ud800", "fields": []})


@pytest.fixture
def registry(database_url: str):
    registry = build_registry(Settings(database_url=database_url))
    registry.register("clean-value", SchemaRequest(schema=RECORD))
    registry.register("escaped-value", SchemaRequest(schema=ESCAPED_DOC))
    yield registry
    registry.storage.close()


def run(capsys: pytest.CaptureFixture[str], database_url: str, *flags: str) -> tuple[int, list[str]]:
    status = main(["db", "check", "--database-url", database_url, *flags])
    return status, capsys.readouterr().out.splitlines()


def store_flaws(registry) -> None:
    with registry.storage.write() as store:
        store.set_subject_settings(".", "clean-value", config={"compatibilityGroup": "g\ud800"})
        store.conn.execute(update(Schema.__table__).where(Schema.id == 1).values(
            metadata_doc={"properties": {"owner": "a\x00b"}}))
    registry.storage.append_audit(AuditEntry(
        action="SET_CONFIG", principal="user:old", auth_method="basic", origin=NO_ORIGIN,
        detail={"tags": ["PII\udfff"]}))


def test_a_clean_database_passes(registry, database_url: str, capsys) -> None:
    status, lines = run(capsys, database_url)
    assert status == 0 and lines[-1].endswith("every stored string reads back cleanly")


def test_flawed_json_values_are_listed_with_their_row_and_nothing_changes(registry, database_url: str, capsys) -> None:
    store_flaws(registry)
    status, lines = run(capsys, database_url)
    assert status == 1
    found = lines[:-1]
    assert len(found) == 3, lines
    assert any(line.startswith("subjects id=") and "config at compatibilityGroup: holds a lone surrogate" in line
               for line in found)
    assert any(line.startswith("schemas pk=") and "metadata_doc at properties.owner: holds a NUL" in line
               for line in found)
    assert any(line.startswith("audit_events id=") and "detail at tags[0]" in line for line in found)
    assert "db check --fix" in lines[-1]
    # Looking changed nothing.
    assert registry.get_config("clean-value")["compatibilityGroup"] == "g\ud800"
    assert run(capsys, database_url)[0] == 1


def test_fix_replaces_the_characters_and_leaves_an_audit_row(registry, database_url: str, capsys) -> None:
    store_flaws(registry)
    status, lines = run(capsys, database_url, "--fix")
    assert status == 0 and lines[-1] == "replaced the flawed characters of 3 of 3 values with U+FFFD"
    status, lines = run(capsys, database_url)
    assert status == 0 and len(lines) == 1
    with registry.storage.read() as store:
        config = store.conn.execute(select(Subject.config).where(Subject.name == "clean-value")).scalar_one()
        metadata = store.conn.execute(select(Schema.metadata_doc).where(Schema.id == 1)).scalar_one()
        rows = store.conn.execute(select(AuditEvent.detail).where(AuditEvent.action == "REPAIR_TEXT")).all()
    config = json.loads(config) if isinstance(config, str) else config
    assert config == {"compatibilityGroup": "g\ufffd"}
    metadata = json.loads(metadata) if isinstance(metadata, str) else metadata
    assert metadata == {"properties": {"owner": "a\ufffdb"}}
    assert len(rows) == 1
    detail = json.loads(rows[0][0]) if isinstance(rows[0][0], str) else rows[0][0]
    assert {cell["table"] for cell in detail["cells"]} == {"subjects", "schemas", "audit_events"}


def test_nul_in_a_text_column(registry, database_url: str, capsys) -> None:
    """SQLite holds what an older version wrote there; PostgreSQL cannot hold it at all."""
    if database_url.startswith("postgresql"):
        # psycopg refuses the value before PostgreSQL sees it; SQLAlchemy wraps its DataError.
        with pytest.raises(DataError, match=r"\(psycopg\.DataError\) PostgreSQL text fields cannot contain NUL"):
            with registry.storage.write() as store:
                store.conn.execute(update(Subject.__table__).where(Subject.name == "clean-value").values(
                    name="clean\x00value"))
        assert run(capsys, database_url)[0] == 0
        return
    with registry.storage.write() as store:
        store.conn.execute(update(Subject.__table__).where(Subject.name == "clean-value").values(
            name="clean\x00value"))
        store.conn.exec_driver_sql("UPDATE schemas SET schema_type = CAST(X'41EDA080' AS TEXT) WHERE id = 2")
    status, lines = run(capsys, database_url)
    assert status == 1
    assert any(line.startswith("subjects id=") and line.endswith("name: holds a NUL character (\\u0000)")
               for line in lines)
    assert any(line.startswith("schemas pk=") and "schema_type: holds a lone surrogate" in line for line in lines)
    assert run(capsys, database_url, "--fix")[0] == 0
    assert registry.list_subjects(None) == ["clean\ufffdvalue", "escaped-value"]
