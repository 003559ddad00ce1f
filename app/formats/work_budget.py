"""A time budget for the work one request does inside a format: parsing, checking, diffing.

Every walk in a format is linear in the schemas' size, but a large schema near the request
limit can still take seconds, and a gunicorn worker killed at its timeout takes every other
request it was serving with it. So the request layer opens a budget (`limited`) and the long
loops of the formats call `check()` now and then; past the deadline the work ends with a
refusal of its own, well before the worker's timeout.

The deadline lives in a context variable, so threads of one worker keep their own, and code
run outside any request (the CLI, the client, tests) has none and is never interrupted.
"""
from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

from app.formats.base import SchemaParseError

_deadline: ContextVar[float | None] = ContextVar("work_deadline", default=None)
_budget: ContextVar[float | None] = ContextVar("work_budget", default=None)


class WorkBudgetExceeded(SchemaParseError):
    """The work ran past the request's budget. A `SchemaParseError`, so that every caller that
    already turns a format's refusal into 42201 answers this one too, with its own words."""

    def __init__(self, seconds: float) -> None:
        super().__init__(
            f"Processing the schema took longer than the registry allows ({seconds:g} s); "
            "the schema or the comparison is too large"
        )
        self.seconds = seconds


@contextmanager
def limited(seconds: float | None) -> Iterator[None]:
    """Runs the block under a budget of `seconds` (None or 0: no budget). A budget opened inside
    another never extends it: the earlier deadline holds."""
    if not seconds or seconds <= 0:
        yield
        return
    deadline = time.monotonic() + seconds
    outer = _deadline.get()
    if outer is not None and outer <= deadline:
        yield
        return
    deadline_token = _deadline.set(deadline)
    budget_token = _budget.set(seconds)
    try:
        yield
    finally:
        _deadline.reset(deadline_token)
        _budget.reset(budget_token)


def check() -> None:
    """Raises `WorkBudgetExceeded` once the current budget has run out; cheap (a context
    variable read, and a clock read only under a budget), so loops may call it per step."""
    deadline = _deadline.get()
    if deadline is not None and time.monotonic() > deadline:
        raise WorkBudgetExceeded(_budget.get() or 0.0)


def remaining() -> float | None:
    """Seconds left in the current budget (None without one), for work that takes a timeout
    argument of its own rather than calling `check`."""
    deadline = _deadline.get()
    return None if deadline is None else max(0.0, deadline - time.monotonic())
