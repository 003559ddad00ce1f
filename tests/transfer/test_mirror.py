"""`mirror --verify` between two live registries (SQLite and PostgreSQL, both directions) and
the export/import round trip, on the source history `build_history` writes."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from transfer_helpers import ODD_SUBJECT, Rest, build_history, record, run_cli, snapshot

from app.transfer.dump import read_dump

DIRECTIONS = [pytest.param("sqlite", "postgres", marks=pytest.mark.postgres, id="sqlite-to-postgres"),
              pytest.param("postgres", "sqlite", marks=pytest.mark.postgres, id="postgres-to-sqlite")]


@pytest.mark.parametrize(("source_kind", "target_kind"), DIRECTIONS)
def test_mirror_verify_copies_ids_versions_deletions_configs_and_modes(registry, source_kind, target_kind) -> None:
    source, target = registry(source_kind), registry(target_kind)
    facts = build_history(source)
    done = run_cli("mirror", "--from", source, "--to", target, "--verify")
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.strip().endswith("0 differences")
    assert "\r" not in done.stderr
    assert snapshot(target) == snapshot(source)
    # The source's hard-deleted highest id is never handed out by the target.
    fresh = Rest(target).register("after-mirror", record("After", ("q", "int")))
    assert fresh["id"] > facts["max_id"]


def _records(path: Path) -> list[dict]:
    lines = [json.loads(line) for line in path.read_text("utf-8").splitlines()]
    return [r for r in lines if r["type"] not in ("header", "end")]


@pytest.mark.postgres
def test_round_trip_dumps_are_equal_apart_from_the_header(registry, tmp_path: Path) -> None:
    source, target = registry("sqlite"), registry("postgres")
    build_history(source)
    first, second = tmp_path / "a.dump", tmp_path / "b.dump"
    assert run_cli("export", "--from", source, "--output", str(first)).returncode == 0
    imported = run_cli("import", "--to", target, str(first))
    assert imported.returncode == 0, imported.stderr
    assert run_cli("export", "--from", target, "--output", str(second)).returncode == 0
    assert _records(first) == _records(second)
    a, b = read_dump(first).header, read_dump(second).header
    assert {k: v for k, v in a.items() if k not in ("createdAt", "source")} == \
           {k: v for k, v in b.items() if k not in ("createdAt", "source")}
    assert not (tmp_path / "a.dump.import-state.json").exists()
    versions = [r for r in _records(first) if r["type"] == "version"]
    assert {r["subject"] for r in versions} >= {ODD_SUBJECT, ":.staging:orders-value", "retired"}
    assert any(r["deleted"] for r in versions)


def test_second_import_writes_nothing(registry, tmp_path: Path) -> None:
    source, target = registry("sqlite"), registry("sqlite")
    build_history(source)
    dump = tmp_path / "a.dump"
    assert run_cli("export", "--from", source, "--output", str(dump)).returncode == 0
    first = run_cli("import", "--to", target, str(dump))
    assert first.returncode == 0, first.stderr
    before = snapshot(target)
    again = run_cli("import", "--to", target, str(dump))
    assert again.returncode == 0, again.stderr
    versions = len(read_dump(dump).versions)
    assert again.stdout.strip() == f"0 written, {versions} already present"
    assert "(0 write requests)" in again.stderr
    assert snapshot(target) == before


def test_the_dump_does_not_depend_on_the_worker_count(registry, tmp_path: Path) -> None:
    source = registry("sqlite")
    build_history(source)
    one, many = tmp_path / "one.dump", tmp_path / "many.dump"
    assert run_cli("export", "--from", source, "--workers", "1", "--output", str(one)).returncode == 0
    assert run_cli("export", "--from", source, "--workers", "8", "--output", str(many)).returncode == 0
    assert _records(one) == _records(many)
    assert read_dump(one).header["maxId"] == read_dump(many).header["maxId"]
