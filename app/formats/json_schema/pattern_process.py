"""Parsing a regular expression's Python translation, in the serving thread or in a child process.

Python's regular expression parser runs in pure Python and cannot be interrupted, and a few
shapes make it quadratic (two alternatives of 350,000 characters sharing a prefix: 20 s).
Short translations are parsed in place, where that costs little whatever the shape; a long one
is parsed by a child interpreter, which the request's work budget (app/formats/work_budget.py)
can stop: its CPU time is read while it runs, charged to the budget when it ends, and the child
is killed once it would outrun what the budget has left. Without a budget (the CLI, tests) it
runs to its end.
"""
from __future__ import annotations

import json
import subprocess
import sys
import time
from typing import IO, cast

from app.formats import work_budget

try:  # Python 3.11+
    from re import _parser as _sre_parser
except ImportError:  # pragma: no cover - Python 3.10
    import sre_parse as _sre_parser  # type: ignore[no-redef]

# What the child runs: the same parse as `parse_error`, reading the translation as a JSON
# string on stdin and answering {"error": message or null, "cpu": its CPU seconds}.
_CHILD = """
import json, sys, time
try:
    from re import _parser as sre_parser
except ImportError:
    import sre_parse as sre_parser
error = None
try:
    sre_parser.parse(json.load(sys.stdin), 0)
except sre_parser.error as exc:
    error = exc.msg
except (OverflowError, RecursionError, ValueError, MemoryError) as exc:
    error = str(exc) or type(exc).__name__
json.dump({"error": error, "cpu": time.process_time()}, sys.stdout)
"""
# How often the parent reads the child's CPU clock, in seconds on the wall.
_POLL_SECONDS = 0.02
# The child's answer is a short message; anything longer is not its answer.
_MAX_REPLY_BYTES = 4096


class ChildFailed(RuntimeError):
    """The child ended without its answer (killed by the system, or out of memory): a fault
    of the server, answered as one (500), not a verdict on the pattern."""


def parse_error(text: str) -> str | None:
    """None when Python's parser reads `text`, else its reason."""
    try:
        _sre_parser.parse(text, 0)
    except _sre_parser.error as exc:
        return exc.msg
    except (OverflowError, RecursionError, ValueError) as exc:
        return str(exc)
    return None


def parse_error_in_child(text: str) -> str | None:
    """`parse_error` of `text`, computed by a child interpreter within the request's budget
    (`WorkBudgetExceeded` when it runs out first)."""
    child = subprocess.Popen(
        [sys.executable, "-I", "-S", "-c", _CHILD],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
    )
    stdin, stdout = cast(IO[bytes], child.stdin), cast(IO[bytes], child.stdout)  # both piped
    cpu_seen = 0.0
    try:
        try:
            # The child reads all of it before it starts parsing, and answers in one short line.
            stdin.write(json.dumps(text).encode("utf-8"))
            stdin.close()
        except BrokenPipeError:
            pass  # it ended early: its reply (or its lack) says why
        while True:
            try:
                child.wait(_POLL_SECONDS)
                break
            except subprocess.TimeoutExpired:
                pass
            cpu_seen = max(cpu_seen, work_budget.process_cpu_seconds(child.pid, cpu_seen))
            left = work_budget.remaining()
            if left is not None and cpu_seen >= left:
                child.kill()
                child.wait()
                work_budget.charge(cpu_seen)
                work_budget.refuse()
        out = stdout.read(_MAX_REPLY_BYTES + 1)
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()
        stdin.close()
        stdout.close()
    reply = _reply(out)
    work_budget.charge(max(reply[1], cpu_seen))
    work_budget.check()
    return reply[0]


def _reply(out: bytes) -> tuple[str | None, float]:
    """The child's answer, checked for its shape."""
    try:
        if len(out) > _MAX_REPLY_BYTES:
            raise ValueError("too long")
        answer = json.loads(out)
        error, cpu = answer["error"], answer["cpu"]
        if (error is not None and not isinstance(error, str)) or not isinstance(cpu, (int, float)):
            raise ValueError("not the expected shape")
    except (ValueError, KeyError, TypeError) as exc:
        raise ChildFailed(f"the regular expression parser ended without an answer ({exc})") from None
    return error, float(cpu)
