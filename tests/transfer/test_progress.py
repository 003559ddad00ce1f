"""Progress goes to stderr: bars when stderr is a terminal, one line per phase through a pipe
(no carriage returns); standard output carries only the dump."""
from __future__ import annotations

import fcntl
import os
import pty
import struct
import termios
import subprocess
import sys
from pathlib import Path

from transfer_helpers import Rest, record, run_cli

from support.commands import wait
from support.live import REPO_ROOT

from app.transfer.dump import read_dump


def _terminal() -> tuple[int, int]:
    """A pseudo-terminal of 100 columns (a fresh one reports 0)."""
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 100, 0, 0))
    return master, slave


def _source(registry) -> str:
    source = Rest(registry("sqlite"))
    for n in range(5):
        source.register(f"subject-{n}", record(f"R{n}", ("a", "int")))
    return source.url


def test_a_terminal_gets_bars_on_stderr_and_stdout_only_the_dump(registry, tmp_path: Path) -> None:
    source = _source(registry)
    master, slave = _terminal()
    out = tmp_path / "stdout.dump"
    with open(out, "wb") as stdout:
        process = subprocess.Popen([sys.executable, "-m", "app.cli", "export", "--from", source],
                                   cwd=REPO_ROOT, stdout=stdout, stderr=slave)
    os.close(slave)
    text = _read_terminal(master)
    assert wait(process) == 0
    os.close(master)
    assert "\r" in text and "export" in text and "5/5" in text
    assert len(read_dump(out).versions) == 5


def test_a_pipe_gets_one_line_per_phase_without_carriage_returns(registry, tmp_path: Path) -> None:
    source = _source(registry)
    target = registry("sqlite")
    done = run_cli("mirror", "--from", source, "--to", target, "--verify")
    assert done.returncode == 0, done.stderr
    assert "\r" not in done.stderr
    phases = [line.split(":")[0] for line in done.stderr.splitlines()]
    assert phases == ["export", "preflight", "IMPORT mode", "write", "configs", "modes", "import", "verify"]


def _read_terminal(master: int) -> str:
    seen = b""
    while True:
        try:
            chunk = os.read(master, 4096)
        except OSError:  # the child closed the terminal
            break
        if not chunk:
            break
        seen += chunk
    return seen.decode("utf-8", "replace")


def test_an_import_on_a_terminal_shows_every_step_after_the_writes_and_its_summary_once(
    registry, tmp_path: Path
) -> None:
    source = _source(registry)
    dump = tmp_path / "source.dump"
    assert run_cli("export", "--from", source, "--output", str(dump)).returncode == 0
    master, slave = _terminal()
    process = subprocess.Popen([sys.executable, "-m", "app.cli", "import", "--to", registry("sqlite"), str(dump)],
                               cwd=REPO_ROOT, stdout=slave, stderr=slave)
    os.close(slave)
    text = _read_terminal(master)
    assert wait(process) == 0
    os.close(master)
    # After the versions, restoring each subject's mode is a bar of its own, not a silent wait.
    assert "write: 100%" in text and "modes: 100%" in text
    assert text.index("write: 100%") < text.index("modes: 100%")
    assert text.count("written, 0 already present") == 1, text


def test_no_progress_keeps_a_terminal_free_of_bars(registry, tmp_path: Path) -> None:
    source = _source(registry)
    master, slave = _terminal()
    process = subprocess.Popen([sys.executable, "-m", "app.cli", "export", "--from", source, "--no-progress",
                                "--output", str(tmp_path / "x.dump")], cwd=REPO_ROOT, stdout=slave, stderr=slave)
    os.close(slave)
    seen = b""
    while True:
        try:
            chunk = os.read(master, 4096)
        except OSError:
            break
        if not chunk:
            break
        seen += chunk
    assert wait(process) == 0
    os.close(master)
    text = seen.decode()
    # Summary lines only (the terminal itself turns each \n into \r\n): no bar, no redraw.
    assert "%|" not in text and text.count("export:") == 2
    assert text.replace("\r\n", "").count("\r") == 0


def test_the_export_summary_counts_one_of_a_kind_in_the_singular(registry, tmp_path: Path) -> None:
    source = Rest(registry("sqlite"))
    source.register("only-subject", record("Only", ("a", "int")))
    done = run_cli("export", "--from", source.url, "--output", str(tmp_path / "one.dump"))
    assert done.returncode == 0, done.stderr
    summary = done.stderr.splitlines()[-1]
    assert summary.startswith("export: 1 version, 1 schema, ")
    assert " 1 modes" not in summary and " 1 configs" not in summary
