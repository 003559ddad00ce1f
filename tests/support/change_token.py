"""Waiting for a registry's change token to settle, for tests that count what a cached reply
saves: on PostgreSQL the token is unknown (None, nothing cached) until the host's change
listener connects, and notifications of commits made before keep arriving for a moment
afterwards, each one changing it."""
from __future__ import annotations

import time
from typing import Any


def wait_for_change_token(service: Any, still_for: float = 0.2, timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while service.storage.change_token() is None:
        assert time.monotonic() < deadline, "the change listener never connected"
        time.sleep(0.01)
    token, since = service.storage.change_token(), time.monotonic()
    while time.monotonic() - since < still_for:
        assert time.monotonic() < deadline, "the change token never settled"
        time.sleep(0.01)
        current = service.storage.change_token()
        if current != token:
            token, since = current, time.monotonic()
