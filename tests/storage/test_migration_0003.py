"""Migration 0003 fingerprints the schemas stored before it (Avro's), references included, so
`GET /schemas/fingerprints/{hex}` finds old schemas as well as new ones."""
from __future__ import annotations

import json

from sqlalchemy import text
from support.migrations import database_at, registry_at_head

from app.fingerprinting.fingerprint import MD5, schema_fingerprint

INNER = '{"type":"record","name":"Inner","fields":[{"name":"x","type":"int"}]}'
OUTER = '{"type":"record","name":"Outer","fields":[{"name":"i","type":"Inner"}]}'


def test_schemas_stored_before_0003_are_found_by_fingerprint(empty_database_url: str) -> None:
    refs = json.dumps([{"name": "Inner", "subject": "inner", "version": 1}])
    with database_at(empty_database_url, "0002") as conn:
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

    with registry_at_head(empty_database_url) as service:
        assert service.schema_by_fingerprint(schema_fingerprint(INNER).hex).id == 3
        outer = schema_fingerprint(OUTER, [INNER], algorithm=MD5).hex
        assert service.schema_by_fingerprint(outer, algorithm="md5").id == 4
