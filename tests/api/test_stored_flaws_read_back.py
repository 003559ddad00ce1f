"""Rows an older version stored with a lone surrogate or NUL, written here straight through
the storage layer, read back through every reader: the REST replies (config, schema
listings with aliases, versions, ids, the audit pages), `sqlregistry audit list` and the UI's
pages and downloads. Each answers, and shows the stored value escaped.

Both databases keep a JSON column's text as written, escapes included, so the JSON cases run
on both. NUL in a text column only SQLite can hold; on PostgreSQL the request that would
store one is refused and nothing is stored.
"""
from __future__ import annotations

import io
import json
import zipfile
from collections.abc import Iterator

import pytest
from flask import Flask
from sqlalchemy import update

from api_client import Api
from api_samples import RECORD_V1
from app.cli.main import main
from app.core.store.audit import AuditEntry, NO_ORIGIN
from app.core.types import SchemaRequest
from app.server.factory import create_app
from app.settings import Settings
from app.storage.models import Schema, Subject
from app.wiring import build_registry

LONE = "\ud800"
FLAWED = f"x{LONE}y\x00z"
SHOWN = "x\\ud800y\\u0000z"  # FLAWED as every page shows it
CONFIG = {"compatibility": "BACKWARD", "compatibilityGroup": FLAWED, "alias": "s"}
# The schema text spells the flaws as JSON escapes (ASCII, so a text column holds it anywhere).
FLAWED_RECORD = json.dumps({"type": "record", "name": "Rec", "doc": FLAWED, "fields": [
    {"name": "f1", "type": "string", "doc": f"d{LONE}"}]})


def write_flaws(database_url: str) -> None:
    """A version whose text spells FLAWED, a config pointing an alias at it, the subject's own
    level, metadata and an audit row, each holding FLAWED where a JSON column keeps it (as both
    databases do)."""
    registry = build_registry(Settings(database_url=database_url))
    storage = registry.storage
    try:
        registry.register("s", SchemaRequest(schema=FLAWED_RECORD, metadata={"properties": {"owner": "ops"}}))
        with storage.write() as store:
            store.set_subject_settings(".", "A", config=CONFIG)
            store.set_subject_settings(".", "s", config={"compatibility": FLAWED})
            store.conn.execute(update(Schema.__table__).values(
                metadata_doc={"properties": {"owner": FLAWED, f"k{LONE}": "v"}}))
        storage.append_audit(AuditEntry(
            action="SET_CONFIG", principal="user:old", auth_method="basic", origin=NO_ORIGIN, subject="A",
            detail={"compatibilityGroup": FLAWED},
        ))
    finally:
        storage.close()


@pytest.fixture
def flawed_app(database_url: str) -> Iterator[Flask]:
    write_flaws(database_url)
    app = create_app(Settings(database_url=database_url))  # caches start empty
    yield app
    app.extensions["registry"].storage.close()


@pytest.fixture
def reader(flawed_app: Flask) -> Api:
    return Api(flawed_app.test_client())


def test_config_reads_show_a_stored_lone_surrogate_escaped(reader: Api) -> None:
    reply = reader.get("/config/A")
    assert reply.status == 200 and "\\ud800" in reply.raw and "\\u0000" in reply.raw
    assert reply.json["compatibilityGroup"] == FLAWED  # the escape reads back as what was stored


def test_schema_listings_with_aliases_answer(reader: Api) -> None:
    reply = reader.get("/schemas", aliases="true")
    assert reply.status == 200, reply
    assert reply.json[0]["aliases"] == ["A"]
    assert reply.json[0]["metadata"]["properties"]["owner"] == FLAWED


METADATA = {"properties": {"owner": FLAWED, f"k{LONE}": "v"}}


@pytest.mark.parametrize("path, expected", [
    ("/subjects/s/versions/1", METADATA), ("/subjects/s/versions/latest", METADATA), ("/schemas/ids/1", METADATA),
    ("/subjects/s/versions/1/referencedby", []), ("/subjects/A/versions", [1]),
])
def test_version_and_id_reads_show_stored_metadata_escaped(reader: Api, path: str, expected: object) -> None:
    reply = reader.get(path)
    assert reply.status == 200, reply
    if isinstance(expected, dict):
        assert reply.json["metadata"] == expected
        assert json.loads(reply.json["schema"]) == json.loads(FLAWED_RECORD) and "\\ud800" in reply.raw and "\\u0000" in reply.raw
    else:
        assert reply.json == expected


def test_audit_pages_show_every_row(reader: Api) -> None:
    reply = reader.get("/audit", limit=1000)
    assert reply.status == 200, reply
    old = [e for e in reply.json if e["principal"] == "user:old"]
    assert old and old[0]["detail"] == {"compatibilityGroup": FLAWED}
    assert reader.get("/audit", subject="A").status == 200


def test_audit_list_prints_every_row_escaped(flawed_app: Flask, database_url: str, capsys) -> None:
    assert main(["audit", "list", "--database-url", database_url]) == 0
    lines = capsys.readouterr().out.splitlines()
    old = [json.loads(line) for line in lines if "user:old" in line]
    assert old and old[0]["detail"] == {"compatibilityGroup": FLAWED}
    assert all(line.encode("utf-8") for line in lines)


@pytest.mark.parametrize("path, shown", [
    ("/ui/", f"<td>{SHOWN} <span"),  # the subject's level
    ("/ui/subjects/s", f'data-source="subject">{SHOWN}</span>'),
    ("/ui/subjects/s/versions/1", f"&#34;owner&#34;: &#34;{SHOWN}&#34;"),  # the metadata
    ("/ui/config", f"<td>{SHOWN} <small"),
    ("/ui/subjects/A", f'data-source="subject">{SHOWN}</span>'),  # A is s's alias
    ("/ui/schemas/1", f"&#34;doc&#34;: &#34;{SHOWN}&#34;"),  # the schema text
    # The search index keeps a repaired copy of a doc (U+FFFD for the surrogate), which it shows.
    ("/ui/search?q=f1", "<td><code>f1</code></td><td>string</td><td>d\ufffd</td>"),
])
def test_ui_pages_show_stored_values_escaped(flawed_app: Flask, path: str, shown: str) -> None:
    response = flawed_app.test_client().get(path)
    assert response.status_code == 200, (path, response.status_code)
    assert shown in response.get_data().decode("utf-8")


def test_ui_export_and_download_answer(flawed_app: Flask) -> None:
    client = flawed_app.test_client()
    assert client.get("/ui/subjects/s/versions/1/download").status_code == 200
    reply = client.get("/ui/subjects/s/export.zip")
    assert reply.status_code == 200
    with zipfile.ZipFile(io.BytesIO(reply.get_data())) as archive:
        assert json.loads(archive.read("manifest.json"))["versions"][0]["version"] == 1


# ------------------------------------------------------------------ NUL in text columns
def test_a_nul_in_a_stored_subject_name_reads_back(database_url: str) -> None:
    """SQLite keeps what an older version wrote; PostgreSQL never stored it: the registration
    is refused and nothing is stored."""
    app = create_app(Settings(database_url=database_url))
    api = Api(app.test_client())
    try:
        api.registered("s", RECORD_V1)
        if database_url.startswith("postgresql"):
            assert api.register("a\x00b", RECORD_V1).error_code == 42208
            assert api.get("/subjects").json == ["s"]
            return
        with app.extensions["registry"].storage.write() as store:
            store.conn.execute(update(Subject.__table__).where(Subject.name == "s").values(name="a\x00b"))
        fresh = create_app(Settings(database_url=database_url))
        try:
            again = Api(fresh.test_client())
            assert again.get("/subjects").json == ["a\x00b"]
            assert again.get("/schemas/ids/1").json["subject"] == "a\x00b"
            page = fresh.test_client().get("/ui/")
            assert page.status_code == 200 and "a\\u0000b" in page.get_data(as_text=True)
        finally:
            fresh.extensions["registry"].storage.close()
    finally:
        app.extensions["registry"].storage.close()


def test_a_database_export_writes_stored_values_escaped(flawed_app: Flask, database_url: str, tmp_path) -> None:
    dump = tmp_path / "flawed.dump"
    assert main(["export", "--database-url", database_url, "--output", str(dump)]) == 0
    records = [json.loads(line) for line in dump.read_bytes().decode("utf-8").splitlines()]
    schemas = [r for r in records if r["type"] == "schema"]
    assert schemas[0]["metadata"]["properties"]["owner"] == FLAWED
