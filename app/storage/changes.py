"""A change token: lets a process serve cached read replies without asking the database,
yet never serve one that a committed write has made stale.

Two signals make up the token:

* On this host, every process that commits to the database writes 8 fresh random bytes into
  a small shared-memory file named after the database (after its commit returns). A reader
  that cached a reply under the old bytes sees new ones on its next request, so gunicorn's
  workers (and SQLite, which is single-host by nature) read their own and each other's
  writes at once.
* Across hosts (PostgreSQL fleets), triggers send `NOTIFY` when a write commits (migration
  0004, so writes made outside the registry count too); one listener
  thread per process counts notifications. Another instance sees a write once its
  notification arrives (milliseconds), like a follower of Confluent's registry reading
  the Kafka log. While the listener is not connected the token is None and callers must
  read from the database.
"""
from __future__ import annotations

import hashlib
import logging
import mmap
import os
import tempfile
import threading
from pathlib import Path
from typing import Any

CHANNEL = "sqlregistry_changes"
_TOKEN_BYTES = 8
_RETRY_SECONDS = (0.2, 1.0, 5.0)

log = logging.getLogger(__name__)


def _shared_dir() -> Path:
    """Per user, so that a registry run under another account never finds a directory it
    cannot write."""
    base = Path("/dev/shm") if Path("/dev/shm").is_dir() else Path(tempfile.gettempdir())
    return base / f"sqlregistry-{os.getuid()}"


class HostSignal:
    """The host-local half: an mmap'd file of random bytes, rewritten after each commit.

    Random values rather than a counter: two processes committing at once may overwrite
    each other, but whatever is left differs from what any reader cached under. When no
    such file can be made, the signal is off and every read goes to the database."""

    def __init__(self, database_key: str):
        self._map: mmap.mmap | None = None
        try:
            directory = _shared_dir()
            directory.mkdir(mode=0o700, parents=True, exist_ok=True)
            path = directory / hashlib.sha256(database_key.encode()).hexdigest()[:24]
            fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
            try:
                if os.fstat(fd).st_size < _TOKEN_BYTES:
                    os.write(fd, os.urandom(_TOKEN_BYTES))
                self._map = mmap.mmap(fd, _TOKEN_BYTES)
            finally:
                os.close(fd)
        except OSError as exc:
            log.warning("no shared change token (%s): hot reads will not be cached", exc)

    @property
    def available(self) -> bool:
        return self._map is not None

    def read(self) -> bytes:
        return self._map[:_TOKEN_BYTES] if self._map is not None else b""

    def bump(self) -> None:
        if self._map is not None:
            self._map[:_TOKEN_BYTES] = os.urandom(_TOKEN_BYTES)


class FleetListener:
    """The cross-host half (PostgreSQL): a daemon thread LISTENing on its own connection.

    The generation starts afresh on every (re)connection, since anything may have been
    written while nobody listened; None while disconnected."""

    def __init__(self, conninfo: str):
        self._conninfo = conninfo
        self._generation: int | None = None
        self._counter = 0
        self._stopped = threading.Event()
        self._conn: Any = None
        self._thread = threading.Thread(target=self._run, name="sqlregistry-listener", daemon=True)
        self._thread.start()

    @property
    def generation(self) -> int | None:
        return self._generation

    def stop(self) -> None:
        self._stopped.set()
        conn = self._conn
        if conn is not None:
            try:
                conn.close()
            except Exception:  # noqa: BLE001 - closing a broken connection may fail; nothing to do
                pass

    def _run(self) -> None:
        import psycopg

        failures = 0
        while not self._stopped.is_set():
            try:
                with psycopg.connect(self._conninfo, autocommit=True, connect_timeout=5) as conn:
                    self._conn = conn
                    conn.execute(f"LISTEN {CHANNEL}")
                    failures = 0
                    self._counter += 1
                    self._generation = self._counter
                    for _ in conn.notifies():
                        self._counter += 1
                        self._generation = self._counter
            except Exception as exc:  # noqa: BLE001 - any failure means "not listening": retry
                if "does not exist" in str(exc):  # the database was dropped: nothing to listen to
                    self._stopped.set()
                if not self._stopped.is_set():
                    log.debug("change listener disconnected: %s", exc)
            self._generation = None
            self._conn = None
            delay = _RETRY_SECONDS[min(failures, len(_RETRY_SECONDS) - 1)]
            failures += 1
            self._stopped.wait(delay)


class ChangeSignal:
    """Both halves for one database. `token()` is cheap enough for every read request."""

    def __init__(self, database_key: str, fleet_conninfo: str | None):
        self._host = HostSignal(database_key)
        self._fleet_conninfo = fleet_conninfo
        self._fleet: FleetListener | None = None
        self._lock = threading.Lock()

    def token(self) -> tuple[bytes, int] | None:
        """Equal tokens mean no write committed in between; None means "unknown"."""
        if not self._host.available:
            return None
        if self._fleet_conninfo is None:
            return self._host.read(), 0
        if self._fleet is None:
            with self._lock:
                if self._fleet is None:
                    self._fleet = FleetListener(self._fleet_conninfo)
        generation = self._fleet.generation
        if generation is None:
            return None
        return self._host.read(), generation

    def committed(self) -> None:
        """Call after a write transaction committed."""
        self._host.bump()

    def close(self) -> None:
        if self._fleet is not None:
            self._fleet.stop()
