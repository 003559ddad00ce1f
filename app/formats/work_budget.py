"""A budget of CPU time for the work one request does inside a format: parsing, checking, diffing.

Every walk in a format is linear in the schemas' size, but a large schema near the request
limit can still take seconds, and a gunicorn worker killed at its timeout takes every other
request it was serving with it. So the request layer opens a budget (`limited`) and the long
loops of the formats and of the core call `check()` now and then; past the budget the work
ends with a refusal of its own, well before the worker's timeout.

The budget counts the CPU time of the thread that serves the request (`cpu_clock`), not the
time on the wall: on a busy host a request waits for a core without spending its budget, so a
valid schema is never refused for the host's load, and a refusal always means the work itself
was too large. Work done on the request's behalf in another process (a compiler run in a child)
is added with `charge`, so a child cannot spend more than the request may.

The budget lives in a context variable, so threads of one worker keep their own, and code
run outside any request (the CLI, the client, tests) has none and is never interrupted.
"""
from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable, Iterator
from typing import NoReturn
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field

from app.formats.base import SchemaParseError

# The clock the budget reads: CPU seconds of the calling thread. Tests replace it with their own.
cpu_clock: Callable[[], float] = time.thread_time


@dataclass
class _Budget:
    """One `limited` block: the thread it counts, its CPU reading at the start, the seconds it
    allows and the CPU seconds other processes spent for it. An inner budget charges its
    enclosing one too (`outer`), as their work is the same request's."""

    seconds: float
    thread: int
    started: float
    outer: _Budget | None
    charged: float = field(default=0.0)

    def spent(self) -> float:
        return cpu_clock() - self.started + self.charged


_current: ContextVar[_Budget | None] = ContextVar("work_budget", default=None)


class WorkBudgetExceeded(SchemaParseError):
    """The work ran past the request's budget. A `SchemaParseError`, so that every caller that
    already turns a format's refusal into 42201 answers this one too, with its own words."""

    def __init__(self, seconds: float) -> None:
        super().__init__(
            f"Processing the schema took longer than the registry allows ({seconds:g} s); "
            "the schema or the comparison is too large"
        )
        self.seconds = seconds


def _active() -> _Budget | None:
    """The budget of this thread's request: a context copied into another thread (whose CPU
    clock is another one) carries none."""
    budget = _current.get()
    if budget is None or budget.thread != threading.get_ident():
        return None
    return budget


@contextmanager
def limited(seconds: float | None) -> Iterator[None]:
    """Runs the block under a budget of `seconds` of CPU time (None or 0: no budget). A budget
    opened inside another never extends it: the one with less left holds."""
    if not seconds or seconds <= 0:
        yield
        return
    outer = _active()
    if outer is not None and outer.seconds - outer.spent() <= seconds:
        yield
        return
    token = _current.set(_Budget(seconds, threading.get_ident(), cpu_clock(), outer))
    try:
        yield
    finally:
        _current.reset(token)


def check() -> None:
    """Raises `WorkBudgetExceeded` once the current budget has run out; cheap (a context
    variable read, and a clock read only under a budget), so loops may call it per step."""
    budget = _current.get()
    if budget is not None and budget.spent() > budget.seconds and budget.thread == threading.get_ident():
        raise WorkBudgetExceeded(budget.seconds)


def remaining() -> float | None:
    """CPU seconds left in the current budget (None without one), for work that takes a limit
    of its own rather than calling `check` (a match with a timeout, a child process)."""
    budget = _active()
    return None if budget is None else max(0.0, budget.seconds - budget.spent())


def charge(cpu_seconds: float) -> None:
    """Counts CPU time spent for this request outside its thread (a child process's user and
    system time, from `os.wait4` or `resource.getrusage`) against the budget; the next `check`
    refuses if that spent it. Without a budget it does nothing."""
    budget = _active()
    while budget is not None:
        budget.charged += max(0.0, cpu_seconds)
        budget = budget.outer


def refuse() -> NoReturn:
    """Raises `WorkBudgetExceeded` for the current budget, for work stopped because it would
    have outrun what was left (a child process killed at the limit)."""
    budget = _active()
    raise WorkBudgetExceeded(budget.seconds if budget is not None else 0.0)


def process_cpu_seconds(pid: int, fallback: float) -> float:
    """Another process's CPU seconds so far, for a parent that charges a child's work to the
    request: from its process CPU clock where Python offers it, else from Linux's /proc (user and
    system ticks); `fallback` where neither can be read (the child just ended, another platform)."""
    try:
        return time.clock_gettime(time.clock_getcpuclockid(pid))
    except (AttributeError, OSError):
        pass
    try:
        with open(f"/proc/{pid}/stat", "rb") as stat:
            fields = stat.read(4096).rpartition(b")")[2].split()
        # After the command's name: state is field 3 of the man page, utime 14 and stime 15.
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError):
        return fallback
