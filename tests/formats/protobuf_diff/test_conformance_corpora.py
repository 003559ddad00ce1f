"""Confluent's own Protobuf diff examples, run straight against the checker (no server).

The cases are the project's test data, read by support/conformance.py (resource files,
references and the expected incompatible types derived in one place, as for the live runs):
each case's original schema is the writer, its update the reader of a BACKWARD check.
Dependencies a side references are compiled beside it; well-known imports resolve without
references, as in the registry.

Three measures per case: the verdict (compatible or not), the set of incompatible change
types (what the conformance runner compares in verbose replies), and the full list of
differences Confluent's test expects, compatible ones included, type and location.
"""
from __future__ import annotations

from collections import Counter
from typing import Any

import pytest
from support.conformance import ERROR_TYPE, STRICT, Case, cases

from app.formats.protobuf.diff import compare, describe, incompatible

from .protobuf_diff_support import compile_native

CORPORA = ("protobuf", "protobuf-meta")


def _cases() -> list[Case]:
    return [case for corpus in CORPORA for case in cases(corpus)]


def _check(case: Case) -> dict[str, Any]:
    natives = {}
    for side, schema in (("original", case.history[0].schema), ("update", case.new.schema)):
        natives[side] = compile_native(schema, case.dependencies(side))
    differences = compare(natives["original"], natives["update"])
    failures = incompatible(differences)
    reply_types = tuple(sorted(set(ERROR_TYPE.findall(" ".join(describe(f, "new", "old") for f in failures)))))
    return {
        "compatible": not failures,
        "types": reply_types,
        "changes": sorted(f"{d.type} {d.location}" for d in differences),
    }


@pytest.fixture(scope="module")
def results() -> list[tuple[Case, dict[str, Any]]]:
    return [(case, _check(case)) for case in _cases()]


def test_corpora_verdicts_match_confluent(results: list[tuple[Case, dict[str, Any]]]) -> None:
    """Every one of the 55 cases gets Confluent's verdict; failing ones are named."""
    assert len(results) == 55
    wrong = [case.id for case, got in results if got["compatible"] != case.expected[STRICT]]
    passed = len(results) - len(wrong)
    print(f"\nprotobuf corpora: verdicts {passed}/{len(results)}; wrong: {wrong}")
    assert not wrong, wrong


def test_corpora_incompatible_types_match_confluent(results: list[tuple[Case, dict[str, Any]]]) -> None:
    """Where both sides say incompatible, the reply's errorType set is the one Confluent's
    example lists (the runner's `types_match`)."""
    both = [(case, got) for case, got in results if not got["compatible"] and not case.expected[STRICT]]
    wrong = [(case.id, got["types"], case.expected_types[STRICT])
             for case, got in both if got["types"] != case.expected_types[STRICT]]
    print(f"\nprotobuf corpora: change types match {len(both) - len(wrong)}/{len(both)}; wrong: {wrong}")
    assert not wrong


def test_corpora_differences_match_confluent_exactly(results: list[tuple[Case, dict[str, Any]]]) -> None:
    """Every difference of every example, compatible ones included, at Confluent's location."""
    wrong = [(case.id, got["changes"], sorted(case.changes))
             for case, got in results if Counter(got["changes"]) != Counter(case.changes)]
    print(f"\nprotobuf corpora: full difference lists {len(results) - len(wrong)}/{len(results)}")
    assert not wrong
