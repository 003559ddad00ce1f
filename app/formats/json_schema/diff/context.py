"""The state of one comparison: where in the schema it is, what it found, what it remembers.

Combined schemas are compared pairwise (every original subschema against every update
subschema), schemas share definitions through `$ref`, and recursive schemas meet the same
pair again and again. So each (original, update) node pair is compared once per walk, and its
findings are kept relative to the pair. A context does not copy a pair's findings where the
pair is met: it records that the pair was met there (`PairMet`), with the pair's verdict.
`report` turns the root's findings into the list of differences, following each pair the
first time it is met and never again, so the list, like the walk, is linear in the size of the
schemas: a definition reached along 2^n paths is reported once, at the first of them.

A pair met again while it is still being compared is a cycle: it is assumed compatible, and
`diff.compare` repeats the walk, feeding back the pairs found incompatible, until that
assumption no longer changes the answer (Confluent's fixpoint). Pairs whose comparison never
leaned on such an assumption are settled for good and carried into the next pass as they are.
"""
from __future__ import annotations

from collections.abc import Generator, Iterator
from dataclasses import dataclass
from typing import TypeVar, Union

from .changes import Difference
from .nodes import Node

T = TypeVar("T")

# Pairs in progress inside one another beyond this are refused. Not for Python's stack (the
# walk keeps its own) but to bound the work on absurd inputs: a recursive union of twelve
# types, Confluent's stress case, needs under 300.
MAX_COMPARE_DEPTH = 10_000
WALK_TOO_DEEP = f"Schema is nested more than {MAX_COMPARE_DEPTH} levels deep, following its references"

Pair = tuple[int, int]


@dataclass(frozen=True, slots=True)
class PairMet:
    """A finding: the pair `key` was met at `path` (relative to the finding's context), so
    its differences belong there unless they were reported where the pair was met before."""

    key: Pair
    path: str


# A finding is a difference (its pointer relative to the pair being compared) or a pair met.
Finding = Union[Difference, PairMet]


@dataclass(frozen=True, slots=True)
class PairResult:
    """What comparing one pair found. `settled` is False when the comparison leaned on a
    cycle's assumption (directly or through a pair that did), so another pass may change it."""

    findings: list[Finding]
    compatible: bool
    settled: bool


@dataclass(frozen=True, slots=True)
class Compare:
    """A request, yielded by a comparison step: compare `original` with `update` and add the
    findings to `ctx`. The step resumes when that is done."""

    ctx: "Context"
    original: Node | None
    update: Node | None


# A comparison step: a generator of requests, returning T (most return nothing).
Steps = Generator[Compare, None, T]


class Shared:
    """What every context of one walk shares."""

    def __init__(
        self,
        compatible: frozenset[str],
        seed: frozenset[Pair],
        same_draft: bool,
        settled: dict[Pair, PairResult],
    ) -> None:
        self.compatible = compatible
        # Equal JSON is an equal schema only when both sides read it under one draft.
        self.same_draft = same_draft
        # The pairs an earlier pass found incompatible: a cycle back to one is not assumed
        # compatible.
        self.seed = seed
        self.memo: dict[Pair, PairResult] = dict(settled)
        self.in_progress: set[Pair] = set()
        # Whether a cycle was assumed compatible during the walk (the fixpoint needs another pass).
        self.optimistic = False
        # Bumped whenever the walk leans on an assumption (a cycle cut short, or a pair that
        # is not settled): a pair whose comparison saw it move is not settled either.
        self.assumptions = 0
        # Pairs compared in this walk (the memo's misses), for bounding the work.
        self.pairs_compared = 0

    def settled(self) -> dict[Pair, PairResult]:
        return {key: result for key, result in self.memo.items() if result.settled}

    def incompatible_pairs(self) -> frozenset[Pair]:
        return frozenset(key for key, result in self.memo.items() if not result.compatible)


class Context:
    """A pointer (as a list of segments) and the findings under it."""

    def __init__(self, shared: Shared, path: list[str] | None = None) -> None:
        self.shared = shared
        self.path: list[str] = list(path) if path else []
        self.findings: list[Finding] = []
        self.compatible = True

    def subcontext(self) -> Context:
        """A context at the same pointer whose findings the caller may keep or drop."""
        return Context(self.shared, self.path)

    def at(self, *segments: str) -> _Below:
        """`with ctx.at("properties", name):` moves the pointer down for the block."""
        return _Below(self.path, segments)

    def pointer(self) -> str:
        return "#/" + "/".join(self.path)

    def add(self, change: str, *segments: str) -> None:
        """Records `change` at the current pointer, or below it at `segments`."""
        pointer = "#/" + "/".join(self.path + list(segments))
        self.findings.append(Difference(change, pointer))
        if change not in self.shared.compatible:
            self.compatible = False

    def extend(self, other: Context) -> None:
        """Keeps what a subcontext found."""
        self.findings.extend(other.findings)
        self.compatible = self.compatible and other.compatible

    def is_compatible(self) -> bool:
        return self.compatible

    def add_pair(self, key: Pair, result: PairResult) -> None:
        """Records that pair `key`, compared already, was met at the current pointer (a pair
        that found nothing needs no record: it is compatible and reports nothing)."""
        if result.findings:
            self.findings.append(PairMet(key, "/".join(self.path)))
            if not result.compatible:
                self.compatible = False

    def add_cycle(self, key: Pair) -> None:
        """Records that pair `key`, still being compared and found incompatible by an earlier
        pass, was met again inside itself at the current pointer."""
        self.findings.append(PairMet(key, "/".join(self.path)))
        self.compatible = False


def report(root: Context) -> list[Difference]:
    """The differences of a finished walk, with absolute pointers: each pair's own
    differences where it was first met (in the order they were found), none where it was met
    again. Iterative, since pairs nest as deep as the walk went."""
    memo = root.shared.memo
    differences: list[Difference] = []
    expanded: set[Pair] = set()
    stack: list[tuple[Iterator[Finding], str]] = [(iter(root.findings), "")]
    while stack:
        findings, base = stack[-1]
        finding = next(findings, None)
        if finding is None:
            stack.pop()
        elif isinstance(finding, Difference):
            differences.append(_rebased(finding, base))
        elif finding.key not in expanded:
            expanded.add(finding.key)
            stack.append((iter(memo[finding.key].findings), _joined(base, finding.path)))
    return differences


def _joined(base: str, path: str) -> str:
    return f"{base}/{path}" if base and path else base or path


def _rebased(difference: Difference, base: str) -> Difference:
    """`difference`, whose pointer is relative to a pair (`#/` is the pair itself), placed
    below `base` (segments without the `#/`)."""
    if not base:
        return difference
    relative = difference.pointer[2:]
    return Difference(difference.type, "#/" + _joined(base, relative))


class _Below:
    """The context manager of `Context.at` (a class, not a generator: it runs once per
    property of every object compared)."""

    __slots__ = ("path", "segments")

    def __init__(self, path: list[str], segments: tuple[str, ...]) -> None:
        self.path = path
        self.segments = segments

    def __enter__(self) -> None:
        self.path.extend(self.segments)

    def __exit__(self, *exc_info: object) -> None:
        del self.path[len(self.path) - len(self.segments):]
