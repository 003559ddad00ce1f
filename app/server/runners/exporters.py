"""The exporters' runner: a daemon thread in each serving process (a gunicorn worker starts
its own once it serves, app/server/serving.py's `warm_up`; the master runs none) that copies what
each exporter chooses to its target and keeps doing so.

Exactly one process of a fleet runs an exporter: the one holding its lease, a row-level lease
in the exporters table (owner and expiry, renewed every second by a heartbeat thread of its
own, so a long pass never lets it lapse; taken over once expired), so it works the same on
SQLite and PostgreSQL. A process that dies stops renewing; another
takes the lease within `LEASE_MS` and starts with a full comparison, which skips what the
target already holds.

A pass runs when the change token moved (a commit on this host, or PostgreSQL's NOTIFY from
another: the same signal the hot-read caches use) and, where no token is known, every
`UNKNOWN_TOKEN_PASS_S`. The loop's 50 ms tick only reads the token (shared memory); the
database is asked once a second only while some exporter should run (its lease may need
taking over), so an idle server with no running exporter sends it nothing. A pass reads
every subject's mark (two queries, shared by the exporters passing in the same tick) and
copies only the subjects whose mark moved since the last successful pass. Any failure (the
target refuses an id, the credentials, the network) stops that exporter in state ERROR with
the reason as its trace, until an administrator resumes or resets it.
"""
from __future__ import annotations

import atexit
import functools
import logging
import os
import secrets
import socket
import threading
import time
from collections.abc import Callable
from dataclasses import replace
from typing import Any

from app.core.exporters.records import ERROR, RUNNING, STARTING, StoredExporter, auto_context, trace_text
from app.core.exporters.service import now_ms
from app.transfer.exporting import copy_subjects, target_endpoint
from app.transfer.rest import RestRegistry

LEASE_MS = 5000
HEARTBEAT_S = 1.0
POLL_S = 0.05
UNKNOWN_TOKEN_PASS_S = 2.0

log = logging.getLogger(__name__)


class _Job:
    """One exporter this process holds the lease of: what it last copied (`marks`: subject ->
    mark; None until a full comparison has run) and its target's client, kept while the
    config it was made from holds."""

    def __init__(self, row: StoredExporter) -> None:
        self.row = row
        self.marks: dict[str, Any] | None = None
        self.target: RestRegistry | None = None
        self.target_config: dict[str, str] = {}


class ExporterRunner:
    def __init__(self, service: Any, owner: str | None = None) -> None:
        self.service = service
        self.storage = service.storage
        self.owner = owner or f"{socket.gethostname()}:{os.getpid()}:{secrets.token_hex(4)}"
        self._auto_context = auto_context(service.settings.cluster_id)
        self._stopped = threading.Event()
        self._jobs: dict[str, _Job] = {}
        self._source: Any = None
        self._held: set[str] = set()  # the leases this process holds (the heartbeat renews them)
        # Whether the last reload saw an exporter that should run: only then can a lease expire
        # (its holder died) with no commit to say so, and only then is the once-a-second reload due.
        self._watching = False
        self._lock = threading.Lock()
        self._thread = threading.Thread(target=self._run, name="sqlregistry-exporters", daemon=True)
        self._heartbeat = threading.Thread(target=self._beat, name="sqlregistry-exporter-leases", daemon=True)

    def start(self) -> ExporterRunner:
        self._thread.start()
        self._heartbeat.start()
        return self

    def stop(self) -> None:
        self._stopped.set()
        self._thread.join(timeout=2)  # a pass under way may wait on the target: do not hold up the exit
        self._heartbeat.join(timeout=2)
        with self._lock:
            held, self._held = sorted(self._held), set()
        with self.storage.read() as store:
            for name in held:
                store.release_exporter_lease(name, self.owner)
        self._jobs.clear()

    # ---------------------------------------------------------------- the loop
    def _run(self) -> None:
        token: Any = object()
        next_beat = next_blind_pass = 0.0
        while not self._stopped.is_set():
            try:
                current = self.storage.change_token()
                now = time.monotonic()
                changed = current != token or current is None and now >= next_blind_pass
                if now >= next_beat and (self._watching or current is None):
                    self._refresh(renew=True)
                    next_beat = now + HEARTBEAT_S
                elif changed:
                    self._refresh(renew=False)
                if current is None and now >= next_blind_pass:
                    next_blind_pass = now + UNKNOWN_TOKEN_PASS_S
                token = current
                # One read of the subjects' marks serves every exporter that passes this tick
                # (a failed read is not kept: the next exporter reads again).
                marks = functools.cache(self._subject_marks)
                for job in list(self._jobs.values()):
                    if self._stopped.is_set():
                        break
                    with self._lock:
                        held = job.row.definition.name in self._held
                    if held and (job.row.status.state == STARTING or job.row.status.state == RUNNING and (
                            changed or job.marks is None)):
                        self._pass(job, marks)
            except Exception as exc:  # noqa: BLE001 - the database away: try again, never die
                log.warning("exporters: %s", exc)
                self._stopped.wait(1.0)
            self._stopped.wait(POLL_S)

    def _refresh(self, renew: bool) -> None:
        """Reload the definitions and give up the exporters paused, failed, deleted or whose
        lease the heartbeat lost; with `renew` (once a second), also try to take the lease of
        every exporter that should run and nobody runs. Between those a change only reloads:
        under a burst of registrations no lease row is written per commit."""
        now = now_ms()
        with self.storage.read() as store:
            rows = {row.definition.name: row for row in store.exporters()}
            self._watching = any(row.status.state in (STARTING, RUNNING) for row in rows.values())
            for name in list(self._jobs):
                row = rows.get(name)
                with self._lock:
                    lost = name not in self._held
                if lost or row is None or row.status.state not in (STARTING, RUNNING):
                    if not lost:
                        store.release_exporter_lease(name, self.owner)
                    self._let_go(name)
            for name, row in rows.items():
                if row.status.state not in (STARTING, RUNNING) or not renew and name not in self._jobs:
                    continue
                if name not in self._jobs:
                    if not store.take_exporter_lease(name, self.owner, now, now + LEASE_MS):
                        continue
                    with self._lock:
                        self._held.add(name)
                job = self._jobs.setdefault(name, _Job(row))
                if row.status.state == STARTING or row.definition != job.row.definition:
                    job.marks = None
                job.row = row

    def _let_go(self, name: str) -> None:
        self._jobs.pop(name, None)
        with self._lock:
            self._held.discard(name)

    def _beat(self) -> None:
        """The heartbeat, on a thread of its own so that a long pass (a first comparison of a
        big registry) never lets a lease expire: renew every lease held; one that cannot be
        renewed was taken over, and its exporter is dropped before its next pass."""
        while not self._stopped.wait(HEARTBEAT_S):
            with self._lock:
                names = sorted(self._held)
            if not names:
                continue  # nothing to renew: no connection taken
            now = now_ms()
            try:
                with self.storage.read() as store:
                    for name in names:
                        if not store.take_exporter_lease(name, self.owner, now, now + LEASE_MS):
                            with self._lock:
                                self._held.discard(name)
            except Exception as exc:  # noqa: BLE001 - the database away: the next beat tries again
                log.warning("exporters heartbeat: %s", exc)

    def _subject_marks(self) -> dict[str, Any]:
        with self.storage.read() as store:
            return {m.qualified: m for m in store.subject_marks()}

    def _pass(self, job: _Job, marks: Callable[[], dict[str, Any]]) -> None:
        row = job.row
        name = row.definition.name
        try:
            source = self._source_registry()
            chosen = {s: m for s, m in marks().items() if row.definition.includes(s)}
            before = job.marks or {}
            changed = [s for s, m in chosen.items() if job.marks is None or before.get(s) != m]
            writes = copy_subjects(source, self._target(job), row.definition, self._auto_context, changed) \
                if changed else 0
        except Exception as exc:  # noqa: BLE001 - whatever stopped the copy is the trace
            job.marks = None
            log.warning("exporter %s stopped: %s", name, exc)
            self._report(job, ERROR, row.status.offset, trace_text(f"{type(exc).__name__}: {exc}"))
            return
        job.marks = chosen
        if writes or row.status.state == STARTING:
            self._report(job, RUNNING, row.status.offset + writes, None)

    def _report(self, job: _Job, state: str, offset: int, trace: str | None) -> None:
        row = job.row
        with self.storage.read() as store:
            reported = store.report_exporter(row.definition.name, self.owner, (STARTING, RUNNING), state, offset,
                                             trace, now_ms())
        if reported:
            job.row = replace(row, status=replace(row.status, state=state, offset=offset, trace=trace))

    def _target(self, job: _Job) -> RestRegistry:
        if job.target is None or job.target_config != job.row.config:
            job.target = RestRegistry(target_endpoint(job.row.config), pool_size=4, timeout=10.0)
            job.target_config = job.row.config
        return job.target

    def _source_registry(self) -> Any:
        """This registry, read through its own API in this process (no socket, no credentials:
        a service of its own on the same storage, without the auth file)."""
        if self._source is None:
            from app.core.registry import RegistryService
            from app.formats import FORMATS
            from app.server.in_process import InProcessRegistry

            settings = replace(self.service.settings, auth_file="", metrics=False, hot_read_cache=False)
            self._source = InProcessRegistry(RegistryService(self.storage, FORMATS, settings), "http://in-process")
        return self._source


def start_runner(service: Any) -> ExporterRunner | None:
    """The process's runner, unless REGISTRY_EXPORTERS is off."""
    if not service.settings.exporters:
        return None
    runner = ExporterRunner(service).start()
    atexit.register(runner.stop)  # a worker that exits cleanly hands its leases over at once
    return runner
