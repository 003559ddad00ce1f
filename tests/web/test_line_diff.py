"""The text view's line matcher: what it matches, and that its work, counted in steps, grows
with the lines whatever they repeat (difflib's took seconds on two 200-field records)."""
from __future__ import annotations

import json

from app.web.line_diff import LineMatcher, Match
from app.web.texts import STEPS_PER_LINE
from support.shared_types import avro_wide_record as wide


def matched(a: list[str], b: list[str], max_steps: int = 10_000) -> list[tuple[int, int]]:
    return [tuple(m) for m in LineMatcher(a, b, max_steps).matches()]


def test_equal_lines_around_a_change_match() -> None:
    assert matched(["a", "b", "c"], ["a", "x", "c"]) == [(0, 0), (2, 2)]


def test_an_inserted_line_shifts_the_rest() -> None:
    assert matched(["a", "b", "c", "d"], ["a", "b", "new", "c", "d"]) == [(0, 0), (1, 1), (2, 3), (3, 4)]


def test_a_line_unique_on_both_sides_anchors_the_repeated_ones_around_it() -> None:
    old = ["}", "}", "x", "{", "{"]
    new = ["{", "}", "}", "x", "{", "{", "}"]

    found = matched(old, new)

    assert found == [(0, 1), (1, 2), (2, 3), (3, 4), (4, 5)]


def test_work_on_two_wide_records_is_a_few_steps_a_line() -> None:
    old = json.dumps(wide(625, "string"), indent=2).splitlines()
    new = json.dumps(wide(625, "int"), indent=2).splitlines()
    lines = len(old) + len(new)
    matcher = LineMatcher(old, new, STEPS_PER_LINE * lines)

    found = matcher.matches()

    assert len(found) == len(old) - 625  # every line but the 625 changed types
    assert matcher.steps <= 2 * lines


def test_repeated_lines_without_anchors_stop_at_the_step_limit() -> None:
    old = ["}", "{"] * 2_000
    new = ["{", "}"] * 2_000
    matcher = LineMatcher(old, new, 1_000)

    found = matcher.matches()

    assert matcher.steps <= 1_000
    assert all(old[m.old] == new[m.new] for m in found)
    assert found == sorted(found) and all(a.new < b.new for a, b in zip(found, found[1:]))


def test_a_match_is_a_named_pair() -> None:
    assert LineMatcher(["a"], ["a"], 10).matches() == [Match(old=0, new=0)]
