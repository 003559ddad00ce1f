"""Migration 0003 fingerprints the Avro schemas stored before it, references included, so
`GET /schemas/fingerprints/{hex}` finds old schemas as well as new ones."""
from __future__ import annotations

import json

from alembic import command
from sqlalchemy import text

from app.client.fingerprint import MD5, schema_fingerprint
from app.settings import Settings
from app.storage.engine import make_engine
from app.storage.migrate import alembic_config
from app.wiring import build_registry

INNER = '{"type":"record","name":"Inner","fields":[{"name":"x","type":"int"}]}'
OUTER = '{"type":"record","name":"Outer","fields":[{"name":"i","type":"Inner"}]}'


def test_schemas_stored_before_0003_are_found_by_fingerprint(empty_database_url: str) -> None:
    engine = make_engine(empty_database_url)
    try:
        with engine.connect() as conn:
            cfg = alembic_config()
            cfg.attributes["connection"] = conn
            command.upgrade(cfg, "0002")
            conn.commit()
        refs = json.dumps([{"name": "Inner", "subject": "inner", "version": 1}])
        with engine.begin() as conn:
            conn.execute(text("INSERT INTO subjects (context, name) VALUES ('.', 'inner'), ('.', 'outer')"))
            for pk_id, body, doc in ((3, INNER, None), (4, OUTER, refs)):
                conn.execute(text(
                    "INSERT INTO schemas (context, id, hash, schema_type, schema_text, references_doc, text_hash) "
                    "VALUES ('.', :id, :h, 'AVRO', :t, :d, 'x')"
                ), {"id": pk_id, "h": f"{pk_id:032x}", "t": body, "d": doc})
            conn.execute(text(
                "INSERT INTO subject_versions (subject_id, version, schema_pk, deleted, created_at) "
                "SELECT s.id, 1, c.pk, false, 0 FROM subjects s JOIN schemas c ON c.id = "
                "CASE WHEN s.name = 'inner' THEN 3 ELSE 4 END"
            ))
    finally:
        engine.dispose()

    service = build_registry(Settings(database_url=empty_database_url))  # migrates to head
    try:
        assert service.schema_by_fingerprint(schema_fingerprint(INNER).hex).id == 3
        outer = schema_fingerprint(OUTER, [INNER], algorithm=MD5).hex
        assert service.schema_by_fingerprint(outer, algorithm="md5").id == 4
    finally:
        service.storage.close()  # type: ignore[attr-defined]
