"""The state of one comparison: where it is, what it found, which messages it is inside.

Locations are Confluent's: `#/` and the path of names and numbers entered so far. A
comparison that follows a field into an imported type continues in a `branch`, which starts
its path at that type's local name (`#/outer/GoogleHome/1`) and keeps its findings apart, so
the caller can judge them before adding them to its own.
"""
from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from app.formats.base import SchemaParseError
from app.formats.protobuf.diff.changes import Difference
from app.formats.protobuf.diff.symbols import MessageView, SchemaView

# Messages compared inside one another (nesting plus fields followed into imported types).
# A level costs a handful of Python frames; the bound keeps a comparison well inside the
# interpreter's 1,000, whatever the schemas, with room for the web stack beneath it.
MAX_COMPARE_DEPTH = 100


class Walk:
    """`original` is the writer's side, `update` the reader's."""

    def __init__(self, original: SchemaView, update: SchemaView) -> None:
        self.original = original
        self.update = update
        self.differences: list[Difference] = []
        self._path: list[str] = []
        # Original messages being compared right now: met again through a field, a message
        # compares as unchanged (that is what ends recursive types), as in Confluent.
        self._inside: set[MessageView] = set()
        self._depth = 0

    def add(self, change_type: str, *more: str) -> None:
        """Record a change at the current path, extended by `more`."""
        self.differences.append(Difference(change_type, "#/" + "/".join([*self._path, *more])))

    @contextmanager
    def at(self, *parts: str) -> Iterator[None]:
        """Enter a path step (a message, oneof, field or enum-value number)."""
        self._path.extend(parts)
        try:
            yield
        finally:
            del self._path[len(self._path) - len(parts):]

    @contextmanager
    def inside(self, original: MessageView) -> Iterator[bool]:
        """Enter a message pair; yields False when the original message is already being
        compared further up, in which case its fields must not be compared again."""
        self._depth += 1
        if self._depth > MAX_COMPARE_DEPTH:
            raise SchemaParseError(
                f"Protobuf schemas nest more than {MAX_COMPARE_DEPTH} messages deep to compare"
            )
        fresh = original not in self._inside
        if fresh:
            self._inside.add(original)
        try:
            yield fresh
        finally:
            if fresh:
                self._inside.discard(original)
            self._depth -= 1

    def branch(self, local_name: str) -> Walk:
        """A comparison of a field's named types, located at their local name, sharing this
        walk's sides and the messages it is inside."""
        other = Walk(self.original, self.update)
        other._path = local_name.split(".")
        other._inside = self._inside
        other._depth = self._depth
        return other
