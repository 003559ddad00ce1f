"""Which lines of two texts match, for the diff page's text view, in time that grows with the
lines rather than their square.

difflib's SequenceMatcher takes seconds on the pretty-printed texts of two 200-field records
(800 lines, most of them `{`, `},` or a type that changed): its matching is quadratic or
worse in repeated lines. This is a patience diff, as git's: lines that occur once on each
side anchor the match (the longest run of them in the same order, found by patience sorting),
and the ranges between anchors are matched the same way; a range with no such line is
matched by difflib only when it is small. Every range costs its length in steps, and once
`max_steps` are spent the remaining ranges stay unmatched (shown as changed lines): the work
is bounded whatever the texts.
"""
from __future__ import annotations

import difflib
from bisect import bisect_left
from collections import Counter
from typing import NamedTuple

SMALL_RANGE = 40  # a range without anchors is left to difflib when both sides are this short


class Match(NamedTuple):
    """Line `old` of the old text equals line `new` of the new one (0-based)."""

    old: int
    new: int


class _Range(NamedTuple):
    a_lo: int
    a_hi: int
    b_lo: int
    b_hi: int


class LineMatcher:
    """One comparison of `a` and `b` (lists of lines); `steps` counts the work done."""

    def __init__(self, a: list[str], b: list[str], max_steps: int) -> None:
        self.a, self.b = a, b
        self.max_steps = max_steps
        self.steps = 0

    def matches(self) -> list[Match]:
        """The matched lines, in increasing order on both sides."""
        found: list[Match] = []
        pending = [_Range(0, len(self.a), 0, len(self.b))]
        while pending:
            found += self._match(pending.pop(), pending)
        return sorted(found)

    def _match(self, r: _Range, pending: list[_Range]) -> list[Match]:
        """The matches of `r` found at once (common ends, anchors); the ranges between
        anchors go to `pending`."""
        a, b = self.a, self.b
        a_lo, a_hi, b_lo, b_hi = r
        found: list[Match] = []
        while a_lo < a_hi and b_lo < b_hi and a[a_lo] == b[b_lo]:
            found.append(Match(a_lo, b_lo))
            a_lo, b_lo = a_lo + 1, b_lo + 1
        while a_lo < a_hi and b_lo < b_hi and a[a_hi - 1] == b[b_hi - 1]:
            a_hi, b_hi = a_hi - 1, b_hi - 1
            found.append(Match(a_hi, b_hi))
        size = (a_hi - a_lo) + (b_hi - b_lo)
        if a_lo == a_hi or b_lo == b_hi or self.steps + size > self.max_steps:
            return found
        self.steps += size
        anchors = _anchors(a, b, a_lo, a_hi, b_lo, b_hi)
        if not anchors:
            # One line against a few (a changed line, most often) is left unmatched: were it
            # among them, it would have been an anchor or a common end, unless repeated there.
            if 1 < a_hi - a_lo <= SMALL_RANGE and 1 < b_hi - b_lo <= SMALL_RANGE:
                self.steps += (a_hi - a_lo) * (b_hi - b_lo)
                matcher = difflib.SequenceMatcher(None, a[a_lo:a_hi], b[b_lo:b_hi], autojunk=False)
                found += [
                    Match(a_lo + block.a + k, b_lo + block.b + k)
                    for block in matcher.get_matching_blocks() for k in range(block.size)
                ]
            return found
        found += anchors
        starts = [Match(a_lo - 1, b_lo - 1), *anchors]
        ends = [*anchors, Match(a_hi, b_hi)]
        pending += [_Range(s.old + 1, e.old, s.new + 1, e.new) for s, e in zip(starts, ends)]
        return found


def _anchors(a: list[str], b: list[str], a_lo: int, a_hi: int, b_lo: int, b_hi: int) -> list[Match]:
    """The longest run, in order on both sides, of lines that occur exactly once on each side
    of the range (patience sorting: a longest increasing subsequence in n log n)."""
    in_a = Counter(a[a_lo:a_hi])
    in_b = Counter(b[b_lo:b_hi])
    b_at = {b[j]: j for j in range(b_lo, b_hi) if in_b[b[j]] == 1}
    unique = [Match(i, b_at[a[i]]) for i in range(a_lo, a_hi) if in_a[a[i]] == 1 and a[i] in b_at]
    tails: list[int] = []  # tails[k]: the smallest `new` ending a run of length k + 1
    tail_at: list[int] = []  # the index in `unique` of that run's end
    before: list[int] = []  # for each entry of `unique`, the previous entry of its run (-1: none)
    for index, match in enumerate(unique):
        k = bisect_left(tails, match.new)
        before.append(tail_at[k - 1] if k else -1)
        if k == len(tails):
            tails.append(match.new)
            tail_at.append(index)
        else:
            tails[k], tail_at[k] = match.new, index
    run: list[Match] = []
    index = tail_at[-1] if tail_at else -1
    while index >= 0:
        run.append(unique[index])
        index = before[index]
    return run[::-1]
