"""Progress on stderr: tqdm bars on a terminal, one summary line per phase otherwise.

Standard output may be the dump itself (`export` to `-`), so nothing here ever writes there.
Through a pipe or into a log file a bar's carriage returns are noise, so each phase then
prints a single line when it ends, with its count, time and rate.
"""
from __future__ import annotations

import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import IO, Any


class Phase:
    """A running phase; `advance` is thread-safe (workers report as they finish)."""

    def __init__(self, bar: Any) -> None:
        self._bar = bar
        self._lock = threading.Lock()
        self.done = 0

    def advance(self, n: int = 1) -> None:
        with self._lock:
            self.done += n
            if self._bar is not None:
                self._bar.update(n)


class Progress:
    def __init__(self, enabled: bool = True, stream: IO[str] | None = None) -> None:
        self.stream = stream or sys.stderr
        self.bars = enabled and _is_terminal(self.stream)
        self.lines = not self.bars  # `--no-progress` drops the bars, not the summaries
        self.timings: dict[str, tuple[int, float]] = {}  # phase -> (items, seconds), for the bench

    @contextmanager
    def phase(self, name: str, total: int | None, unit: str = "item") -> Iterator[Phase]:
        bar = None
        if self.bars:
            from tqdm import tqdm

            bar = tqdm(total=total, desc=name, unit=unit, file=self.stream, leave=True,
                       ncols=None if _columns(self.stream) else 80)  # a terminal may report 0 columns
        phase = Phase(bar)
        started = time.monotonic()
        try:
            yield phase
        finally:
            elapsed = time.monotonic() - started
            self.timings[name] = (phase.done, elapsed)
            if bar is not None:
                bar.close()
            elif self.lines:
                rate = phase.done / elapsed if elapsed > 0 else 0.0
                self.note(f"{name}: {counted(phase.done, unit)} in {elapsed:.1f}s ({rate:.0f}/s)")

    def note(self, line: str) -> None:
        """A line for the operator, kept clear of a bar that may be drawing."""
        print(line, file=self.stream, flush=True)

    def result(self, note: str, outcome: str, out: IO[str] | None = None) -> None:
        """A command's result: `outcome` on standard output (what a script reads), `note` (the
        same with detail) on the progress stream for the operator, unless standard output is
        a terminal too, where the two would read as one summary printed twice."""
        out = out or sys.stdout
        if not _is_terminal(out):
            self.note(note)
        print(outcome, file=out, flush=True)


def counted(n: int, noun: str) -> str:
    """"1 mode", "2 modes": an operator reads these lines, and "1 modes" reads as a slip."""
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


def _columns(stream: IO[str]) -> int:
    import os

    try:
        return os.get_terminal_size(stream.fileno()).columns
    except (AttributeError, OSError, ValueError):
        return 0


def _is_terminal(stream: IO[str]) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False
