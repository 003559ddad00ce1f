"""`--database-url`: export reads a database directly (also what REST cannot list), import
writes one in a single transaction through the registry service (all or nothing)."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from transfer_helpers import Rest, build_history, record, run_cli, snapshot

from app.transfer.dump import Dump, SchemaRecord, VersionRecord, header, read_dump, write_dump


def _records(path: Path) -> list[dict]:
    return [r for r in map(json.loads, path.read_text("utf-8").splitlines()) if r["type"] not in ("header", "end")]


@pytest.mark.postgres
def test_database_export_equals_rest_export_plus_settings_rest_cannot_list(registry, tmp_path: Path) -> None:
    source = registry("postgres")
    build_history(source)
    Rest(source).config("never-had-a-version", compatibility="NONE")
    Rest(source).mode("never-had-a-version", "READONLY")
    over_rest, direct = tmp_path / "rest.dump", tmp_path / "db.dump"
    assert run_cli("export", "--from", source, "--output", str(over_rest)).returncode == 0
    done = run_cli("export", "--database-url", registry.databases[source], "--output", str(direct))
    assert done.returncode == 0, done.stderr
    rest_records, db_records = _records(over_rest), _records(direct)
    extra = [r for r in db_records if r not in rest_records]
    assert [r for r in db_records if r not in extra] == rest_records
    assert sorted((r["type"], r.get("subject")) for r in extra) == [
        ("config", "never-had-a-version"), ("mode", "never-had-a-version")]
    assert read_dump(direct).header["source"]["kind"] == "database"
    assert read_dump(direct).header["maxId"] == read_dump(over_rest).header["maxId"]


@pytest.mark.postgres
def test_database_import_matches_a_rest_mirror_and_is_idempotent(registry, empty_pg: str, tmp_path: Path) -> None:
    source = registry("sqlite")
    build_history(source)
    dump = tmp_path / "history.dump"
    assert run_cli("export", "--from", source, "--output", str(dump)).returncode == 0
    done = run_cli("import", "--database-url", empty_pg, str(dump))
    assert done.returncode == 0, done.stderr
    again = run_cli("import", "--database-url", empty_pg, str(dump))
    assert again.returncode == 0 and again.stdout.startswith("0 written")
    target = registry("postgres", database_url=empty_pg)
    assert snapshot(target) == snapshot(source)
    assert run_cli("verify", "--from", source, "--to", target).returncode == 0


@pytest.mark.postgres
def test_a_failure_half_way_leaves_the_database_untouched(registry, empty_pg: str, tmp_path: Path) -> None:
    """The last version references a subject-version that exists nowhere: its registration
    fails after the others were written, and the one transaction takes them all back."""
    dump = Dump(header=header({"kind": "url", "url": "http://x", "serverVersion": None}, "2026-01-01T00:00:00Z",
                              ["AVRO"], {".": 3}))
    for n, subject in enumerate(["a", "b"], start=1):
        dump.schemas[(".", n)] = SchemaRecord(".", n, "AVRO", record(f"R{n}", ("f", "int")))
        dump.versions.append(VersionRecord(subject, ".", 1, n, False))
    dump.schemas[(".", 3)] = SchemaRecord(".", 3, "AVRO", record("Broken", ("m", "com.acme.Missing")),
                                          references=(("com.acme.Missing", "missing", 1),))
    dump.versions.append(VersionRecord("c", ".", 1, 3, False))
    path = tmp_path / "broken-refs.dump"
    with open(path, "wb") as out:
        write_dump(dump, out)
    target = registry("postgres", database_url=empty_pg)
    before = snapshot(target)
    done = run_cli("import", "--database-url", empty_pg, str(path))
    errors = [line for line in done.stderr.splitlines() if line.startswith("error: ")]
    assert done.returncode == 1 and len(errors) == 1 and "missing" in errors[0], done.stderr
    assert "Traceback" not in done.stderr
    assert snapshot(target) == before
    assert Rest(target).call("GET", "/subjects", deleted="true") == []


def test_a_database_that_is_missing_or_not_migrated_is_one_error_line(tmp_path: Path) -> None:
    good = tmp_path / "good.dump"
    dump = Dump(header=header({"kind": "url", "url": "http://x", "serverVersion": None}, "2026-01-01T00:00:00Z",
                              [], {}))
    with open(good, "wb") as out:
        write_dump(dump, out)
    for url in (f"sqlite:///{tmp_path / 'absent.db'}", "nonsense://nowhere"):
        for args in (("export", "--database-url", url, "--output", str(tmp_path / "x.dump")),
                     ("import", "--database-url", url, str(good))):
            done = run_cli(*args)
            assert done.returncode == 1, done.stderr
            lines = done.stderr.strip().splitlines()
            assert len(lines) == 1 and lines[0].startswith("error: "), done.stderr
    assert not (tmp_path / "absent.db").exists() and not (tmp_path / "x.dump").exists()


def test_an_import_into_a_missing_sqlite_file_says_to_run_db_upgrade_first(tmp_path: Path) -> None:
    dump = tmp_path / "good.dump"
    with open(dump, "wb") as out:
        write_dump(Dump(header=header({"kind": "url", "url": "http://x", "serverVersion": None},
                                      "2026-01-01T00:00:00Z", [], {})), out)
    url = f"sqlite:///{tmp_path / 'absent.db'}"
    done = run_cli("import", "--database-url", url, str(dump))
    assert (done.returncode, done.stderr.splitlines()) == (1, [
        f"error: {tmp_path / 'absent.db'} does not exist: run `sqlregistry db upgrade --database-url {url}` first "
        "to create it (an import writes into a registry database, it does not make one)"])
    assert not (tmp_path / "absent.db").exists()


def test_a_database_export_run_in_process_leaves_the_callers_logging_as_it_was(database_url: str, tmp_path: Path,
                                                                             caplog: pytest.LogCaptureFixture) -> None:
    import logging

    from app.cli.main import main

    app_logger = logging.getLogger("app")
    before = app_logger.level
    assert main(["export", "--database-url", database_url, "--output", str(tmp_path / "out.dump"),
                 "--no-progress"]) == 0
    assert app_logger.level == before
    with caplog.at_level(logging.WARNING):
        logging.getLogger("app.security").warning("still heard")
    assert [r.getMessage() for r in caplog.records] == ["still heard"]
