"""A change token: lets a process serve cached read replies without asking the database,
yet never serve one that a committed write has made stale.

Two signals make up the token, both in a small shared-memory file named after the database:

* On this host, every process that commits to the database writes 8 fresh random bytes into
  the file (after its commit returns). A reader that cached a reply under the old bytes sees
  new ones on its next request, so gunicorn's workers (and SQLite, which is single-host by
  nature) read their own and each other's writes at once.
* Across hosts (PostgreSQL fleets), triggers send `NOTIFY` when a write commits (migration
  0004, so writes made outside the registry count too). One process per host listens, on
  a connection of its own, and writes a new generation into the file's other 8 bytes for
  each notification: another instance sees a write once its notification arrives
  (milliseconds), like a follower of Confluent's registry reading the Kafka log. One
  listener per host rather than per worker, because every commit in the fleet wakes every
  listener, costing CPU in the registry and in PostgreSQL alike. While nobody on the host
  is connected the generation is zero, the token None, and callers read the database.

The listening process is whoever holds an exclusive `flock` on the file: the kernel drops
the lock when its holder exits, however it exits, and the next process to ask for a token
takes the role over.
"""
from __future__ import annotations

import fcntl
import hashlib
import logging
import mmap
import os
import random
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

from app.host_files import shared_dir

CHANNEL = "sqlregistry_changes"
_COMMIT_BYTES = 8  # the host half: random bytes rewritten after each commit
_FILE_BYTES = 16  # ... followed by the fleet generation, zero while nobody listens
_NOT_LISTENING = bytes(_FILE_BYTES - _COMMIT_BYTES)
_RETRY_SECONDS = (0.2, 1.0, 5.0)

log = logging.getLogger(__name__)


class HostSignal:
    """The shared file, mapped: commit bytes rewritten after each commit, then the fleet
    generation the host's listener publishes.

    Random commit bytes rather than a counter: two processes committing at once may
    overwrite each other, but whatever is left differs from what any reader cached under.
    When no such file can be made, the signal is off and every read goes to the database."""

    def __init__(self, database_key: str):
        self._map: mmap.mmap | None = None
        self.path: Path | None = None
        try:
            directory = shared_dir()
            directory.mkdir(mode=0o700, parents=True, exist_ok=True)
            path = directory / hashlib.sha256(database_key.encode()).hexdigest()[:24]
            fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
            try:
                size = os.fstat(fd).st_size
                if size < _COMMIT_BYTES:
                    os.write(fd, os.urandom(_COMMIT_BYTES))
                if size < _FILE_BYTES:  # a new file, or one an older release made: nobody listens yet
                    os.ftruncate(fd, _FILE_BYTES)
                self._map = mmap.mmap(fd, _FILE_BYTES)
            finally:
                os.close(fd)
            self.path = path
        except OSError as exc:
            log.warning("no shared change token (%s): hot reads will not be cached", exc)

    @property
    def available(self) -> bool:
        return self._map is not None

    def read(self) -> bytes:
        return self._map[:_FILE_BYTES] if self._map is not None else b""

    def bump(self) -> None:
        if self._map is not None:
            self._map[:_COMMIT_BYTES] = os.urandom(_COMMIT_BYTES)

    def publish(self, generation: bytes) -> None:
        """The fleet half, written by the host's listener only."""
        if self._map is not None:
            self._map[_COMMIT_BYTES:_FILE_BYTES] = generation


class ListenerLease:
    """The right to be the host's listener: an exclusive, non-blocking `flock` on the shared
    file, through a descriptor this process opened (a descriptor inherited across `fork`
    shares its lock with the parent, so a forked child opens its own)."""

    def __init__(self, path: Path):
        self._path = path
        self._fd: int | None = None
        self._pid = 0

    def take(self) -> bool:
        """True when this process now holds the lease; False when another process does."""
        if self._fd is not None and self._pid != os.getpid():
            os.close(self._fd)  # the parent's lock stays with the parent
            self._fd = None
        try:
            if self._fd is None:
                self._fd, self._pid = os.open(self._path, os.O_RDWR), os.getpid()
            fcntl.flock(self._fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return True
        except OSError:  # held elsewhere (EWOULDBLOCK), or the file is gone: someone else listens
            return False

    def release(self) -> None:
        if self._fd is not None and self._pid == os.getpid():
            os.close(self._fd)  # closing the descriptor drops its lock
        self._fd = None


class FleetListener:
    """The cross-host half (PostgreSQL): a daemon thread LISTENing on its own connection,
    publishing a new generation for every notification through `publish`.

    Generations start at a random value on every (re)connection, since anything may have
    been written while nobody listened; `_NOT_LISTENING` while disconnected."""

    def __init__(self, conninfo: str, publish: Callable[[bytes], None]):
        self._conninfo = conninfo
        self._publish = publish
        self._stopped = threading.Event()
        self._conn: Any = None
        # The payload of the last notification published, so that a caller who sent one of its
        # own can tell when every notification sent before it has been taken into the token.
        self.last_payload: str | None = None
        self._thread = threading.Thread(target=self._run, name="sqlregistry-listener", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stopped.set()
        conn = self._conn
        if conn is not None:
            try:
                conn.close()
            except Exception:  # noqa: BLE001 - closing a broken connection may fail; nothing to do
                pass
        self._thread.join(timeout=2)

    def _run(self) -> None:
        import psycopg

        failures = 0
        while not self._stopped.is_set():
            try:
                with psycopg.connect(self._conninfo, autocommit=True, connect_timeout=5) as conn:
                    self._conn = conn
                    conn.execute(f"LISTEN {CHANNEL}")
                    failures = 0
                    generation = random.getrandbits(62) + 1
                    self._publish(generation.to_bytes(8, "little"))
                    for notification in conn.notifies():
                        generation += 1
                        self._publish(generation.to_bytes(8, "little"))
                        self.last_payload = notification.payload
            except Exception as exc:  # noqa: BLE001 - any failure means "not listening": retry
                if "does not exist" in str(exc):  # the database was dropped: nothing to listen to
                    self._stopped.set()
                if not self._stopped.is_set():
                    log.debug("change listener disconnected: %s", exc)
            self._publish(_NOT_LISTENING)
            self._conn = None
            delay = _RETRY_SECONDS[min(failures, len(_RETRY_SECONDS) - 1)]
            failures += 1
            self._stopped.wait(delay)


class ChangeSignal:
    """Both halves for one database. `token()` is cheap enough for every read request: a
    slice of shared memory, and for a process that does not listen, one `flock` attempt
    (which also notices a listener that has died, and takes its place)."""

    def __init__(self, database_key: str, fleet_conninfo: str | None):
        self._host = HostSignal(database_key)
        self._fleet_conninfo = fleet_conninfo
        self._lease = ListenerLease(self._host.path) if self._host.path is not None else None
        self._listener: FleetListener | None = None
        self._listener_pid = 0
        self._lock = threading.Lock()

    def token(self) -> bytes | None:
        """Equal tokens mean no write committed in between; None means "unknown"."""
        if not self._host.available:
            return None
        if self._fleet_conninfo is None:
            return self._host.read()
        if self._listener_pid != os.getpid():
            self._try_to_listen()
        value = self._host.read()
        return None if value[_COMMIT_BYTES:] == _NOT_LISTENING else value

    def _try_to_listen(self) -> None:
        with self._lock:
            if self._lease is None or self._listener_pid == os.getpid() or not self._lease.take():
                return
            self._host.publish(_NOT_LISTENING)  # whatever a listener that died left there is stale
            self._listener = FleetListener(self._fleet_conninfo or "", self._host.publish)
            self._listener_pid = os.getpid()

    def has_seen(self, payload: str) -> bool:
        """Whether this process listens and its last notification carried `payload`. A caller
        that sent a notification with a payload of its own knows, once this is true, that the
        token reflects every commit made before (PostgreSQL delivers in commit order)."""
        listener = self._listener
        return listener is not None and self._listener_pid == os.getpid() and listener.last_payload == payload

    def committed(self) -> None:
        """Call after a write transaction committed."""
        self._host.bump()

    def close(self) -> None:
        with self._lock:
            if self._listener is not None and self._listener_pid == os.getpid():
                self._listener.stop()
                self._host.publish(_NOT_LISTENING)
            self._listener, self._listener_pid = None, 0
            if self._lease is not None:
                self._lease.release()
                self._lease = None  # closed: never listen again
