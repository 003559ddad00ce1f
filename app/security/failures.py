"""Failed Basic logins, counted for every process of the host together, per client address
and user name.

Past the limit (`max_failures_per_minute`), failures are answered without hashing until the
one-minute window is over, so a password guesser cannot turn the registry's CPU against it.
Two counts decide:
* per (address, user name), at the limit: guessing one user's password from one address
  stops there, and locks out nobody else from that address (a team behind one NAT address
  keeps working while someone floods one account);
* per address, at ADDRESS_FACTOR times the limit: spraying many user names from one
  address stops too.

The counts live in a small SQLite file in the host's shared directory (app/host_files.py),
named after the auth file, so gunicorn's workers share them: with counts per worker, five
workers let five times the limit through. SQLite does the locking between processes; a
count costs a millisecond or so, on the failure path only (a success never touches it). A
host where the file cannot be made counts per process, in memory, and says so once.
"""
from __future__ import annotations

import hashlib
import logging
import os
import sqlite3
import threading
import time
from collections.abc import Callable
from pathlib import Path

from app.host_files import shared_dir

ADDRESS_FACTOR = 5
WINDOW_SECONDS = 60.0
_BUSY_TIMEOUT_SECONDS = 5.0

log = logging.getLogger(__name__)

_SCHEMA = "CREATE TABLE IF NOT EXISTS failures (key TEXT PRIMARY KEY, started REAL NOT NULL, count INTEGER NOT NULL)"
# One failure: a new window for a key whose window is over, one more in the current one.
_COUNT = (
    "INSERT INTO failures (key, started, count) VALUES (?, ?, 1) ON CONFLICT (key) DO UPDATE SET "
    "count = CASE WHEN excluded.started >= started + ? THEN 1 ELSE count + 1 END, "
    "started = CASE WHEN excluded.started >= started + ? THEN excluded.started ELSE started END"
)


def limiter_file(auth_file: Path) -> Path:
    """The counts of the registries on this host that read `auth_file`."""
    digest = hashlib.sha256(str(auth_file.resolve()).encode("utf-8", "surrogatepass")).hexdigest()[:24]
    return shared_dir() / f"failed-logins-{digest}.db"


class FailureLimiter:
    """The counts over one file (None: in this process's memory only)."""

    def __init__(self, path: Path | None = None, clock: Callable[[], float] = time.time,
                 window: float = WINDOW_SECONDS) -> None:
        """`clock`: seconds on a clock every process of the host shares (the wall clock)."""
        self._path = path
        self._clock = clock
        self._window = window
        self._lock = threading.Lock()
        self._conn: sqlite3.Connection | None = None
        self._pid = 0

    def blocked(self, address: str, name: str, limit: int) -> bool:
        """Whether a login for `name` from `address` is refused without checking it."""
        now = self._clock()
        with self._lock:
            rows = self._connection().execute(
                "SELECT key, started, count FROM failures WHERE key IN (?, ?)", (_user_key(address, name),
                                                                                 _address_key(address))
            ).fetchall()
        wanted = {_user_key(address, name): limit, _address_key(address): limit * ADDRESS_FACTOR}
        return any(count >= wanted[key] and now < started + self._window for key, started, count in rows)

    def record(self, address: str, name: str) -> None:
        """One failed login for `name` from `address`; windows over for a while are dropped."""
        now = self._clock()
        with self._lock:
            conn = self._connection()
            with conn:  # one transaction: both counts, and the sweep
                for key in (_user_key(address, name), _address_key(address)):
                    conn.execute(_COUNT, (key, now, self._window, self._window))
                conn.execute("DELETE FROM failures WHERE started < ?", (now - 2 * self._window,))

    def _connection(self) -> sqlite3.Connection:
        """This process's connection (a forked worker opens its own); under `_lock`."""
        if self._conn is None or self._pid != os.getpid():
            self._conn, self._pid = self._open(), os.getpid()
        return self._conn

    def _open(self) -> sqlite3.Connection:
        if self._path is not None:
            try:
                self._path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
                conn = sqlite3.connect(self._path, timeout=_BUSY_TIMEOUT_SECONDS, check_same_thread=False)
                conn.execute("PRAGMA synchronous = OFF")  # counts for a minute need no fsync to survive a crash
                conn.execute(_SCHEMA)
                os.chmod(self._path, 0o600)
                return conn
            except (OSError, sqlite3.Error) as exc:
                log.warning("failed logins counted per process, not per host: %s (%s)", self._path, exc)
                self._path = None
        conn = sqlite3.connect(":memory:", check_same_thread=False)
        conn.execute(_SCHEMA)
        return conn


def _user_key(address: str, name: str) -> str:
    return f"u\x00{address}\x00{name}"


def _address_key(address: str) -> str:
    return f"a\x00{address}"
