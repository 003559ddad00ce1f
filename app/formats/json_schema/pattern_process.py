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
# What the child runs for a compatibility check's `patternProperties` match of a long pattern:
# `regex` compiles a pattern before matching it, and that compile cannot be stopped either.
# It reads {"pattern", "name", "timeout"} and answers {"found": bool or null, "error": "timeout"
# or null, "cpu": its CPU seconds}; a pattern that does not compile matches nothing.
_SEARCH_CHILD = """
import json, sys, time
import regex
request = json.load(sys.stdin)
found, error = False, None
try:
    found = regex.search(request["pattern"], request["name"], timeout=request["timeout"]) is not None
except regex.error:
    found = False
except TimeoutError:
    found, error = None, "timeout"
json.dump({"found": found, "error": error, "cpu": time.process_time()}, sys.stdout)
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
    answer = _in_child(["-I", "-S", "-c", _CHILD], text)
    error = answer.get("error")
    if error is not None and not isinstance(error, str):
        raise ChildFailed("the regular expression parser's answer is not of the expected shape")
    return error


def search_in_child(pattern: str, name: str, timeout: float) -> bool:
    """Whether `regex` finds `pattern` in `name`, compiled and matched by a child interpreter
    within the request's budget (`WorkBudgetExceeded` when it runs out first); `TimeoutError`
    when the match itself outruns `timeout`, as `regex.search` raises it in process."""
    answer = _in_child(["-I", "-c", _SEARCH_CHILD], {"pattern": pattern, "name": name, "timeout": timeout})
    if answer.get("error") == "timeout":
        raise TimeoutError
    found = answer.get("found")
    if not isinstance(found, bool):
        raise ChildFailed("the regular expression matcher's answer is not of the expected shape")
    return found


def _in_child(arguments: list[str], request: object) -> dict[str, object]:
    """Runs a child interpreter on `request` (sent as JSON on stdin) and returns its JSON answer.
    Its CPU time is read while it runs and charged to the budget when it ends; it is killed once
    it would outrun what the budget has left."""
    child = subprocess.Popen(
        [sys.executable, *arguments],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
    )
    stdin, stdout = cast(IO[bytes], child.stdin), cast(IO[bytes], child.stdout)  # both piped
    cpu_seen = 0.0
    try:
        try:
            # The child reads all of it before it starts, and answers in one short line.
            stdin.write(json.dumps(request).encode("utf-8"))
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
    answer, cpu = _reply(out)
    work_budget.charge(max(cpu, cpu_seen))
    work_budget.check()
    return answer


def _reply(out: bytes) -> tuple[dict[str, object], float]:
    """The child's answer and CPU seconds, once it has the shape every child's answer has."""
    try:
        if len(out) > _MAX_REPLY_BYTES:
            raise ValueError("too long")
        answer = json.loads(out)
        if not isinstance(answer, dict) or not isinstance(answer.get("cpu"), (int, float)):
            raise ValueError("not the expected shape")
    except (ValueError, TypeError) as exc:
        raise ChildFailed(f"the regular expression child ended without an answer ({exc})") from None
    return answer, float(answer["cpu"])
