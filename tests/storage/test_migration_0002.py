"""Migration 0002 adds `schemas.text_hash` and fills it for schemas stored before it, so a
registration of an already-stored text still finds the version holding it."""
from __future__ import annotations

import json

from sqlalchemy import text
from support.migrations import database_at, registry_at_head

from app.core.types import SchemaRequest

SCHEMA = json.dumps({"type": "record", "name": "Old", "fields": [{"name": "a", "type": "long"}]}, separators=(",", ":"))
STORED = '{"type":"record","name":"Old","fields":[{"name":"a","type":"long"}]}'


def test_schemas_stored_before_0002_get_their_text_hash_and_still_match(empty_database_url: str) -> None:
    with database_at(empty_database_url, "0001") as conn:
        conn.execute(text("INSERT INTO subjects (context, name) VALUES ('.', 'old')"))
        conn.execute(text(
            "INSERT INTO schemas (context, id, hash, schema_type, schema_text) "
            "VALUES ('.', 7, '0123456789abcdef0123456789abcdef', 'AVRO', :t)"
        ), {"t": STORED})
        conn.execute(text(
            "INSERT INTO subject_versions (subject_id, version, schema_pk, deleted, created_at) "
            "SELECT s.id, 1, c.pk, false, 0 FROM subjects s, schemas c"
        ))

    with registry_at_head(empty_database_url) as service:
        with service.storage.read() as store:  # type: ignore[attr-defined]
            digest = store.conn.execute(text("SELECT text_hash FROM schemas")).scalar_one()
        assert digest == "00eb8001a5e90f316cf5680d75923da6"  # MD5 of the stored text
        again = service.register("old", SchemaRequest(schema=SCHEMA))
        assert (again.version, again.id) == (1, 7)  # matched by its text, not registered anew
