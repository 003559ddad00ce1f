"""The dump format on its own: what the writer writes is what the reader reads, the reader
ignores keys it does not know and refuses anything it cannot trust; and the import's write
order puts every referenced subject-version, and the first holder of an id, first."""
from __future__ import annotations

import hashlib
import io
import json
from pathlib import Path

import pytest

from app.transfer.dump import Dump, DumpError, SchemaRecord, SettingRecord, VersionRecord, header, read_dump, write_dump
from app.transfer.importer import levels_for_writing


def _sample() -> Dump:
    dump = Dump(header=header({"kind": "url", "url": "http://sr:8081", "serverVersion": "8.1.0"},
                              "2026-11-22T10:00:00Z", ["AVRO"], {".": 9, ".staging": 1}))
    dump.contexts = [".staging"]
    dump.schemas[(".", 1)] = SchemaRecord(".", 1, "AVRO", '"string"', guid="g-1")
    dump.schemas[(".", 2)] = SchemaRecord(".", 2, "AVRO", '{"type":"record","name":"U","fields":[]}',
                                          references=(("R", "ref", 1),), metadata={"properties": {"o": "x"}})
    dump.schemas[(".staging", 1)] = SchemaRecord(".staging", 1, "AVRO", '"int"')
    dump.versions = [VersionRecord("ref", ".", 1, 1, False), VersionRecord("user", ".", 1, 2, True),
                     VersionRecord(":.staging:x", ".staging", 1, 1, False)]
    dump.configs = [SettingRecord("config", "global", ".", None, {"compatibility": "FULL"})]
    dump.modes = [SettingRecord("mode", "subject", ".", "ref", "READONLY")]
    return dump


def _written(dump: Dump, path: Path) -> bytes:
    buffer = io.BytesIO()
    write_dump(dump, buffer)
    path.write_bytes(buffer.getvalue())
    return buffer.getvalue()


def test_what_is_written_reads_back_equal(tmp_path: Path) -> None:
    path = tmp_path / "d.dump"
    data = _written(_sample(), path)
    back = read_dump(path)
    assert list(back.records()) == list(_sample().records())  # the order the format prescribes
    lines = data.decode().splitlines()
    assert [json.loads(line)["type"] for line in lines] == [
        "header", "context", "schema", "schema", "schema", "version", "version", "version", "config", "mode", "end"]
    end = json.loads(lines[-1])
    assert end["counts"] == {"context": 1, "schema": 3, "version": 3, "config": 1, "mode": 1}
    assert end["sha256"] == hashlib.sha256(data[: data.rindex(b'{"type":"end"')]).hexdigest()
    assert "references" not in json.loads(lines[2]) and "metadata" in json.loads(lines[3])


def test_keys_the_reader_does_not_know_are_ignored(tmp_path: Path) -> None:
    lines = _written(_sample(), tmp_path / "d.dump").decode().splitlines()
    extended = []
    for line in lines[:-1]:
        record = json.loads(line)
        record["addedInAFutureVersion"] = {"x": 1}
        extended.append(json.dumps(record) + "\n")
    body = "".join(extended).encode()
    end = json.loads(lines[-1])
    end["sha256"] = hashlib.sha256(body).hexdigest()
    (tmp_path / "e.dump").write_bytes(body + (json.dumps(end) + "\n").encode())
    assert list(read_dump(tmp_path / "e.dump").records())[1:] == list(_sample().records())[1:]


@pytest.mark.parametrize(("edit", "message"), [
    (lambda lines: lines[:1] + lines[2:3] + lines[1:2] + lines[3:], "out of order"),
    (lambda lines: lines[1:], "must start with its header"),
    (lambda lines: lines + lines[-1:], "content after the end line"),
    (lambda lines: [], "empty file"),
    (lambda lines: lines[:5] + ['{"type":"tablespace"}'] + lines[5:], "unknown or missing"),
])
def test_the_reader_refuses_a_dump_it_cannot_trust(tmp_path: Path, edit, message: str) -> None:
    lines = _written(_sample(), tmp_path / "d.dump").decode().splitlines()
    (tmp_path / "bad.dump").write_text("".join(line + "\n" for line in edit(lines)), "utf-8")
    with pytest.raises(DumpError, match=message):
        read_dump(tmp_path / "bad.dump")


def test_a_version_without_its_schema_record_is_refused(tmp_path: Path) -> None:
    dump = _sample()
    dump.versions.append(VersionRecord("orphan", ".", 1, 42, False))
    _written(dump, tmp_path / "d.dump")
    with pytest.raises(DumpError, match="no schema record"):
        read_dump(tmp_path / "d.dump")


def test_write_waves_put_references_and_an_ids_first_holder_first() -> None:
    dump = Dump(header={})
    dump.schemas[(".", 1)] = SchemaRecord(".", 1, "AVRO", "money")
    dump.schemas[(".", 2)] = SchemaRecord(".", 2, "AVRO", "price", references=(("M", "money", 1),))
    dump.schemas[(".", 3)] = SchemaRecord(".", 3, "AVRO", "line", references=(("P", "price", 1),))
    dump.schemas[(".staging", 1)] = SchemaRecord(".staging", 1, "AVRO", "x", references=(("M", "money", 1),))
    dump.schemas[(".staging", 2)] = SchemaRecord(".staging", 2, "AVRO", "money")
    versions = [VersionRecord("order-line", ".", 1, 3, False), VersionRecord("price", ".", 1, 2, False),
                VersionRecord("money", ".", 1, 1, False), VersionRecord("money-copy", ".", 1, 1, False),
                VersionRecord(":.staging:money", ".staging", 1, 2, False),
                VersionRecord(":.staging:x", ".staging", 2, 1, False)]
    dump.versions = versions
    waves = [[(v.subject, v.version) for v in wave] for wave in levels_for_writing(dump, versions)]
    assert waves[0] == [("money", 1), (":.staging:money", 1)]
    assert waves[1] == [("money-copy", 1), ("price", 1), (":.staging:x", 2)]
    assert waves[2] == [("order-line", 1)]
