"""The audit trail: who changed what, from where, and how it ended.

A committed change and its `AuditEntry` are written by the same write transaction
(`Store.insert_audit`), so no change can exist without its row; a write attempt the API
refused after authentication (403, other 4xx) gets a row of its own (`append_audit`).
The records are storage's interface and live in app/core/store/. The core knows nothing
of HTTP: the API layer describes the request in an `Origin`, and each write flow takes an
`Audit` (the caller and that origin) and records through it.
"""
from __future__ import annotations

import logging
import re
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from datetime import datetime, timezone
from typing import Any

from app.core.access import ANONYMOUS, Principal
from app.core.store.audit import AuditEntry, AuditLog, NO_ORIGIN, Origin
from app.core.store.protocol import Store
from app.core.types import DEFAULT_CONTEXT, QualifiedSubject

# Actions: what the change was. The policies issue adds its own.
REGISTER = "REGISTER"
DELETE_VERSION = "DELETE_VERSION"
DELETE_SUBJECT = "DELETE_SUBJECT"
SET_CONFIG = "SET_CONFIG"
DELETE_CONFIG = "DELETE_CONFIG"
SET_MODE = "SET_MODE"
DELETE_MODE = "DELETE_MODE"
DELETE_CONTEXT = "DELETE_CONTEXT"
SET_POLICY = "SET_POLICY"
DELETE_POLICY = "DELETE_POLICY"
# The DEK registry (app/core/dek/): keys are created, changed, deleted and undeleted.
CREATE_KEK = "CREATE_KEK"
UPDATE_KEK = "UPDATE_KEK"
DELETE_KEK = "DELETE_KEK"
UNDELETE_KEK = "UNDELETE_KEK"
CREATE_DEK = "CREATE_DEK"
REWRAP_DEK = "REWRAP_DEK"
DELETE_DEK = "DELETE_DEK"
UNDELETE_DEK = "UNDELETE_DEK"
# Exporters (app/core/exporters): a definition or config written, and the runner's controls.
CREATE_EXPORTER = "CREATE_EXPORTER"
UPDATE_EXPORTER = "UPDATE_EXPORTER"
DELETE_EXPORTER = "DELETE_EXPORTER"
PAUSE_EXPORTER = "PAUSE_EXPORTER"
RESUME_EXPORTER = "RESUME_EXPORTER"
RESET_EXPORTER = "RESET_EXPORTER"
# Associations (app/core/associations): a topic's link to a subject created, changed or removed.
CREATE_ASSOCIATION = "CREATE_ASSOCIATION"
UPDATE_ASSOCIATION = "UPDATE_ASSOCIATION"
DELETE_ASSOCIATION = "DELETE_ASSOCIATION"
# The batch route's refused attempts (its committed changes record the three above).
MUTATE_ASSOCIATIONS = "MUTATE_ASSOCIATIONS"
ASSOCIATION_ACTIONS = frozenset({CREATE_ASSOCIATION, UPDATE_ASSOCIATION, DELETE_ASSOCIATION, MUTATE_ASSOCIATIONS})
EXPORTER_ACTIONS = frozenset({CREATE_EXPORTER, UPDATE_EXPORTER, DELETE_EXPORTER, PAUSE_EXPORTER, RESUME_EXPORTER,
                              RESET_EXPORTER})
# A refused request with a write method that matched no endpoint (a 404 or 405 from routing):
# it changed nothing, but an authenticated caller probing the API is worth a row.
UNKNOWN_OPERATION = "UNKNOWN_OPERATION"
# `sqlregistry db check --fix` replaced unstorable characters in stored rows (app/storage/text_check.py).
REPAIR_TEXT = "REPAIR_TEXT"
ACTIONS = frozenset({
    REGISTER, DELETE_VERSION, DELETE_SUBJECT, SET_CONFIG, DELETE_CONFIG, SET_MODE, DELETE_MODE, DELETE_CONTEXT,
    SET_POLICY, DELETE_POLICY, UNKNOWN_OPERATION, REPAIR_TEXT,
    CREATE_KEK, UPDATE_KEK, DELETE_KEK, UNDELETE_KEK, CREATE_DEK, REWRAP_DEK, DELETE_DEK, UNDELETE_DEK,
}) | EXPORTER_ACTIONS | ASSOCIATION_ACTIONS

# Outcomes.
SUCCESS = "success"    # the change committed (AuditEntry's default)
DENIED = "denied"      # refused by the authorizer (403)
REJECTED = "rejected"  # any other 4xx after authentication
OUTCOMES = frozenset({SUCCESS, DENIED, REJECTED})

MAX_LIMIT = 1000  # rows per `GET /audit` page
PRUNE_INTERVAL_SECONDS = 3600  # how often each process applies REGISTRY_AUDIT_RETENTION_DAYS
PRUNE_ROWS_PER_WRITE = 20_000
_DAY_MS = 86_400_000

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Audit:
    """A write's caller and origin, carried through the write flows: `record` adds the
    change's entry to the transaction of the store it is given. Disabled (the benchmark's
    REGISTRY_AUDIT=false), it records nothing."""

    principal: Principal = ANONYMOUS
    origin: Origin = NO_ORIGIN
    enabled: bool = True
    # Added to every entry's detail: what the flow knows that the recording step does not
    # (the tags endpoint's base version, for the registration it makes).
    detail: dict[str, Any] | None = None

    def record(
        self, store: Store, action: str, scope: QualifiedSubject | None, *,
        version: int | None = None, schema_id: int | None = None, detail: dict[str, Any] | None = None,
    ) -> None:
        entry = self.pending(action, scope, version=version, schema_id=schema_id, detail=detail)
        if entry is not None:
            store.insert_audit(entry)

    def pending(
        self, action: str, scope: QualifiedSubject | None, *,
        version: int | None = None, schema_id: int | None = None, detail: dict[str, Any] | None = None,
    ) -> AuditEntry | None:
        """The entry `record` would add, for a store call that writes it together with the
        change (registration's `Store.add_version`); None with the trail off."""
        if not self.enabled:
            return None
        return self.entry(
            action, scope, version=version, schema_id=schema_id, status=self.origin.success_status, detail=detail,
        )

    def entry(
        self, action: str, scope: QualifiedSubject | None, *, version: int | None = None,
        schema_id: int | None = None, outcome: str = SUCCESS, status: int | None = None,
        error_code: int | None = None, detail: dict[str, Any] | None = None,
    ) -> AuditEntry:
        context = scope.context if scope is not None else DEFAULT_CONTEXT
        subject = scope.qualified() if scope is not None and scope.name else None
        return AuditEntry(
            action=action, principal=self.principal.name, auth_method=self.principal.method, origin=self.origin,
            context=context, subject=subject, version=version, schema_id=schema_id, outcome=outcome,
            status=status, error_code=error_code, detail={**(self.detail or {}), **(detail or {})} or None,
        )


NO_AUDIT = Audit(enabled=False)


class AuditTrail:
    """The trail as the service keeps it: each write's `Audit`, the rows of refused attempts,
    and the retention. `enabled` is REGISTRY_AUDIT (off only to measure what the trail
    costs); `retention_days` REGISTRY_AUDIT_RETENTION_DAYS (0: rows are kept until an
    operator prunes them).

    Retention piggybacks on writes rather than on a timer: a registry nobody writes to adds
    no rows to prune, and it needs no thread of its own or a lease in a fleet. Every process
    prunes at most once an hour; two instances pruning at once delete the same old rows,
    which costs the second one nothing but a statement."""

    def __init__(self, log: AuditLog, enabled: bool, retention_days: int = 0,
                 clock: Callable[[], float] = time.time):
        self.log = log
        self.enabled = enabled
        self._retention_ms = retention_days * _DAY_MS
        self._clock = clock
        self._next_prune = 0.0
        self._pruning = threading.Lock()

    def audit(self, principal: Principal, origin: Origin) -> Audit:
        if self._retention_ms and self._clock() >= self._next_prune:
            self.prune_if_due()
        return Audit(principal, origin, self.enabled)

    def prune_if_due(self) -> int:
        """Delete the rows past the retention, unless this process did within the hour or is
        doing so on another thread; how many went. At most PRUNE_ROWS_PER_WRITE rows, since a
        write waits for it: a backlog (a retention newly set on a years-old trail) is worked
        off over the writes that follow. A failure is logged and tried again an hour later:
        the write that happened to come first must not fail for it."""
        now = self._clock()
        if not self._retention_ms or not self._pruning.acquire(blocking=False):
            return 0
        try:
            if now < self._next_prune:
                return 0
            gone = self.log.prune_audit(int(now * 1000) - self._retention_ms, PRUNE_ROWS_PER_WRITE)
            if gone < PRUNE_ROWS_PER_WRITE:  # else a backlog: the next write goes on with it
                self._next_prune = now + PRUNE_INTERVAL_SECONDS
            return gone
        except Exception:  # noqa: BLE001 - see above
            log.exception("Could not prune the audit trail")
            self._next_prune = now + PRUNE_INTERVAL_SECONDS
            return 0
        finally:
            self._pruning.release()

    def record_refusal(
        self, action: str, subject: str | None, *, status: int, error_code: int, principal: Principal = ANONYMOUS,
        origin: Origin = NO_ORIGIN, version: int | None = None, detail: dict[str, Any] | None = None,
        scoped: bool = True,
    ) -> None:
        """A write attempt refused after authentication, in a transaction of its own: `denied`
        when the authorizer refused it (403), `rejected` for any other 4xx. `subject` as the
        request named it (`:.ctx:` for a context; None for the global settings). `scoped`
        False: the request named no usable context (an invalid one, or no route at all), so
        the row has neither context nor subject."""
        if not self.enabled:
            return
        scope = QualifiedSubject.parse(subject) if subject and scoped else None
        entry = Audit(principal, origin).entry(
            action, scope, version=version, outcome=DENIED if status == 403 else REJECTED, status=status,
            error_code=error_code, detail=detail,
        )
        self.log.append_audit(entry if scoped else replace(entry, context=None))


def scope_of(subject: str | None) -> QualifiedSubject:
    """The scope a config, mode or context operation names: "" and None are the global
    settings (the default context's row)."""
    return QualifiedSubject.parse(subject) if subject else QualifiedSubject(DEFAULT_CONTEXT, "")


# ------------------------------------------------------------------ times
_EPOCH_MS = re.compile(r"-?\d+")


def parse_time(text: str) -> int:
    """Epoch milliseconds from an ISO-8601 time (`Z` or an offset; without one, UTC) or a
    number of epoch milliseconds. ValueError names what is wrong."""
    value = text.strip()
    if _EPOCH_MS.fullmatch(value):
        return int(value)
    try:
        moment = datetime.fromisoformat(value)
    except ValueError:
        raise ValueError(f"{text!r} is neither an ISO-8601 time nor epoch milliseconds") from None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=timezone.utc)
    return int(moment.timestamp() * 1000)


def iso_time(ms: int) -> str:
    """`2026-11-25T13:12:19.123Z`: ISO-8601 in UTC with milliseconds."""
    moment = datetime.fromtimestamp(ms / 1000, tz=timezone.utc)
    return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{ms % 1000:03d}Z"


_DURATION = re.compile(r"(\d+)\s*([smhdw])")
_UNIT_MS = {"s": 1000, "m": 60_000, "h": 3_600_000, "d": 86_400_000, "w": 604_800_000}


def parse_duration(text: str) -> int:
    """Milliseconds from `365d`, `12h`, `30m`, `45s` or `2w`."""
    found = _DURATION.fullmatch(text.strip())
    if not found:
        raise ValueError(f"{text!r} is not a duration such as 365d, 12h, 30m or 45s")
    return int(found.group(1)) * _UNIT_MS[found.group(2)]
