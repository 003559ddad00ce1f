"""Which subjects an exporter's `subjects` patterns choose: `*` matches any run, the rest is
literal, a pattern without a context prefix chooses the default context. The matcher must stay
linear: a backtracking one spent seconds on a twelve-character pattern."""
from __future__ import annotations

import re

from hypothesis import given
from hypothesis import strategies as st

from app.core.exporters.records import ExporterDefinition


def _chooses(pattern: str, subject: str) -> bool:
    return ExporterDefinition("x", (pattern,)).includes(subject)


def test_a_star_matches_any_run_and_a_plain_pattern_stays_in_the_default_context() -> None:
    assert _chooses("orders-*", "orders-value")
    assert _chooses("*-value", "orders-value")
    assert _chooses("orders-value", "orders-value")
    assert not _chooses("orders-*", "payments-value")
    assert not _chooses("orders-*", ":.dr:orders-value")
    assert _chooses(":.dr:*", ":.dr:orders-value")
    assert not _chooses("*", ":.dr:orders-value")
    assert _chooses(":*", ":.dr:orders-value")


def test_a_pattern_of_many_stars_over_a_long_subject_is_answered_without_backtracking() -> None:
    # As a regular expression of `.*`s this would not finish: every star retries every split.
    assert not _chooses("*a" * 40 + "b", "a" * 1000)
    assert _chooses("*a" * 40 + "*", "a" * 1000)


@given(st.text("ab*", max_size=7), st.text("ab", max_size=9))
def test_the_matcher_agrees_with_the_regular_expression_it_replaces(pattern: str, name: str) -> None:
    regex = ".*".join(re.escape(part) for part in f":.:{pattern}".split("*"))
    assert _chooses(pattern, name) == (re.fullmatch(regex, f":.:{name}", re.DOTALL) is not None)
