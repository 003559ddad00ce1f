"""The per-process helper that runs protoc (`protoc_child`), so that no schema can end a worker.

protoc aborts its whole process on some inputs. Each process that compiles schemas (a gunicorn
worker, the CLI, a test) starts one child on its first compile, a new interpreter running
`protoc_child.py` (about 40 ms: it imports grpc_tools only), and sends it one compilation at a
time over a pipe. A child that dies mid-compile (a crash, or killed by anyone) makes that one
schema refused with `CompilerCrashed`, and the next compile starts a new child. The child is
never forked from the worker, whose other threads may hold locks, and a worker forked from a
process that had a child (a preloading server) starts its own.

The wait for a reply honours the request's work budget, which counts CPU time: the child's CPU
time is read while it works and charged to the request, and once it passes what the budget has
left the child is killed, which interrupts protoc as nothing in process could. A loaded host
slows the child without spending the budget, so the wall clock bounds only a child that hangs
without working (`WALL_SECONDS_PER_BUDGET_SECOND`). A reply is read within a byte limit that
grows with the input, and its header is checked for its shape before anything else reads it.
"""
from __future__ import annotations

import json
import logging
import os
import selectors
import subprocess
import sys
import threading
import time
import weakref
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from app.formats import work_budget
from app.formats.protobuf.protoc_child import FRAME_HEADER, ChildReply

_CHILD_SCRIPT = str(Path(__file__).with_name("protoc_child.py"))

# A reply may hold the descriptor set with source info (about 3 bytes per character of text)
# and every import (descriptor.proto with its source info is 100 KB): far below this.
REPLY_BASE_BYTES = 16 << 20
REPLY_BYTES_PER_INPUT_BYTE = 32

# How often a wait under a budget reads the child's CPU time, and how many seconds on the wall it
# waits per CPU second of budget left (plus one) before taking the child for hung.
_POLL_SECONDS = 0.02
WALL_SECONDS_PER_BUDGET_SECOND = 4.0

_log = logging.getLogger(__name__)


class CompilerCrashed(Exception):
    """The child ended (or sent what no child sends) before answering; the schema is refused."""


class ProtocProcess:
    """One child at a time for this process, started when first needed and after each death."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._child: subprocess.Popen[bytes] | None = None
        mine = weakref.ref(self)  # a forgotten instance is not kept alive by the fork hook
        os.register_at_fork(after_in_child=lambda: _forget(mine))

    def _forgotten(self) -> None:
        """In a forked process: the parent's child and lock are the parent's, not ours."""
        self._lock = threading.Lock()
        self._child = None

    def compile(self, main: str, files: Mapping[str, str], include: list[str]) -> ChildReply:
        """protoc on `main` among `files` in the child. `CompilerCrashed` when the child dies
        or answers out of shape; `WorkBudgetExceeded` when the request's budget runs out first."""
        work_budget.check()  # a spent budget sends nothing
        request = json.dumps({"main": main, "files": dict(files), "include": include}).encode()
        limit = REPLY_BASE_BYTES + REPLY_BYTES_PER_INPUT_BYTE * len(request)
        remaining = work_budget.remaining()
        wall = None if remaining is None else 1.0 + WALL_SECONDS_PER_BUDGET_SECOND * remaining
        deadline = None if wall is None else time.monotonic() + wall
        if not self._lock.acquire(timeout=-1 if wall is None else wall):
            work_budget.check()
            raise CompilerCrashed("the compiler stayed busy past the work budget")
        try:
            child = self._running()
            meter = _ChildCpu(child.pid)
            try:
                _send(child, request)
                header = _read_frame(child, meter, deadline, limit)
                payload = _read_frame(child, meter, deadline, limit - len(header))
                meter.charge()
                work_budget.check()
                return _reply(header, payload)
            except CompilerCrashed:
                self._stop(child, "ended while compiling a schema")
                raise
            except TimeoutError:
                self._stop(child, None)
                meter.charge()
                work_budget.check()
                raise CompilerCrashed(f"the compiler did not answer within {wall:g} s") from None
        finally:
            self._lock.release()

    def _running(self) -> subprocess.Popen[bytes]:
        child = self._child
        if child is None or child.poll() is not None:
            if child is not None:
                self._stop(child, "had ended")
            child = subprocess.Popen(
                [sys.executable, "-I", _CHILD_SCRIPT], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                stderr=None, close_fds=True, start_new_session=True,
            )
            self._child = child
        return child

    def _stop(self, child: subprocess.Popen[bytes], why: str | None) -> None:
        """Ends and reaps `child`; `why`, if given, goes to the log with how it ended."""
        if child.poll() is None:
            child.kill()
        status = child.wait()
        for stream in (child.stdin, child.stdout):
            if stream is not None:
                try:
                    stream.close()
                except OSError:
                    pass
        if self._child is child:
            self._child = None
        if why is not None:
            ended = f"signal {-status}" if status < 0 else f"status {status}"
            _log.warning("the Protobuf compiler process (pid %d) %s (%s); a new one starts for the next schema",
                         child.pid, why, ended)

    def stop(self) -> None:
        """Ends the child, if any (tests, and a process that is done compiling)."""
        with self._lock:
            if self._child is not None:
                self._stop(self._child, None)

    def child_pid(self) -> int | None:
        """The running child's process id: tests kill it to see a crash handled."""
        child = self._child
        return child.pid if child is not None and child.poll() is None else None


def _forget(ref: weakref.ref[ProtocProcess]) -> None:
    found = ref()
    if found is not None:
        found._forgotten()


def _send(child: subprocess.Popen[bytes], request: bytes) -> None:
    assert child.stdin is not None
    try:
        child.stdin.write(FRAME_HEADER.pack(len(request)))
        child.stdin.write(request)
        child.stdin.flush()
    except (BrokenPipeError, OSError):
        raise CompilerCrashed("the compiler's process is gone") from None


class _ChildCpu:
    """The CPU time the child spends on one compile, read while the parent waits, so that the
    request's budget covers the child's work as well as its own thread's."""

    def __init__(self, pid: int) -> None:
        self.pid = pid
        self.start = work_budget.process_cpu_seconds(pid, 0.0)
        self.seen = self.start

    def spent(self) -> float:
        self.seen = max(self.seen, work_budget.process_cpu_seconds(self.pid, self.seen))
        return self.seen - self.start

    def over_budget(self) -> bool:
        left = work_budget.remaining()
        return left is not None and self.spent() >= left

    def charge(self) -> None:
        work_budget.charge(self.spent())
        self.start = self.seen  # charged once


def _read_frame(child: subprocess.Popen[bytes], meter: _ChildCpu, deadline: float | None, limit: int) -> bytes:
    """One frame from the child, its size within `limit`; TimeoutError once the child's CPU time
    passes the budget left, or past `deadline` on the wall."""
    assert child.stdout is not None
    fd = child.stdout.fileno()
    header = _read_exact(fd, FRAME_HEADER.size, meter, deadline)
    (size,) = FRAME_HEADER.unpack(header)
    if size > limit:
        raise CompilerCrashed(f"the compiler's reply is larger than {limit} bytes")
    return _read_exact(fd, size, meter, deadline)


def _read_exact(fd: int, size: int, meter: _ChildCpu, deadline: float | None) -> bytes:
    chunks: list[bytes] = []
    missing = size
    with selectors.DefaultSelector() as selector:
        selector.register(fd, selectors.EVENT_READ)
        while missing:
            timeout = None if deadline is None else min(_POLL_SECONDS, max(0.0, deadline - time.monotonic()))
            if not selector.select(timeout):
                if deadline is not None and (meter.over_budget() or time.monotonic() >= deadline):
                    raise TimeoutError
                continue
            chunk = os.read(fd, min(missing, 1 << 20))
            if not chunk:
                raise CompilerCrashed("the compiler's process ended before answering")
            chunks.append(chunk)
            missing -= len(chunk)
    return b"".join(chunks)


def _reply(header: bytes, payload: bytes) -> ChildReply:
    """The child's reply, once its header has the shape the child sends."""
    try:
        found: Any = json.loads(header)
    except ValueError:
        raise CompilerCrashed("the compiler's reply is not JSON") from None
    if not (isinstance(found, dict) and found.get("status") in ("compiled", "refused")
            and isinstance(found.get("errors"), list) and isinstance(found.get("ran"), list)
            and all(isinstance(name, str) for name in found["ran"])
            and all(_is_error(e) for e in found["errors"])):
        raise CompilerCrashed("the compiler's reply is not of the expected shape")
    errors = [(e[0], e[1], e[2], e[3]) for e in found["errors"]]
    return ChildReply(found["status"] == "compiled", errors, list(found["ran"]), payload)


def _is_error(entry: object) -> bool:
    return (isinstance(entry, list) and len(entry) == 4 and isinstance(entry[0], str) and isinstance(entry[3], str)
            and all(isinstance(n, int) and not isinstance(n, bool) for n in entry[1:3]))
