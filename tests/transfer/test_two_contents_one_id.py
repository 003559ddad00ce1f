"""One id with two contents in a source: an error naming both subjects,
exit 1 with one line, and nothing written anywhere (no dump file, no standard output, no
change on a mirror's target).

Our server never serves that state, so the source is a real sqlregistry whose database was
changed with SQL: subject `b`'s version now points at the `.staging` context's schema row
that has id 1, while subject `a` in the default context holds the default context's id 1. A
fresh server on that database then answers `b` version 1 with id 1 and `a`'s id 1 with
different text, exactly as an inconsistent registry would. A dump can carry the same defect
as two schema records for one (context, id); the importer refuses it before any request."""
from __future__ import annotations

import hashlib
import json
import sqlite3
from pathlib import Path

import pytest

from transfer_helpers import Rest, record, run_cli, snapshot

from app.transfer.dump import Dump, SchemaRecord, VersionRecord, header, write_dump

EXPECTED = ("two different schemas under id 1 in context .: subject 'a' version 1 "
            "and subject 'b' version 1; nothing exported")


def _one_error_line(done) -> str:
    assert done.returncode == 1, done.stdout + done.stderr
    lines = done.stderr.strip().splitlines()
    errors = [line for line in lines if line.startswith("error: ")]
    assert len(errors) == 1 and errors[0] == lines[-1], done.stderr
    assert "Traceback" not in done.stderr
    return errors[0]


@pytest.fixture
def inconsistent_source(registry) -> tuple[str, str]:
    """(URL, database URL) of a live registry serving two contents under (".", 1)."""
    first = registry("sqlite")
    rest = Rest(first)
    assert rest.register("a", record("A", ("x", "int")))["id"] == 1
    assert rest.register(":.staging:a", record("Staged", ("y", "string")))["id"] == 1
    assert rest.register("b", record("B", ("z", "int")))["id"] == 2
    database = registry.databases[first]
    with sqlite3.connect(database.removeprefix("sqlite:///")) as db:
        changed = db.execute(
            "UPDATE subject_versions SET schema_pk = (SELECT pk FROM schemas WHERE context = '.staging' AND id = 1)"
            " WHERE subject_id = (SELECT id FROM subjects WHERE context = '.' AND name = 'b')").rowcount
    assert changed == 1
    source = registry("sqlite", database_url=database)  # a new process: nothing cached from before
    served_b, served_a = Rest(source).call("GET", "/subjects/b/versions/1"), Rest(source).call("GET", "/schemas/ids/1")
    assert served_b["id"] == 1 and served_b["schema"] != served_a["schema"]
    return source, database


def test_export_over_rest_names_both_subjects_and_writes_no_dump(inconsistent_source, tmp_path: Path) -> None:
    source, _ = inconsistent_source
    out = tmp_path / "dumps" / "never.dump"
    out.parent.mkdir()
    assert _one_error_line(run_cli("export", "--from", source, "--output", str(out))).endswith(EXPECTED)
    assert list(out.parent.iterdir()) == []  # neither the dump nor its `.partial`
    to_stdout = run_cli("export", "--from", source, "--workers", "1")
    assert _one_error_line(to_stdout).endswith(EXPECTED) and to_stdout.stdout == ""


def test_export_from_the_database_gives_the_same_error(inconsistent_source, tmp_path: Path) -> None:
    _, database = inconsistent_source
    out = tmp_path / "never.dump"
    assert _one_error_line(run_cli("export", "--database-url", database, "--output", str(out))).endswith(EXPECTED)
    assert not out.exists()


def test_mirror_stops_before_touching_the_target(inconsistent_source, registry) -> None:
    source, _ = inconsistent_source
    target = registry("sqlite")
    Rest(target).register("kept", record("Kept", ("k", "int")))
    before = snapshot(target)
    done = run_cli("mirror", "--from", source, "--to", target, "--verify")
    assert _one_error_line(done).endswith(EXPECTED)
    assert snapshot(target) == before


@pytest.mark.parametrize("same_content", [False, True], ids=["different-content", "repeated-record"])
def test_a_dump_with_two_records_for_one_id_is_refused_before_any_request(
        registry, tmp_path: Path, same_content: bool) -> None:
    """Hand-written: the writer keys schemas by (context, id), so only an edited or foreign
    file has two schema lines for one id; the reader stops at the second with both lines."""
    dump = Dump(header=header({"kind": "url", "url": "http://x", "serverVersion": None}, "2026-01-01T00:00:00Z",
                              ["AVRO"], {".": 1}))
    first = SchemaRecord(".", 1, "AVRO", record("A", ("x", "int")))
    dump.schemas[(".", 1)] = first
    dump.versions += [VersionRecord("a", ".", 1, 1, False), VersionRecord("b", ".", 1, 1, False)]
    second = first if same_content else SchemaRecord(".", 1, "AVRO", record("B", ("z", "int")))
    path = tmp_path / "two-records.dump"
    with open(path, "wb") as out:
        write_dump(dump, out)
    lines = path.read_text("utf-8").splitlines()
    assert json.loads(lines[1])["type"] == "schema"
    _write_with_end(lines[:2] + [json.dumps(second.to_json(), separators=(",", ":"))] + lines[2:-1], path)

    target = registry("sqlite")
    before = snapshot(target)
    what = "the same schema again" if same_content else "a different schema"
    for extra in ((), ("--dry-run",)):
        line = _one_error_line(run_cli("import", "--to", target, str(path), *extra))
        assert line == (f"error: {path} line 3: {what} under id 1 in context . (the first is on line 2); "
                        "one id must have one content")
    assert snapshot(target) == before
    assert not Path(str(path) + ".import-state.json").exists()


def _write_with_end(lines: list[str], path: Path) -> None:
    """`lines` and a correct end line, so the only defect left is the one under test."""
    body = "".join(line + "\n" for line in lines).encode()
    counts = dict.fromkeys(("context", "schema", "version", "config", "mode"), 0)
    for line in lines[1:]:
        counts[json.loads(line)["type"]] += 1
    end = {"type": "end", "counts": counts, "sha256": hashlib.sha256(body).hexdigest()}
    path.write_bytes(body + (json.dumps(end, separators=(",", ":")) + "\n").encode())
