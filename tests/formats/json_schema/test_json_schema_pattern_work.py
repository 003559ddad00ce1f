"""JSON Schema patterns are checked in bounded time (app/formats/json_schema/patterns.py,
pattern_process.py): the request's work budget is read between patterns and along each
translation, Python's compiler (minutes for a megabyte of caseless wide classes) is never
run, and a long translation is parsed in a child process that the budget stops and is
charged with. Clocks are the tests' own; only the child's CPU reading is real where its
value does not matter.
"""
from __future__ import annotations

import itertools
import re
import subprocess
from typing import Any

import pytest

from app.formats import work_budget
from app.formats.json_schema import pattern_process
from app.formats.json_schema.patterns import IN_PROCESS_CHARS, check_regexes, regex_error
from app.formats.json_schema.subschemas import Regex

# Python's parser is quadratic in two long alternatives sharing a prefix (seconds here).
QUADRATIC = "a" * 150_000 + "|" + "a" * 150_000


@pytest.fixture
def ticking(monkeypatch: pytest.MonkeyPatch) -> None:
    """The budget's CPU clock advances a second at each reading."""
    ticks = itertools.count()
    monkeypatch.setattr(work_budget, "cpu_clock", lambda: float(next(ticks)))


@pytest.fixture
def still(monkeypatch: pytest.MonkeyPatch) -> None:
    """The serving thread's CPU clock stands still: only what the child is charged with counts."""
    monkeypatch.setattr(work_budget, "cpu_clock", lambda: 0.0)


@pytest.fixture
def children(monkeypatch: pytest.MonkeyPatch) -> list[subprocess.Popen[bytes]]:
    started: list[subprocess.Popen[bytes]] = []
    real = subprocess.Popen

    def recording(*args: Any, **kwargs: Any) -> subprocess.Popen[bytes]:
        child = real(*args, **kwargs)
        started.append(child)
        return child

    monkeypatch.setattr(pattern_process.subprocess, "Popen", recording)
    return started


@pytest.mark.usefixtures("ticking")
def test_the_budget_is_read_between_patterns() -> None:
    regexes = [Regex(f"^p{i}_[a-z]+$", f"#/patternProperties/^p{i}_[a-z]+$") for i in range(20)]
    with work_budget.limited(5.0), pytest.raises(work_budget.WorkBudgetExceeded):
        check_regexes(regexes)


@pytest.mark.usefixtures("ticking")
def test_the_budget_is_read_along_a_long_pattern() -> None:
    with work_budget.limited(5.0), pytest.raises(work_budget.WorkBudgetExceeded):
        regex_error("ab" * 20_000)


def test_patterns_are_parsed_never_compiled(monkeypatch: pytest.MonkeyPatch) -> None:
    """Compiling builds a table per character class: 5 ms for `(?i)[a-\\u{10ffff}]`."""
    def refuse(*_: Any) -> None:
        raise AssertionError("the regular expression compiler ran")

    monkeypatch.setattr(re._compiler, "compile", refuse)  # type: ignore[attr-defined]
    assert regex_error("(?i)" + "[a-\\u{10ffff}]" * 200) is None
    assert regex_error("[z-a]") == "bad character range z-a"


def test_a_long_pattern_gets_the_same_verdict_in_a_child(children: list[subprocess.Popen[bytes]]) -> None:
    long_valid = "(?:x|y)?" * (IN_PROCESS_CHARS // 8 + 1)
    assert regex_error(long_valid) is None
    assert regex_error(long_valid + "(") == "missing ), unterminated subpattern"
    assert regex_error("x*" * 10 + "(") == "missing ), unterminated subpattern"  # in place
    assert len(children) == 2
    assert all(child.returncode == 0 for child in children)


@pytest.mark.usefixtures("still")
def test_a_child_outrunning_the_budget_is_killed_and_the_request_refused(
    monkeypatch: pytest.MonkeyPatch, children: list[subprocess.Popen[bytes]],
) -> None:
    monkeypatch.setattr(work_budget, "process_cpu_seconds", lambda pid, seen: 6.0)  # past 5 s at the first reading
    with work_budget.limited(5.0), pytest.raises(work_budget.WorkBudgetExceeded, match=r"\(5 s\)"):
        regex_error(QUADRATIC)
    [child] = children
    assert child.returncode is not None  # killed and reaped, not left running


@pytest.mark.usefixtures("still")
def test_a_childs_cpu_time_is_charged_to_the_budget() -> None:
    with work_budget.limited(5.0):
        assert regex_error("x?" * IN_PROCESS_CHARS) is None
        left = work_budget.remaining()
    assert left is not None and 0 < left < 5.0


def test_without_a_budget_a_child_runs_to_its_end(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(work_budget, "process_cpu_seconds", lambda pid, seen: 1e9)
    assert regex_error("(" * 3 + "x" * IN_PROCESS_CHARS + ")" * 2) == "missing ), unterminated subpattern"

