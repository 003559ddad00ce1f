"""Import's id reservation: the source's highest id per context is reserved on the target
before any version is written, once: a second import sends no write at all, whether or not
the target answers `fetchMaxId`; afterwards the target's next id in each context is above the
source's `maxId`.

The target logs every write request it receives (wrapped_wsgi's `WriteLog`), so the order of
the writes and their number are read from the target itself."""
from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from transfer_helpers import Rest, record, run_cli

RESERVE = "_sqlregistry_reserve_"


def _writes(log: Path) -> list[str]:
    return log.read_text("utf-8").splitlines() if log.exists() else []


def _reserve_subjects_in(database_url: str) -> list[tuple[str, str, str | None]]:
    with sqlite3.connect(database_url.removeprefix("sqlite:///")) as db:
        return db.execute("SELECT context, name, mode FROM subjects WHERE name LIKE ?", (RESERVE + "%",)).fetchall()


@pytest.fixture
def source_dump(registry, tmp_path: Path) -> Path:
    """Two contexts whose highest ids (3 in `.`, 2 in `.staging`) were hard-deleted."""
    source = Rest(registry("sqlite"))
    assert [source.register(s, record(s.title(), ("f", "int")))["id"] for s in ("a", "b", "last")] == [1, 2, 3]
    assert source.register(":.staging:kept", record("Kept", ("k", "int")))["id"] == 1
    assert source.register(":.staging:gone", record("Gone", ("g", "int")))["id"] == 2
    for subject in ("last", ":.staging:gone"):
        source.call("DELETE", f"/subjects/{subject}")
        source.call("DELETE", f"/subjects/{subject}", permanent="true")
    path = tmp_path / "source.dump"
    done = run_cli("export", "--from", source.url, "--output", str(path))
    assert done.returncode == 0, done.stderr
    header = json.loads(path.read_text("utf-8").splitlines()[0])
    assert header["maxId"] == {".": 3, ".staging": 2}
    return path


@pytest.mark.parametrize("shape", [None, "no-max-id"], ids=["fetch-max-id", "without-fetch-max-id"])
def test_the_reservation_comes_first_and_a_second_import_writes_nothing(
        registry, source_dump: Path, tmp_path: Path, shape: str | None) -> None:
    log = tmp_path / "writes.log"
    target = registry("sqlite", shape=shape, write_log=log)

    dry = run_cli("import", "--to", target, str(source_dump), "--dry-run")
    assert dry.returncode == 0, dry.stderr
    assert dry.stdout.splitlines()[:2] == ["would reserve: context=. id=3", "would reserve: context=.staging id=2"]
    assert _writes(log) == []

    done = run_cli("import", "--to", target, str(source_dump))
    assert done.returncode == 0, done.stderr
    writes = _writes(log)
    registrations = [w for w in writes if w.startswith("POST ")]
    reservations = [w for w in registrations if RESERVE in w]
    assert [json.loads(w.split(" ", 2)[2])["id"] for w in reservations] == [3, 2]
    assert reservations[1].startswith("POST /subjects/:.staging:" + RESERVE)
    first_version = next(i for i, w in enumerate(writes) if w.startswith("POST ") and RESERVE not in w)
    last_reserve = max(i for i, w in enumerate(writes) if RESERVE in w)
    assert last_reserve < first_version, writes
    assert _reserve_subjects_in(registry.databases[target]) == []

    again = run_cli("import", "--to", target, str(source_dump))
    assert again.returncode == 0, again.stderr
    assert again.stdout.strip() == "0 written, 3 already present"
    assert _writes(log) == writes  # not one write request, the reservation included

    rest = Rest(target)
    assert rest.register("fresh", record("Fresh", ("n", "int")))["id"] > 3
    assert rest.register(":.staging:fresh", record("Fresh", ("n", "int")))["id"] > 2


def test_no_reservation_when_the_target_already_counted_past_the_source(
        registry, source_dump: Path, tmp_path: Path) -> None:
    """The target issued ids 1..10 in both contexts and kept only id 10 (the dump's 1 and 2 are
    free): its own `maxId`, asked of id 10, is above the source's, so nothing is reserved."""
    log = tmp_path / "writes.log"
    target = registry("sqlite", write_log=log)
    rest = Rest(target)
    for prefix in ("", ":.staging:"):
        for n in range(1, 11):
            rest.register(f"{prefix}own-{n}", record(f"Own{n}", ("o", "int")))
        for n in range(1, 10):
            rest.call("DELETE", f"/subjects/{prefix}own-{n}")
            rest.call("DELETE", f"/subjects/{prefix}own-{n}", permanent="true")
    before = _writes(log)
    dry = run_cli("import", "--to", target, str(source_dump), "--dry-run")
    assert dry.returncode == 0, dry.stderr
    assert "would reserve" not in dry.stdout and "would write: subject=a version=1 id=1" in dry.stdout
    done = run_cli("import", "--to", target, str(source_dump))
    assert done.returncode == 0, done.stderr
    assert not any(RESERVE in w for w in _writes(log)[len(before):])
