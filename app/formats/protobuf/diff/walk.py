"""The state of one comparison: where it is, what it found, which messages it is inside.

Locations are Confluent's: `#/` and the path of names and numbers entered so far. A
comparison that follows a field into an imported type continues in a `branch`, which starts
its path at that type's local name (`#/outer/GoogleHome/1`) and keeps its findings apart, so
the caller can judge them before adding them to its own.

Two bounds keep any pair of schemas from exhausting the server, both refused with a
`SchemaParseError` rather than a crash:

* `MAX_COMPARE_DEPTH` messages compared inside one another (nesting, plus fields followed
  into imported types). A level costs at most six Python frames, so the deepest walk stays
  well inside the interpreter's 1,000 with room for the web stack beneath it. protoc itself
  stops nesting at 32 levels per file; only long chains of imported types get near.
* `MAX_COMPARED_MESSAGES` message pairs in all. Confluent follows every field into a changed
  import anew, without remembering what it found (and reports each finding again), so
  imported types that use each other repeatedly make the work grow exponentially with depth.
"""
from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from google.protobuf.descriptor_pb2 import FileDescriptorProto

from app.formats import work_budget
from app.formats.base import SchemaParseError
from app.formats.protobuf.diff.changes import Difference
from app.formats.protobuf.diff.symbols import MessageView, SchemaView

MAX_COMPARE_DEPTH = 100
MAX_COMPARED_MESSAGES = 50_000


class _Progress:
    """What every branch of one comparison shares."""

    def __init__(self) -> None:
        # Original messages being compared right now: met again through a field, a message
        # compares as unchanged (that is what ends recursive types), as in Confluent.
        self.inside: set[MessageView] = set()
        self.depth = 0
        self.compared = 0
        self.same_files: dict[tuple[int, int], bool] = {}


class Walk:
    """`original` is the writer's side, `update` the reader's."""

    def __init__(self, original: SchemaView, update: SchemaView, progress: _Progress | None = None) -> None:
        self.original = original
        self.update = update
        self.differences: list[Difference] = []
        self._path: list[str] = []
        self._progress = progress or _Progress()

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
        work_budget.check()
        progress = self._progress
        progress.depth += 1
        progress.compared += 1
        if progress.depth > MAX_COMPARE_DEPTH:
            raise SchemaParseError(f"Protobuf schemas nest more than {MAX_COMPARE_DEPTH} messages deep to compare")
        if progress.compared > MAX_COMPARED_MESSAGES:
            raise SchemaParseError(
                f"Protobuf schemas too intricate to compare (more than {MAX_COMPARED_MESSAGES} message comparisons)"
            )
        fresh = original not in progress.inside
        if fresh:
            progress.inside.add(original)
        try:
            yield fresh
        finally:
            if fresh:
                progress.inside.discard(original)
            progress.depth -= 1

    def same_file(self, original: FileDescriptorProto, update: FileDescriptorProto) -> bool:
        """Whether two imported files are equal; asked once per pair (a deep comparison), as
        every field typed from an import asks it."""
        key = (id(original), id(update))
        known = self._progress.same_files.get(key)
        if known is None:
            known = self._progress.same_files[key] = original is update or original == update
        return known

    def branch(self, local_name: str) -> Walk:
        """A comparison of a field's named types, located at their local name, sharing this
        walk's sides and progress."""
        other = Walk(self.original, self.update, self._progress)
        other._path = local_name.split(".")
        return other
