"""What must hold in a registry database whatever happened to the processes writing it, as
SQL: each query selects the rows that break one invariant, so every one must return none."""
from __future__ import annotations

from sqlalchemy import create_engine, text

INVARIANTS = {
    "every version points at a stored schema": """
        SELECT v.subject_id, v.version FROM subject_versions v
        LEFT JOIN schemas s ON s.pk = v.schema_pk WHERE s.pk IS NULL""",
    "every reference names an existing subject version": """
        SELECT r.schema_pk, r.position FROM schema_references r
        WHERE NOT EXISTS (
            SELECT 1 FROM subject_versions v JOIN subjects s ON s.id = v.subject_id
            WHERE s.context = r.ref_context AND s.name = r.ref_subject AND v.version = r.ref_version)""",
    "no reference or fingerprint row outlives its schema": """
        SELECT r.schema_pk FROM schema_references r LEFT JOIN schemas s ON s.pk = r.schema_pk WHERE s.pk IS NULL
        UNION ALL
        SELECT f.schema_pk FROM schema_fingerprints f LEFT JOIN schemas s ON s.pk = f.schema_pk WHERE s.pk IS NULL""",
    "no stored schema is held by no version": """
        SELECT s.pk FROM schemas s WHERE NOT EXISTS (SELECT 1 FROM subject_versions v WHERE v.schema_pk = s.pk)""",
    "one id per content within a context": """
        SELECT context, hash FROM schemas GROUP BY context, hash HAVING count(*) > 1""",
}


def broken_invariants(database_url: str) -> dict[str, list[tuple[object, ...]]]:
    """Invariant -> offending rows, for every invariant that does not hold (empty: all hold)."""
    engine = create_engine(database_url)
    try:
        with engine.connect() as conn:
            found = {name: [tuple(r) for r in conn.execute(text(sql)).fetchmany(5)] for name, sql in INVARIANTS.items()}
    finally:
        engine.dispose()
    return {name: rows for name, rows in found.items() if rows}
