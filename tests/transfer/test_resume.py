"""An importer killed (SIGKILL) half-way is finished by running it again: the re-run exits 0,
the target verifies clean, no subject is left in IMPORT mode and the state file is gone.

The target holds its N-th write request until the test has killed the importer, so each
case stops at a point it chose: the first write (the id reservation's mode change), the
reservation's placeholder, amid the version writes, and in the configs and modes at the end.
The target's database is read afterwards too, since REST lists no subject that has only a
mode (as the reservation's temporary subject has for a moment)."""
from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from transfer_helpers import Rest, build_history, record, run_cli, seg

from support.live import REPO_ROOT


def _kill_at_the_held_write(args: list[str], control: Path) -> None:
    """Run `sqlregistry ARGS`, SIGKILL it while the target holds its chosen write, then let
    that write complete, as a request in flight would."""
    process = subprocess.Popen([sys.executable, "-m", "app.cli", *args], cwd=REPO_ROOT,
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 60
    while not (control / "paused").exists():
        assert process.poll() is None, "the command ended before reaching the write to stop at"
        assert time.monotonic() < deadline
        time.sleep(0.05)
    os.kill(process.pid, signal.SIGKILL)
    process.wait()
    (control / "release").touch()
    time.sleep(0.5)


def _assert_finished(registry, source: str, target: str, max_id: int) -> None:
    """The target verifies clean, no subject (not even one REST cannot list) is left in IMPORT
    mode, no reservation subject remains, and new ids start above the source's highest."""
    verified = run_cli("verify", "--from", source, "--to", target)
    assert verified.returncode == 0, verified.stdout + verified.stderr
    rest = Rest(target)
    for subject in rest.call("GET", "/subjects", deleted="true"):
        mode = rest.call("GET", f"/mode/{seg(subject)}", ok=(200, 404))
        assert mode is None or "error_code" in mode or mode["mode"] != "IMPORT", subject
    with sqlite3.connect(registry.databases[target].removeprefix("sqlite:///")) as db:
        assert db.execute("SELECT name FROM subjects WHERE mode = 'IMPORT'").fetchall() == []
        assert db.execute("SELECT name FROM subjects WHERE name LIKE '_sqlregistry_reserve_%'").fetchall() == []
    assert rest.register("fresh", record("Fresh", ("n", "int")))["id"] > max_id


@pytest.mark.parametrize("kill_at_write", [1, 2, 20, 50],
                         ids=["first-mode-change", "reservation-placeholder", "amid-versions", "settings"])
def test_a_killed_import_is_finished_by_running_it_again(registry, tmp_path: Path, kill_at_write: int) -> None:
    source = registry("sqlite")
    facts = build_history(source)
    dump = tmp_path / "history.dump"
    assert run_cli("export", "--from", source, "--output", str(dump)).returncode == 0
    control = tmp_path / "control"
    control.mkdir()
    target = registry("sqlite", pause_at=kill_at_write, pause_dir=control)

    _kill_at_the_held_write(["import", "--to", target, str(dump)], control)
    state = Path(str(dump) + ".import-state.json")
    assert state.exists()
    pending = [c for c, r in json.loads(state.read_text("utf-8"))["reservations"].items() if not r["done"]]
    assert pending == (["."] if kill_at_write <= 2 else [])  # the reservation runs first, in "." only

    again = run_cli("import", "--to", target, str(dump))
    assert again.returncode == 0, again.stdout + again.stderr
    assert not state.exists()
    _assert_finished(registry, source, target, facts["max_id"])


def test_a_killed_mirror_is_finished_by_running_it_again(registry, tmp_path: Path) -> None:
    """The mirror's dump is temporary, but its state file (named after the target) is not:
    the second mirror restores the modes of subjects the first one had finished writing."""
    source = registry("sqlite")
    facts = build_history(source)
    control = tmp_path / "control"
    control.mkdir()
    target = registry("sqlite", pause_at=20, pause_dir=control)

    _kill_at_the_held_write(["mirror", "--from", source, "--to", target], control)
    again = run_cli("mirror", "--from", source, "--to", target, "--verify")
    assert again.returncode == 0, again.stdout + again.stderr
    assert again.stdout.strip().endswith("0 differences")
    _assert_finished(registry, source, target, facts["max_id"])


def test_a_re_run_that_meets_a_conflict_puts_back_the_modes_the_killed_run_changed(registry, tmp_path: Path) -> None:
    """Between the killed run and the re-run another writer took a version the dump still
    has to write: the re-run reports the conflict (exit 3, no version written) and puts the
    subjects the first run had set to IMPORT back in their earlier mode."""
    source = registry("sqlite")
    build_history(source)
    dump = tmp_path / "history.dump"
    assert run_cli("export", "--from", source, "--output", str(dump)).returncode == 0
    control = tmp_path / "control"
    control.mkdir()
    target = registry("sqlite", pause_at=20, pause_dir=control)
    _kill_at_the_held_write(["import", "--to", target, str(dump)], control)

    rest = Rest(target)
    lines = [json.loads(line) for line in dump.read_text("utf-8").splitlines()]
    def unwritten_under_import_mode(v: dict) -> bool:
        path = f"/subjects/{seg(v['subject'])}"
        return ("error_code" in rest.call("GET", f"{path}/versions/{v['version']}", ok=(200, 404), deleted="true")
                and rest.call("GET", f"/mode/{seg(v['subject'])}", ok=(200, 404)).get("mode") == "IMPORT")

    taken = next(v for v in lines if v["type"] == "version" and v["context"] == "." and unwritten_under_import_mode(v))
    intruder = record("Intruder", ("x", "string"))
    rest.call("POST", f"/subjects/{seg(taken['subject'])}/versions",
              body={"schema": intruder, "id": 9000, "version": taken["version"]})

    again = run_cli("import", "--to", target, str(dump))
    assert again.returncode == 3, again.stdout + again.stderr
    assert f"VERSION_TAKEN subject={taken['subject']} version={taken['version']}" in again.stderr
    assert "put back the modes" in again.stderr
    with sqlite3.connect(registry.databases[target].removeprefix("sqlite:///")) as db:
        assert db.execute("SELECT name FROM subjects WHERE mode = 'IMPORT'").fetchall() == []
    assert not Path(str(dump) + ".import-state.json").exists()
