"""The request's time budget as the formats' loops see it (app/formats/work_budget.py)."""
from __future__ import annotations

import contextvars
import threading
import time

import pytest

from app.formats import work_budget
from app.formats.base import SchemaParseError


def test_check_without_a_budget_never_refuses() -> None:
    work_budget.check()
    assert work_budget.remaining() is None


def test_a_spent_budget_refuses_as_a_schema_refusal(monkeypatch: pytest.MonkeyPatch) -> None:
    clock = [100.0]
    monkeypatch.setattr(work_budget, "cpu_clock", lambda: clock[0])
    with work_budget.limited(2.0):
        work_budget.check()
        clock[0] = 102.5
        with pytest.raises(SchemaParseError, match=r"longer than the registry allows \(2 s\)"):
            work_budget.check()
    work_budget.check()  # the budget ends with the block


def test_an_inner_budget_never_extends_the_outer_one(monkeypatch: pytest.MonkeyPatch) -> None:
    clock = [0.0]
    monkeypatch.setattr(work_budget, "cpu_clock", lambda: clock[0])
    with work_budget.limited(1.0):
        with work_budget.limited(60.0):
            assert work_budget.remaining() == 1.0
        with work_budget.limited(0.5):
            assert work_budget.remaining() == 0.5
        assert work_budget.remaining() == 1.0


def test_each_thread_keeps_its_own_budget() -> None:
    seen: list[float | None] = []
    with work_budget.limited(5.0):
        thread = threading.Thread(target=lambda: seen.append(work_budget.remaining()))
        thread.start()
        thread.join()
    assert seen == [None]


def test_time_on_the_wall_without_cpu_work_spends_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    """A busy host delays a request without the request doing more work: only the thread's CPU
    time counts, so a valid schema is never refused for the host's load."""
    wall, cpu = [0.0], [10.0]
    monkeypatch.setattr(time, "monotonic", lambda: wall[0])
    monkeypatch.setattr(time, "time", lambda: wall[0])
    monkeypatch.setattr(work_budget, "cpu_clock", lambda: cpu[0])
    with work_budget.limited(5.0):
        wall[0] += 3600.0
        work_budget.check()
        assert work_budget.remaining() == 5.0
        cpu[0] += 5.5
        with pytest.raises(work_budget.WorkBudgetExceeded):
            work_budget.check()


def test_the_budget_counts_the_calling_threads_cpu_time() -> None:
    assert work_budget.cpu_clock is time.thread_time


def test_cpu_time_charged_from_a_child_process_spends_the_budget(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(work_budget, "cpu_clock", lambda: 0.0)
    with work_budget.limited(5.0):
        with work_budget.limited(2.0):
            work_budget.charge(1.5)
            assert work_budget.remaining() == 0.5
        assert work_budget.remaining() == 3.5  # the inner block's child worked for the same request
        work_budget.charge(4.0)
        with pytest.raises(work_budget.WorkBudgetExceeded, match=r"\(5 s\)"):
            work_budget.check()
    work_budget.charge(100.0)  # outside any budget: nothing to charge
    work_budget.check()


def test_a_budget_seen_from_another_thread_is_none_of_its_business() -> None:
    """A context copied into another thread carries the budget, but that thread's CPU clock is
    not the request's: it neither refuses nor reports a remainder there."""
    seen: list[float | None] = []
    with work_budget.limited(1e-9):
        context = contextvars.copy_context()
        thread = threading.Thread(target=lambda: context.run(lambda: (work_budget.check(), seen.append(work_budget.remaining()))))
        thread.start()
        thread.join()
    assert seen == [None]
