"""Storage built on first use, so that a gunicorn worker answers before SQLAlchemy is loaded.

A worker started by `sqlregistry serve` or the deploy config runs against a database its
master has already checked (and migrated) before forking, so building the engine at boot
would prove nothing. `DeferredStorage` stands in for the repository until something uses it;
`warm()` (gunicorn's `post_worker_init`) builds it on a background thread as the worker starts
serving, and a request that needs the database first waits for it. That wait is short only
because the master has already imported what the build needs (app/server/preload.py):
importing SQLAlchemy here, after the first answer, held registrations for seconds. This
module imports nothing heavy.
"""
from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Hashable
from contextlib import AbstractContextManager

from app.core.store.audit import AuditEntry, AuditQuery, AuditRow
from app.core.store.protocol import Storage, Store

log = logging.getLogger(__name__)


class DeferredStorage:
    """`app.core.store.Storage` over the one `build()` makes on first use (thread-safe)."""

    def __init__(self, build: Callable[[], Storage]):
        self._build = build
        self._built: Storage | None = None
        self._lock = threading.Lock()

    def built(self) -> Storage:
        storage = self._built
        if storage is None:
            with self._lock:
                if self._built is None:
                    self._built = self._build()
                storage = self._built
        return storage

    @property
    def ready(self) -> bool:
        """Whether the storage is built: what waits for a request (or `warm`) to build it, as
        the exporters' runner does, asks this instead of building it itself."""
        return self._built is not None

    def warm(self) -> None:
        """Build now, on a daemon thread; a failure is logged and left for the first use to raise."""
        threading.Thread(target=self._warm, name="sqlregistry-storage", daemon=True).start()

    def _warm(self) -> None:
        try:
            self.built()
        except Exception:  # noqa: BLE001 - the first request that needs storage reports it
            log.exception("building the storage in the background failed")

    def read(self) -> AbstractContextManager[Store]:
        return self.built().read()

    def write(self) -> AbstractContextManager[Store]:
        return self.built().write()

    def change_token(self) -> Hashable | None:
        return self.built().change_token()

    def append_audit(self, entry: AuditEntry) -> None:
        self.built().append_audit(entry)

    def audit_events(self, query: AuditQuery) -> list[AuditRow]:
        return self.built().audit_events(query)

    def prune_audit(self, before_ms: int, most: int | None = None) -> int:
        return self.built().prune_audit(before_ms, most)

    def close(self) -> None:
        """Close what was built; nothing to do when nothing was."""
        if self._built is not None:
            self._built.close()  # type: ignore[attr-defined]
