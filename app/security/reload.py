"""The auth file in force in this worker, re-read when the file on disk changes.

Operators change users and grants without a restart, often by writing a new file and
renaming it over the old one: so the check looks at the inode as well as modification time
and size, and it is made at most once a second per worker (one `stat`, on a request, never a
thread). A new file that does not load is ignored: the previous one stays in force, which
keeps a typo from locking everyone out or letting everyone in. Its problem is logged and
counted once per version of the file, not once per second.
"""
from __future__ import annotations

import logging
import os
import threading
import time
from collections.abc import Callable
from pathlib import Path

from app.security.authfile import load_auth_file
from app.security.errors import AuthFileError
from app.security.records import AuthFile

log = logging.getLogger(__name__)

Signature = tuple[int, int, int, int] | None


def describe(path: str | Path, exc: AuthFileError) -> str:
    """The one line an operator sees: file, entry, problem."""
    return f"auth file {path}: {exc.where}: {exc.problem}"


class AuthFileWatcher:
    """Loads the file at construction and hands out the file in force through `current()`.

    An invalid file at construction raises `AuthFileError` (the server must not start on
    it), unless a `fallback` is given: the file the gunicorn master loaded before forking.
    A worker started later (recycled after its request quota, or replacing one that died)
    then starts on that file instead of failing to boot, which would stop the whole server
    over a file the running workers are ignoring."""

    def __init__(
        self,
        path: str | Path,
        *,
        fallback: AuthFile | None = None,
        on_reload_failure: Callable[[], None] | None = None,
        interval: float = 1.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.path = Path(path)
        self._on_reload_failure = on_reload_failure
        self._interval = interval
        self._clock = clock
        self._lock = threading.Lock()
        # Taken before reading: a change during the read is seen at the next check.
        self._signature: Signature | str = _signature(self.path)
        self._rejected: Signature | str = ""
        try:
            self._current = load_auth_file(self.path)
        except AuthFileError as exc:
            if fallback is None:
                raise
            self._current = fallback
            self._signature, self._rejected = "", self._signature
            self._refused(exc, "the auth file loaded at start stays in force")
        self._next_check = clock() + interval

    def current(self) -> AuthFile:
        """The file in force; a new `AuthFile` object after a successful reload."""
        if self._clock() >= self._next_check and self._lock.acquire(blocking=False):
            try:
                self._check()
            finally:
                self._lock.release()
        return self._current

    def _check(self) -> None:
        self._next_check = self._clock() + self._interval
        signature = _signature(self.path)
        if signature == self._signature or signature == self._rejected:
            return
        try:
            loaded = load_auth_file(self.path)
        except AuthFileError as exc:
            self._rejected = signature
            self._refused(exc, "the previous auth file stays in force")
            return
        self._signature, self._rejected, self._current = signature, "", loaded
        log.info("auth file %s reloaded", self.path)

    def _refused(self, exc: AuthFileError, consequence: str) -> None:
        log.error("%s; %s", describe(self.path, exc), consequence)
        if self._on_reload_failure is not None:
            self._on_reload_failure()


def _signature(path: Path) -> Signature:
    """What changes when the file is edited in place or replaced; None when it is gone."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    return st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns
