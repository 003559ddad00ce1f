"""What happens to an engine's connections, told to an observer (metrics): opened, closed,
checked out and in, discarded as dead, and database errors by kind.

Storage stays free of any metrics library: it reports to a `PoolObserver`, and whoever
wires the registry (app/wiring.py) decides what listens. Statements that direct.py runs on
the raw cursor skip SQLAlchemy's error event, but a connection they find dead is
invalidated (repository.py), which `invalidated` reports.
"""
from __future__ import annotations

from typing import Any, Protocol

from sqlalchemy import Engine, event
from sqlalchemy.engine import ExceptionContext


# Marks a pool entry as checked out in this listener's eyes (`record_info` survives
# invalidation, so a connection found dead while checked out still comes back once).
_OUT = "sqlregistry_checked_out"


class PoolObserver(Protocol):
    def connected(self) -> None: ...
    def closed(self) -> None: ...
    def checked_out(self) -> None: ...
    def checked_in(self) -> None: ...
    def invalidated(self) -> None: ...
    def failed(self, kind: str) -> None:
        """`kind`: "connect" (no connection could be opened), "disconnect" (one was lost),
        "statement" (anything else the database refused, lost write races included)."""
        ...


def watch_pool(engine: Engine, observer: PoolObserver) -> None:
    """Attach the observer to `engine`'s pool and error events."""

    def connect(_dbapi_conn: Any, _record: Any) -> None:
        observer.connected()

    def close(_dbapi_conn: Any, _record: Any) -> None:
        observer.closed()

    def close_detached(_dbapi_conn: Any) -> None:
        observer.closed()

    def checkout(_dbapi_conn: Any, record: Any, _proxy: Any) -> None:
        record.record_info[_OUT] = True
        observer.checked_out()

    def checkin(_dbapi_conn: Any, record: Any) -> None:
        # SQLAlchemy also reports a check-in for a checkout that failed before this
        # listener ran (engine.py refused a dead connection and no new one could be
        # opened): only connections this listener saw leave count as coming back.
        if record.record_info.pop(_OUT, False):
            observer.checked_in()

    def invalidate(_dbapi_conn: Any, _record: Any, _exc: BaseException | None) -> None:
        observer.invalidated()

    def handle_error(context: ExceptionContext) -> None:
        # No Connection yet means the failure was opening one.
        if context.connection is None:
            observer.failed("connect")
        else:
            observer.failed("disconnect" if context.is_disconnect else "statement")

    # `checkout` is listened to after engine.py's dead-connection check: a checkout that
    # check refuses is retried by the pool with another connection before this one runs.
    for name, listener in (
        ("connect", connect), ("close", close), ("close_detached", close_detached),
        ("checkout", checkout), ("checkin", checkin), ("invalidate", invalidate),
    ):
        event.listen(engine.pool, name, listener)
    event.listen(engine, "handle_error", handle_error)
