"""Which previous versions a new schema is checked against is decided in one place
(`app.core.compatibility.levels`): none under NONE, the newest under plain levels, all under
`_TRANSITIVE`, within the new schema's compatibility group when one is set."""
from __future__ import annotations

import pytest

from app.core.compatibility.levels import needs_all_live_versions, versions_to_compare
from app.core.types import CompatibilityLevel as L

NEWEST_FIRST = [5, 4, 3, 2, 1]


@pytest.mark.parametrize(("level", "expected"), [
    (L.NONE, []),
    (L.BACKWARD, [5]), (L.FORWARD, [5]), (L.FULL, [5]),
    (L.BACKWARD_TRANSITIVE, NEWEST_FIRST), (L.FORWARD_TRANSITIVE, NEWEST_FIRST), (L.FULL_TRANSITIVE, NEWEST_FIRST),
])
def test_each_level_picks_its_versions(level: L, expected: list[int]) -> None:
    assert versions_to_compare(level, NEWEST_FIRST) == expected


def test_a_compatibility_group_keeps_only_its_members_newest_first() -> None:
    odd = lambda v: v % 2 == 1  # noqa: E731
    assert versions_to_compare(L.BACKWARD, NEWEST_FIRST, odd) == [5]
    assert versions_to_compare(L.BACKWARD, [4, 3, 2], odd) == [3]
    assert versions_to_compare(L.FULL_TRANSITIVE, NEWEST_FIRST, odd) == [5, 3, 1]


@pytest.mark.parametrize(("level", "group", "needed"), [
    (L.NONE, None, False), (L.NONE, "team", False),
    (L.BACKWARD, None, False), (L.BACKWARD, "team", True),
    (L.FORWARD_TRANSITIVE, None, True),
])
def test_only_transitive_levels_and_groups_need_the_whole_live_history(level: L, group: str | None,
                                                                       needed: bool) -> None:
    assert needs_all_live_versions(level, group) is needed
