"""Running a command from a test: a generous time limit, and a failure that says what was
still running when it ran out.

A limit is there to end a hung run, not to time the command: on a loaded machine (a CI
runner, or two cores shared by many workers) a command that takes 20 s alone can take ten
times that, and a tight limit turns load into a failure that names nothing. When the limit
is reached, the command's process tree (pid and command line of each process still alive)
and the tail of what it printed are in the failure, then the tree is killed.
"""
from __future__ import annotations

import os
import signal
import subprocess
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

GENEROUS_SECONDS = 900.0
TAIL_CHARS = 2000


def process_tree(root: int) -> list[str]:
    """`pid command line` of `root` and every process below it that is still alive (from /proc)."""
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        parent = int(stat.rpartition(")")[2].split()[1])
        children.setdefault(parent, []).append(int(entry.name))
    lines, stack = [], [root]
    while stack:
        pid = stack.pop()
        try:
            command = (Path("/proc") / str(pid) / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        lines.append(f"{pid} {command.strip()[:300]}")
        stack.extend(sorted(children.get(pid, []), reverse=True))
    return lines


def _tail(text: str | bytes | None) -> str:
    if not text:
        return "(nothing)"
    if isinstance(text, bytes):
        text = text.decode(errors="replace")
    return text[-TAIL_CHARS:]


def timed_out(command: Any, seconds: float, process: subprocess.Popen[Any]) -> str:
    """The failure message for `process` still running after `seconds`; kills its tree."""
    tree = process_tree(process.pid)
    for line in reversed(tree):  # the leaves first, so that no parent restarts them
        try:
            os.kill(int(line.split()[0]), signal.SIGKILL)
        except OSError:
            pass
    out, err = process.communicate()
    shown = " ".join(map(str, command)) if isinstance(command, (list, tuple)) else str(command)
    return (f"{shown[:500]} still running after {seconds:.0f}s; its processes then:\n  " + "\n  ".join(tree)
            + f"\nstdout (end): {_tail(out)}\nstderr (end): {_tail(err)}")


def run_command(
    args: Sequence[Any], *, timeout: float = GENEROUS_SECONDS, check: bool = False, capture_output: bool = False,
    input: str | bytes | None = None, **popen: Any,
) -> subprocess.CompletedProcess[Any]:
    """`subprocess.run` with a generous default limit; a command still running at the limit
    fails the test with `timed_out`'s message instead of raising TimeoutExpired."""
    if capture_output:
        popen["stdout"] = popen["stderr"] = subprocess.PIPE
    if input is not None:
        popen["stdin"] = subprocess.PIPE
    with subprocess.Popen(args, **popen) as process:
        try:
            out, err = process.communicate(input, timeout=timeout)
        except subprocess.TimeoutExpired:
            pytest.fail(timed_out(args, timeout, process), pytrace=False)
    result = subprocess.CompletedProcess(args, process.returncode, out, err)
    if check:
        result.check_returncode()
    return result


def communicate(process: subprocess.Popen[Any], timeout: float = GENEROUS_SECONDS) -> tuple[Any, Any]:
    """`process.communicate()` within the limit, failing as `run_command` does."""
    try:
        return process.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        pytest.fail(timed_out(process.args, timeout, process), pytrace=False)


def wait(process: subprocess.Popen[Any], timeout: float = GENEROUS_SECONDS) -> int:
    """`process.wait()` within the limit, failing as `run_command` does."""
    try:
        return process.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        pytest.fail(timed_out(process.args, timeout, process), pytrace=False)
