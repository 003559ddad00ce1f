"""Every incompatibility in the conformance corpora lands on a diff row that shows a change.

The corpora (the project's tests/conformance/data, read by support/conformance.py) hold Avro reader/writer pairs and
level histories and Confluent's JSON Schema and Protobuf diff examples. Each pair (every
version of a history against the new schema) is diffed both ways; each reason either
direction reports must sit on a row, and that row must show what changed (added, removed,
or a changed attribute). A reason on a row with nothing to show means the format's outline
does not model what the checker compared; the allow-list below names such cases, with why.
"""
from __future__ import annotations

from collections.abc import Iterator
from typing import NamedTuple

import pytest
from support.conformance import CORPORA

from app.core.browse.structural_diff import CHANGED, StructuralDiff, structural_diff
from app.formats import FORMATS

# (corpus case id, error type) of reasons allowed on a row without a shown change. Empty:
# every reason of the corpora lands on a row that shows what changed.
ALLOWED_WITHOUT_CHANGE: frozenset[tuple[str, str]] = frozenset()


class Swept(NamedTuple):
    case_id: str
    diff: StructuralDiff


def _sweep() -> Iterator[Swept]:
    for load in CORPORA.values():
        for case in load():
            fmt = FORMATS[case.new.schema_type]
            new = fmt.parse(case.new.schema, case.dependencies(case.new.side))
            for old_version in case.history:
                old = fmt.parse(old_version.schema, case.dependencies(old_version.side))
                yield Swept(case.id, structural_diff(FORMATS, old, new))


@pytest.fixture(scope="module")
def swept() -> list[Swept]:
    return list(_sweep())


def test_every_reason_of_the_corpora_is_on_a_row(swept: list[Swept]) -> None:
    total = 0
    loose = []
    for case_id, diff in swept:
        placed = [reason for row in diff.rows for reason in row.reasons]
        for reason in (*diff.backward.reasons, *diff.forward.reasons):
            total += 1
            if reason not in placed:
                loose.append(f"{case_id}: {reason.direction} {reason.type} {reason.location}")
    print(f"\nconformance sweep: {total - len(loose)} of {total} reasons on a row")
    assert total > 0
    assert not loose, "\n".join(loose)


def test_every_row_holding_a_reason_shows_what_changed(swept: list[Swept]) -> None:
    unexplained = []
    for case_id, diff in swept:
        for row in diff.rows:
            if row.change != CHANGED or row.changes:
                continue
            unexplained += [
                f"{case_id}: {r.direction} {r.type} {r.location} on {row.path!r}"
                for r in row.reasons if (case_id, r.type) not in ALLOWED_WITHOUT_CHANGE
            ]
    assert not unexplained, "\n".join(unexplained)
