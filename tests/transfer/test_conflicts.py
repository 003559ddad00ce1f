"""Preflight conflicts: every kind stops the import with exit 3 before anything is written
(the target's REST snapshot is unchanged, no mode included)."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from transfer_helpers import Rest, record, run_cli, snapshot

from app.transfer.dump import read_dump, write_dump


@pytest.fixture
def source_dump(registry, tmp_path: Path) -> Path:
    source = Rest(registry("sqlite"))
    source.config(None, compatibility="NONE")
    source.register("orders-value", record("Order", ("id", "string")))
    source.register("orders-value", record("Order", ("id", "string"), ("qty", "int")))
    source.register("customers-value", record("Customer", ("name", "string")))
    path = tmp_path / "source.dump"
    done = run_cli("export", "--from", source.url, "--output", str(path))
    assert done.returncode == 0, done.stderr
    return path


def _import_is_refused(target_url: str, dump: Path) -> list[str]:
    before = snapshot(target_url)
    done = run_cli("import", "--to", target_url, str(dump))
    assert done.returncode == 3, done.stdout + done.stderr
    assert snapshot(target_url) == before
    assert "nothing written" in done.stderr and "Traceback" not in done.stderr
    assert not Path(str(dump) + ".import-state.json").exists()
    return [line for line in done.stderr.splitlines() if line.startswith("conflict: ")]


def test_a_version_holding_another_id_is_version_taken(registry, source_dump: Path) -> None:
    target = Rest(registry("sqlite"))
    target.register("unrelated", record("Unrelated", ("u", "int")))  # takes id 1 ...
    target.register("orders-value", record("Order", ("id", "string")))  # ... so this gets id 2
    lines = _import_is_refused(target.url, source_dump)
    assert "conflict: VERSION_TAKEN subject=orders-value version=1 id=1 target_id=2" in lines


def test_a_version_with_other_content_under_the_same_id_is_version_taken(registry, source_dump: Path) -> None:
    target = Rest(registry("sqlite"))
    target.register("orders-value", record("Other", ("x", "int")))  # version 1, id 1, other content
    lines = _import_is_refused(target.url, source_dump)
    assert any(line.startswith("conflict: VERSION_TAKEN subject=orders-value version=1 id=1 target_id=1")
               for line in lines)


def test_an_id_holding_other_content_is_id_taken(registry, source_dump: Path) -> None:
    target = Rest(registry("sqlite"))
    target.register("elsewhere", record("Elsewhere", ("e", "int")))  # id 1, which the dump needs
    lines = _import_is_refused(target.url, source_dump)
    assert any(line.startswith("conflict: ID_TAKEN context=. id=1") for line in lines)


def test_a_type_the_target_lacks_is_unsupported(registry, source_dump: Path, tmp_path: Path) -> None:
    dump = read_dump(source_dump)
    key = next(iter(dump.schemas))
    original = dump.schemas[key]
    dump.schemas[key] = type(original)(**{**original.__dict__, "schema_type": "XML"})
    dump.header["schemaTypes"] = sorted(dump.schema_types)
    edited = tmp_path / "xml.dump"
    with open(edited, "wb") as out:
        write_dump(dump, out)
    target = Rest(registry("sqlite"))
    lines = _import_is_refused(target.url, edited)
    assert any(line.startswith("conflict: UNSUPPORTED schemaType=XML") for line in lines)


def test_dry_run_lists_what_it_would_write_and_writes_nothing(registry, source_dump: Path) -> None:
    target = Rest(registry("sqlite"))
    before = snapshot(target.url)
    done = run_cli("import", "--to", target.url, str(source_dump), "--dry-run")
    assert done.returncode == 0, done.stderr
    assert "would write: subject=orders-value version=2 id=2" in done.stdout
    assert done.stdout.strip().endswith("dry run: 3 to write, 0 already present")
    assert snapshot(target.url) == before
    assert json.loads(source_dump.read_text().splitlines()[0])["type"] == "header"


def test_mirror_dry_run_lists_what_it_would_write_and_writes_nothing(registry) -> None:
    source, target = Rest(registry("sqlite")), Rest(registry("sqlite"))
    source.register("orders-value", record("Order", ("id", "string")))
    target.register("kept", record("Kept", ("k", "int")))
    target.call("DELETE", "/subjects/kept")
    target.call("DELETE", "/subjects/kept", permanent="true")  # id 1 is free, the counter is past it
    before = snapshot(target.url)
    done = run_cli("mirror", "--from", source.url, "--to", target.url, "--dry-run", "--verify")
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == ["would write: subject=orders-value version=1 id=1",
                                        "dry run: 1 to write, 0 already present"]
    assert snapshot(target.url) == before
