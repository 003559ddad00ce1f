"""Waiting for a registry's change token to settle, for tests that count what a cached reply
saves. On PostgreSQL the token is unknown (None, nothing cached) until the host's change
listener connects, and notifications of commits made before keep arriving afterwards, each
one changing it. So the wait sends a notification of its own, with a payload nobody else
sends, and waits until the listener has taken it in: PostgreSQL delivers notifications in
commit order, so every earlier commit is in the token by then. No time decides anything;
`timeout` only ends a wait that would never succeed."""
from __future__ import annotations

import time
import uuid
from typing import Any

from sqlalchemy import text

from app.storage.changes import CHANNEL


def wait_for_change_token(service: Any, timeout: float = 60.0) -> None:
    storage = service.storage
    deadline = time.monotonic() + timeout
    while storage.change_token() is None:
        assert time.monotonic() < deadline, "the change listener never connected"
        time.sleep(0.01)
    if storage.engine.dialect.name != "postgresql":
        return  # the host signal alone: a commit changes it before the commit returns
    marker = f"settled-{uuid.uuid4().hex}"
    with storage.engine.begin() as conn:
        conn.execute(text("SELECT pg_notify(:channel, :payload)"), {"channel": CHANNEL, "payload": marker})
    while not storage.changes.has_seen(marker):
        assert time.monotonic() < deadline, "the change listener never received the marker"
        time.sleep(0.01)
