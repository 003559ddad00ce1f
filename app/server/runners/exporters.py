"""The exporters' runner: in each serving process (a gunicorn worker starts its own once it
serves, app/server/serving.py's `warm_up`, or at its first request under a bare `gunicorn wsgi:app`;
the master runs none), a coordinating thread that decides when each exporter copies, and one
thread per exporter this process holds the lease of, that does the copying: a target that
never answers holds up its own exporter only (each request to it is bounded by
`TARGET_TIMEOUT_S` per read and its reply by REGISTRY_EXPORTER_MAX_REPLY_BYTES).

Exactly one process of a fleet runs an exporter: the one holding its lease, a row-level lease
in the exporters table (owner and expiry, renewed every second by a heartbeat thread of its
own, so a long pass never lets it lapse; taken over once expired), so it works the same on
SQLite and PostgreSQL. A process that dies stops renewing; another takes the lease within
`LEASE_MS` and starts with a full comparison, which skips what the target already holds.

The lease is also a fence: each taking raises the lease's generation, and before every write
to the target the pass reads that its owner and generation still hold and have not expired.
A holder paused past its lease (a stopped VM, a long GC, a suspended process) whose lease was
taken meanwhile stops before its next write, so two processes never write for one exporter
in turn. (A write already sent when the pause began may still land: no registry API lets a
target check a token of ours. The next holder's full comparison then finds it present.)

A pass runs when the change token moved (a commit on this host, or PostgreSQL's NOTIFY from
another: the same signal the hot-read caches use) and, where no token is known, every
`UNKNOWN_TOKEN_PASS_S`. The coordinator's 50 ms tick only reads the token (shared memory); the
database is asked once a second only while some exporter should run (its lease may need
taking over), so an idle server with no running exporter sends it nothing. The subjects'
marks are read once per tick (two queries) for every exporter handed a pass in it, and a
pass copies only the subjects whose mark moved since its last successful pass. Any failure
(the target refuses an id, the credentials, the network, a reply too large or of the wrong
shape) stops that exporter in state ERROR with one sentence as its trace, until an
administrator resumes or resets it.
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
import weakref
from collections.abc import Callable
from dataclasses import replace
from typing import Any

from app.core.exporters.records import ERROR, RUNNING, STARTING, StoredExporter, auto_context, trace_text
from app.core.exporters.service import now_ms
from app.transfer.errors import TransferError
from app.transfer.exporting import copy_subjects, target_endpoint
from app.transfer.rest import RestRegistry

LEASE_MS = 5000
HEARTBEAT_S = 1.0
POLL_S = 0.05
UNKNOWN_TOKEN_PASS_S = 2.0
# Each read from a target (connect, and every chunk of a reply) waits at most this long, a
# whole reply at most three times this; a request is tried four times (app/transfer/rest.py).
TARGET_TIMEOUT_S = 10.0
INTERNAL_ERROR = "an internal error stopped this exporter (the server's log has the details)"

log = logging.getLogger(__name__)


class LeaseLost(TransferError):
    """The fence's answer: this pass's lease is gone (taken by another process, or expired);
    the pass stops before its next write and leaves the exporter to the lease's holder."""


class _Job:
    """One exporter this process holds the lease of (taken at `generation`), and the thread
    that copies for it. What it last copied (`marks`: subject -> mark; None until a full
    comparison has run) and its target's client (kept while the config it was made from
    holds) belong to that thread. The coordinator hands it a pass by setting `busy` with the
    subjects' marks to use; only the job's thread clears `busy`, once the pass is over."""

    def __init__(self, row: StoredExporter, generation: int) -> None:
        self.row = row
        self.generation = generation
        self.marks: dict[str, Any] | None = None
        self.target: RestRegistry | None = None
        self.target_config: dict[str, str] = {}
        self.busy = False
        self.missed = False  # the change token moved while a pass was under way
        self.handed: dict[str, Any] | None = None
        self.retired = False
        self.wake = threading.Event()
        self.thread: threading.Thread | None = None

    @property
    def name(self) -> str:
        return self.row.definition.name


class ExporterRunner:
    """`clock` (epoch milliseconds) times the leases; `target_class` and `target_timeout` make
    the targets' clients (a test observes or holds their writes through them)."""

    def __init__(self, service: Any, owner: str | None = None, *, clock: Callable[[], int] = now_ms,
                 target_class: type[RestRegistry] = RestRegistry, target_timeout: float = TARGET_TIMEOUT_S) -> None:
        self.service = service
        self.storage = service.storage
        self.owner = owner or f"{socket.gethostname()}:{os.getpid()}:{secrets.token_hex(4)}"
        self._auto_context = auto_context(service.settings.cluster_id)
        self._max_reply_bytes = service.settings.exporter_max_reply_bytes
        self._clock = clock
        self._target_class = target_class
        self._target_timeout = target_timeout
        self._stopped = threading.Event()
        self._jobs: dict[str, _Job] = {}
        self._retiring: dict[str, _Job] = {}  # let go while a pass was under way: no new job until it ends
        self._source: Any = None
        self._held: dict[str, int] = {}  # the leases this process holds, by generation (the heartbeat renews them)
        # Whether the last reload saw an exporter that should run: only then can a lease expire
        # (its holder died) with no commit to say so, and only then is the once-a-second reload due.
        self._watching = False
        self._token: Any = object()
        self._next_beat = self._next_blind_pass = 0.0
        self._lock = threading.Lock()
        self._thread = threading.Thread(target=self._run, name="sqlregistry-exporters", daemon=True)
        self._heartbeat = threading.Thread(target=self._beat, name="sqlregistry-exporter-leases", daemon=True)

    def start(self) -> ExporterRunner:
        self._thread.start()
        self._heartbeat.start()
        return self

    def stop(self, timeout: float = 2.0) -> None:
        """Stop, waiting up to `timeout` in all for the threads (a pass under way may wait on
        its target: the exit is not held up for it; its next write finds the lease released)."""
        self._stopped.set()
        deadline = time.monotonic() + timeout
        for thread in (self._thread, self._heartbeat):
            if thread.is_alive():
                thread.join(max(0.0, deadline - time.monotonic()))
        with self._lock:
            held = sorted(self._held)
        for name in list(self._jobs):
            self._let_go(name)
        for job in list(self._retiring.values()):
            if job.thread is not None:
                job.thread.join(max(0.0, deadline - time.monotonic()))
        with self._lock:
            self._held = {}
        if not held:
            return  # no connection taken (nor a deferred storage built) for nothing
        with self.storage.read() as store:
            for name in held:
                store.release_exporter_lease(name, self.owner)

    # ---------------------------------------------------------------- the coordinator
    def _run(self) -> None:
        while not self._stopped.is_set():
            try:
                self.tick()
            except Exception as exc:  # noqa: BLE001 - the database away: try again, never die
                log.warning("exporters: %s", exc)
                self._stopped.wait(1.0)
            self._stopped.wait(POLL_S)

    def tick(self) -> None:
        """One turn of the coordinator: reload what changed (and, once a beat, take the leases
        of exporters nobody runs), then hand a pass to each idle exporter that needs one.
        Nothing while a worker's deferred storage is still unbuilt (app/storage/deferred.py):
        the runner started at a worker's first request must not load SQLAlchemy before the
        worker's first answer; the first request that needs the database builds it."""
        if not getattr(self.storage, "ready", True):
            return
        current = self.storage.change_token()
        now = time.monotonic()
        changed = current != self._token or current is None and now >= self._next_blind_pass
        if now >= self._next_beat and (self._watching or current is None):
            self._refresh(renew=True)
            self._next_beat = now + HEARTBEAT_S
        elif changed:
            self._refresh(renew=False)
        if current is None and now >= self._next_blind_pass:
            self._next_blind_pass = now + UNKNOWN_TOKEN_PASS_S
        self._token = current
        # One read of the subjects' marks serves every exporter handed a pass this tick (a
        # failed read is not kept: the next tick reads again).
        marks = functools.cache(self._subject_marks)
        for job in list(self._jobs.values()):
            if self._stopped.is_set():
                break
            if job.busy:
                job.missed = job.missed or changed
                continue
            with self._lock:
                held = job.name in self._held
            state = job.row.status.state
            if held and (state == STARTING or state == RUNNING and (changed or job.missed or job.marks is None)):
                job.missed = False
                job.handed = marks()
                job.busy = True
                job.wake.set()

    def _refresh(self, renew: bool) -> None:
        """Reload the definitions and give up the exporters paused, failed, deleted or whose
        lease was lost; with `renew` (once a second), also try to take the lease of every
        exporter that should run and nobody runs. Between those a change only reloads: under
        a burst of registrations no lease row is written per commit. A job's row is replaced
        only while it is idle, as it was before the read (its own report is then in it)."""
        now = self._clock()
        idle = {name for name, job in self._jobs.items() if not job.busy}
        with self.storage.read() as store:
            rows = {row.definition.name: row for row in store.exporters()}
            self._watching = any(row.status.state in (STARTING, RUNNING) for row in rows.values())
            for name in list(self._jobs):
                row = rows.get(name)
                with self._lock:
                    lost = self._held.get(name) != self._jobs[name].generation
                if lost or row is None or row.status.state not in (STARTING, RUNNING):
                    if not lost:
                        store.release_exporter_lease(name, self.owner)
                    self._let_go(name)
            for name, ended in list(self._retiring.items()):
                if ended.thread is None or not ended.thread.is_alive():
                    del self._retiring[name]
            for name, row in rows.items():
                if row.status.state not in (STARTING, RUNNING) or name in self._retiring:
                    continue
                job = self._jobs.get(name)
                if job is None:
                    if not renew:
                        continue
                    generation = store.take_exporter_lease(name, self.owner, now, now + LEASE_MS)
                    if generation is None:
                        continue
                    with self._lock:
                        self._held[name] = generation
                    job = self._jobs[name] = self._start_job(row, generation)
                elif name in idle:
                    if row.status.state == STARTING or row.definition != job.row.definition:
                        job.marks = None
                    job.row = row

    def _start_job(self, row: StoredExporter, generation: int) -> _Job:
        job = _Job(row, generation)
        job.thread = threading.Thread(target=self._work, args=(job,), daemon=True,
                                      name=f"sqlregistry-exporter-{row.definition.name}"[:60])
        job.thread.start()
        return job

    def _let_go(self, name: str) -> None:
        job = self._jobs.pop(name, None)
        with self._lock:
            if job is not None and self._held.get(name) == job.generation:
                del self._held[name]
        if job is not None:
            job.retired = True
            job.wake.set()
            if job.thread is not None and job.thread.is_alive():
                self._retiring[name] = job

    def _beat(self) -> None:
        """The heartbeat, on a thread of its own so that a long pass (a first comparison of a
        big registry) never lets a lease expire: renew every lease held; one that cannot be
        renewed was taken over, and its exporter is dropped before its next pass (and its
        pass under way stops at its next write: the fence)."""
        while not self._stopped.wait(HEARTBEAT_S):
            with self._lock:
                held = dict(self._held)
            if not held:
                continue  # nothing to renew: no connection taken
            expires = self._clock() + LEASE_MS
            try:
                with self.storage.read() as store:
                    for name, generation in sorted(held.items()):
                        if not store.renew_exporter_lease(name, self.owner, generation, expires):
                            self._lost(name, generation)
            except Exception as exc:  # noqa: BLE001 - the database away: the next beat tries again
                log.warning("exporters heartbeat: %s", exc)

    def _lost(self, name: str, generation: int) -> None:
        with self._lock:
            if self._held.get(name) == generation:
                del self._held[name]

    def _subject_marks(self) -> dict[str, Any]:
        with self.storage.read() as store:
            return {m.qualified: m for m in store.subject_marks()}

    # ---------------------------------------------------------------- an exporter's own thread
    def _work(self, job: _Job) -> None:
        while True:
            job.wake.wait()
            job.wake.clear()
            handed, job.handed = job.handed, None
            if handed is not None:
                try:
                    self._pass(job, handed)
                finally:
                    job.busy = False
            if job.retired or self._stopped.is_set():
                return

    def _pass(self, job: _Job, marks: dict[str, Any]) -> None:
        row = job.row
        name = row.definition.name
        try:
            source = self._source_registry()
            chosen = {s: m for s, m in marks.items() if row.definition.includes(s)}
            before = job.marks or {}
            changed = [s for s, m in chosen.items() if job.marks is None or before.get(s) != m]
            writes = copy_subjects(source, self._target(job), row.definition, self._auto_context, changed) \
                if changed else 0
        except LeaseLost as exc:
            job.marks = None
            log.warning("exporter %s: %s", name, exc)
            return
        except TransferError as exc:  # what the target did or said, in one sentence
            self._failed(job, str(exc))
            return
        except Exception:  # noqa: BLE001 - a fault of ours: the log has it, the status says so
            log.exception("exporter %s stopped", name)
            self._failed(job, INTERNAL_ERROR)
            return
        job.marks = chosen
        if writes or row.status.state == STARTING:
            self._report(job, RUNNING, row.status.offset + writes, None)

    def _failed(self, job: _Job, reason: str) -> None:
        job.marks = None
        log.warning("exporter %s stopped: %s", job.name, reason)
        self._report(job, ERROR, job.row.status.offset, trace_text(reason))

    def _report(self, job: _Job, state: str, offset: int, trace: str | None) -> None:
        row = job.row
        with self.storage.read() as store:
            reported = store.report_exporter(row.definition.name, self.owner, job.generation, (STARTING, RUNNING),
                                             state, offset, trace, self._clock())
        if reported:
            job.row = replace(row, status=replace(row.status, state=state, offset=offset, trace=trace))

    def _fence(self, job: _Job) -> Callable[[], None]:
        """Read before each write to `job`'s target: the lease is still this job's."""
        def check() -> None:
            with self.storage.read() as store:
                held = store.holds_exporter_lease(job.name, self.owner, job.generation, self._clock())
            if not held:
                self._lost(job.name, job.generation)
                raise LeaseLost(f"lost its lease (generation {job.generation}) to another process or to time; "
                                "stopped before its next write")
        return check

    def _target(self, job: _Job) -> RestRegistry:
        if job.target is None or job.target_config != job.row.config:
            job.target = self._target_class(target_endpoint(job.row.config), pool_size=4,
                                            timeout=self._target_timeout, side="target",
                                            max_reply_bytes=self._max_reply_bytes, fence=self._fence(job))
            job.target_config = job.row.config
        return job.target

    def _source_registry(self) -> Any:
        """This registry, read through its own API in this process (no socket, no credentials:
        a service of its own on the same storage, without the auth file); one for every
        exporter's thread, made by the first that needs it."""
        with self._lock:
            if self._source is None:
                from app.core.registry import RegistryService
                from app.formats import FORMATS
                from app.server.in_process import InProcessRegistry

                settings = replace(self.service.settings, auth_file="", metrics=False, hot_read_cache=False)
                self._source = InProcessRegistry(RegistryService(self.storage, FORMATS, settings), "http://in-process")
            return self._source


def start_runner(service: Any) -> ExporterRunner | None:
    """The process's runner for `service`, started once however often this is called (the
    worker hook and the first request both may), unless REGISTRY_EXPORTERS is off."""
    if not service.settings.exporters:
        return None
    with _STARTING:
        runner = _RUNNERS.get(service)
        if runner is None:
            runner = _RUNNERS[service] = ExporterRunner(service).start()
            atexit.register(runner.stop)  # a worker that exits cleanly hands its leases over at once
    return runner


# The runner of each service in this process. A forked child has none of its parent's threads,
# so it forgets the parent's runners (a gunicorn master never starts one; this is for anything
# else that forks a serving process).
_RUNNERS: weakref.WeakKeyDictionary[Any, ExporterRunner] = weakref.WeakKeyDictionary()
_STARTING = threading.Lock()


def _forget_after_fork() -> None:
    global _STARTING
    _RUNNERS.clear()
    _STARTING = threading.Lock()  # another thread of the parent may have held it at the fork


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget_after_fork)
