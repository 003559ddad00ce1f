"""The request's time budget as the formats' loops see it (app/formats/work_budget.py)."""
from __future__ import annotations

import threading

import pytest

from app.formats import work_budget
from app.formats.base import SchemaParseError


def test_check_without_a_budget_never_refuses() -> None:
    work_budget.check()
    assert work_budget.remaining() is None


def test_a_spent_budget_refuses_as_a_schema_refusal(monkeypatch: pytest.MonkeyPatch) -> None:
    clock = [100.0]
    monkeypatch.setattr(work_budget.time, "monotonic", lambda: clock[0])
    with work_budget.limited(2.0):
        work_budget.check()
        clock[0] = 102.5
        with pytest.raises(SchemaParseError, match=r"longer than the registry allows \(2 s\)"):
            work_budget.check()
    work_budget.check()  # the budget ends with the block


def test_an_inner_budget_never_extends_the_outer_one(monkeypatch: pytest.MonkeyPatch) -> None:
    clock = [0.0]
    monkeypatch.setattr(work_budget.time, "monotonic", lambda: clock[0])
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
