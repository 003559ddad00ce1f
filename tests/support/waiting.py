"""Waiting for something a live server or a background thread does, without timing it.

The deadline only ends a wait that would never succeed (it is generous on a loaded machine);
no test asserts how long the wait took."""
from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

DEADLINE_S = 60.0


def wait_for(what: str, probe: Callable[[], Any], deadline: float = DEADLINE_S) -> Any:
    """The first truthy value `probe` returns; AssertionError naming `what` past `deadline`."""
    end = time.monotonic() + deadline
    while True:
        value = probe()
        if value:
            return value
        if time.monotonic() > end:
            raise AssertionError(f"not within {deadline:.0f}s: {what}")
        time.sleep(0.05)
