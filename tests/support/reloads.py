"""Waiting for an auth file change to reach every gunicorn worker.

Each worker looks at the file at most once per `AuthFileWatcher` interval, on its next request
after the interval has passed. So once a change has shown on one worker and a full interval
(plus a margin) has passed since the write, every worker's next request sees it: the tests
check that on many fresh connections. No wall-clock limit decides a verdict, because a loaded
machine only delays the first sighting; `GIVE_UP_S` merely ends a test that would never pass.
"""
from __future__ import annotations

import inspect
import time
from collections.abc import Callable

import pytest

from app.security.reload import AuthFileWatcher

CHECK_INTERVAL_S: float = inspect.signature(AuthFileWatcher).parameters["interval"].default
GIVE_UP_S = 60.0


def wait_for_every_worker(in_force: Callable[[], bool]) -> float:
    """Call right after writing the file: polls `in_force` until it holds, then waits out the
    rest of one check interval since the write. Returns the seconds until it first held."""
    started = time.monotonic()
    while not in_force():
        if time.monotonic() - started > GIVE_UP_S:
            pytest.fail(f"the auth file change was not in force after {GIVE_UP_S:.0f} s")
        time.sleep(0.05)
    first_seen = time.monotonic() - started
    time.sleep(max(0.0, CHECK_INTERVAL_S + 0.3 - (time.monotonic() - started)))
    return first_seen
