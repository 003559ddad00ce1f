"""A source that answers in 7.x shapes (no `schemaType` for AVRO, no `deleted`, `ts` or
`guid`): soft deletes are found by comparing the two version lists, AVRO is assumed, and the
mirror verifies clean against the same registry seen without the middleware."""
from __future__ import annotations

from pathlib import Path

import requests

from transfer_helpers import build_history, run_cli, snapshot

from app.transfer.dump import read_dump


def test_a_7x_source_exports_the_same_dump_as_its_8x_self(registry, tmp_path: Path) -> None:
    # One database, two servers: the 7.x-shaped one reads what the plain one wrote.
    plain = registry("sqlite")
    build_history(plain)
    seven = registry("sqlite", shape="7x", database_url=f"sqlite:///{tmp_path / 'registry-0.db'}")
    reply = requests.get(f"{seven}/subjects/soft/versions/1", params={"deleted": "true"}, timeout=10).json()
    assert {"deleted", "ts", "guid", "schemaType"}.isdisjoint(reply)

    from_plain, from_seven = tmp_path / "plain.dump", tmp_path / "seven.dump"
    assert run_cli("export", "--from", plain, "--output", str(from_plain)).returncode == 0
    done = run_cli("export", "--from", seven, "--output", str(from_seven))
    assert done.returncode == 0, done.stderr
    a, b = read_dump(from_plain), read_dump(from_seven)
    assert a.versions == b.versions  # soft-deleted flags included
    assert {k: (s.schema_type, s.schema, s.references) for k, s in a.schemas.items()} == \
           {k: (s.schema_type, s.schema, s.references) for k, s in b.schemas.items()}
    assert any(v.deleted for v in b.versions)

    target = registry("sqlite")
    mirrored = run_cli("mirror", "--from", seven, "--to", target, "--verify")
    assert mirrored.returncode == 0, mirrored.stdout + mirrored.stderr
    assert snapshot(target) == snapshot(plain)
