"""The state of one comparison: where in the schema it is, what it found, what it remembers.

Combined schemas are compared pairwise (every original subschema against every update
subschema), and recursive schemas meet the same pair again and again; so the result of each
(original, update) node pair is memoized with pointers relative to the pair, and rebased onto
the pointer where it is reused. A pair met again while it is still being compared is a cycle:
it is assumed compatible, and `diff.compare` repeats the whole walk, feeding back the pairs found
incompatible, until that assumption no longer changes the answer (Confluent's fixpoint).
"""
from __future__ import annotations

from collections.abc import Generator
from dataclasses import dataclass
from typing import TypeVar

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
class Compare:
    """A request, yielded by a comparison step: compare `original` with `update` and add the
    differences to `ctx`. The step resumes when that is done."""

    ctx: "Context"
    original: Node | None
    update: Node | None


# A comparison step: a generator of requests, returning T (most return nothing).
Steps = Generator[Compare, None, T]


class Shared:
    """What every context of one walk shares."""

    def __init__(
        self, compatible: frozenset[str], seed: dict[Pair, list[Difference]], same_draft: bool
    ) -> None:
        self.compatible = compatible
        # Equal JSON is an equal schema only when both sides read it under one draft.
        self.same_draft = same_draft
        self.seed = seed
        self.memo: dict[Pair, list[Difference]] = {}
        self.in_progress: set[Pair] = set()
        # Whether a cycle was assumed compatible during the walk (the fixpoint needs another pass).
        self.optimistic = False


class Context:
    """A pointer (as a list of segments) and the differences found under it."""

    def __init__(self, shared: Shared, path: list[str] | None = None) -> None:
        self.shared = shared
        self.path: list[str] = list(path) if path else []
        self.differences: list[Difference] = []

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
        self.differences.append(Difference(change, pointer))

    def extend(self, differences: list[Difference]) -> None:
        self.differences.extend(differences)

    def is_compatible(self) -> bool:
        compatible = self.shared.compatible
        return all(d.type in compatible for d in self.differences)

    def add_rebased(self, found: list[Difference]) -> None:
        """Adds differences recorded relative to a pair (`#/` is the pair itself) at the
        current pointer."""
        if not self.path:
            self.differences.extend(found)
            return
        prefix = self.pointer()
        for difference in found:
            relative = difference.pointer
            pointer = prefix if len(relative) <= 2 else prefix + "/" + relative[2:]
            self.differences.append(Difference(difference.type, pointer))

    def incompatible_pairs(self) -> dict[Pair, list[Difference]]:
        compatible = self.shared.compatible
        return {
            key: found for key, found in self.shared.memo.items()
            if any(d.type not in compatible for d in found)
        }


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
