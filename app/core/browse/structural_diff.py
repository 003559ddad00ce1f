"""The structural diff of two schemas: which fields were added, removed or changed, and which
of those changes break readers, in either direction.

Format-agnostic: a format describes each schema as a tree of `Node`s (`Outlines`), says how
nodes pair up (`Node.key`, `Node.match_aliases`) and where its incompatibility locations
point (`Node.locations`); this module pairs the trees level by level, compares what each
node carries, and files every incompatibility the format's `can_read` reports under the
row of the node its location points to. Verdicts are `can_read`'s, never re-derived here.

Directions are named as registration names them: "backward" asks whether `new` (reader)
reads data written with `old` (writer); "forward" whether `old` (reader) reads data
written with `new` (writer).
"""
from __future__ import annotations

from collections import deque
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from app.core.compatibility.levels import DIFFERENT_TYPES
from app.core.resolver import format_refusals
from app.formats import work_budget
from app.formats.base import STRICT_POLICY, Explains, Incompatibility, Node, Outlines, ParsedSchema, SchemaFormat, supports

ADDED = "added"
REMOVED = "removed"
CHANGED = "changed"
BACKWARD = "backward"
FORWARD = "forward"

# What a pair of matched nodes is compared on besides their `detail`, in display order.
_COMPARED = ("name", "type", "default", "doc")


@dataclass(frozen=True)
class Change:
    """One attribute of a matched node that differs: `type`, `default`, `doc`, `name` (a
    rename: Avro by alias, Protobuf by field number), or a key of `Node.detail`. `old` and
    `new` are the values on each side (None where a side has none)."""

    attribute: str
    old: Any
    new: Any


@dataclass(frozen=True)
class Reason:
    """One incompatibility of one direction. `message` is the entry Confluent's verbose
    reply would give (`SchemaFormat.describe`, new/old labels as registration uses them),
    `description` its sentence alone for people (`Explains`; the entry itself for a format
    without it); `path` is the field the location resolves to ("" for the schema as a whole)."""

    direction: str
    type: str
    location: str
    message: str
    path: str
    description: str


@dataclass(frozen=True)
class DiffRow:
    """A node added, removed or changed between the versions. `path` is the new side's
    (the old side's for a removed node); `changes` lists what differs for a changed row
    (empty for added and removed ones); `reasons` are the incompatibilities filed here."""

    change: str
    path: str
    old: Node | None
    new: Node | None
    changes: tuple[Change, ...] = ()
    reasons: tuple[Reason, ...] = ()


@dataclass(frozen=True)
class Direction:
    """One direction's verdict with all its reasons, placed on rows or not."""

    direction: str
    ok: bool
    reasons: tuple[Reason, ...]


@dataclass(frozen=True)
class StructuralDiff:
    """`comparable` is False for two schema types, or a format without outlines; then
    `rows` is empty and `explanation` says why (the verdicts still stand: different schema
    types are incompatible both ways, as registration decides)."""

    rows: tuple[DiffRow, ...]
    backward: Direction
    forward: Direction
    comparable: bool = True
    explanation: str | None = None
    old_outline: Node | None = None
    new_outline: Node | None = None

    @property
    def identical(self) -> bool:
        return self.comparable and not self.rows


def structural_diff(
    formats: Mapping[str, SchemaFormat], old: ParsedSchema, new: ParsedSchema, *, policy: str = STRICT_POLICY
) -> StructuralDiff:
    """The rows and both verdicts between `old` and `new`. `policy` is the subject's
    `compatibilityPolicy`, handed to `can_read` as registration hands it.
    `InvalidSchema` (42201, through `format_refusals`) for schemas too deeply nested to
    compare, or when the request's work budget runs out."""
    if old.schema_type != new.schema_type:
        backward = Direction(BACKWARD, False, (_different_types(BACKWARD),))
        forward = Direction(FORWARD, False, (_different_types(FORWARD),))
        explanation = f"The versions have different schema types ({old.schema_type} and {new.schema_type})"
        return StructuralDiff((), backward, forward, False, explanation)
    fmt = formats[new.schema_type]
    with format_refusals():
        back_found = fmt.can_read(new, old, policy=policy)
        fwd_found = fmt.can_read(old, new, policy=policy)
    if not supports(fmt, Outlines):
        backward = Direction(BACKWARD, not back_found, _unplaced(fmt, BACKWARD, back_found))
        forward = Direction(FORWARD, not fwd_found, _unplaced(fmt, FORWARD, fwd_found))
        return StructuralDiff((), backward, forward, False, f"{new.schema_type} schemas have no outline to compare")
    old_root, new_root = fmt.outline(old), fmt.outline(new)
    # Backward: `new` reads, so locations are in `new` first; a writer-only element (a field
    # the reader dropped) is looked up in `old`. Forward the other way round.
    new_first, old_first = LocationIndex((new_root, old_root)), LocationIndex((old_root, new_root))
    back = [_reason(fmt, BACKWARD, i, new_first) for i in back_found]
    fwd = [_reason(fmt, FORWARD, i, old_first) for i in fwd_found]
    with format_refusals():  # the request's work budget runs out here as in the check
        placed = _placed_rows(old_root, new_root, [*back, *fwd])
    back_reasons, fwd_reasons = tuple(r for r, _ in back), tuple(r for r, _ in fwd)
    return StructuralDiff(
        tuple(placed), Direction(BACKWARD, not back, back_reasons), Direction(FORWARD, not fwd, fwd_reasons),
        old_outline=old_root, new_outline=new_root,
    )


# ------------------------------------------------------------------ pairing
def pair_children(old: Sequence[Node], new: Sequence[Node]) -> list[tuple[Node | None, Node | None]]:
    """Siblings paired by key, then by aliases (a new node's aliases naming an old key: a
    reader's alias; then an old node's aliases naming a new key). Pairs come in the new
    side's order, removed nodes after them in the old side's order."""
    old_by_key = {n.key: n for n in old}
    taken: set[str] = set()
    matched: dict[int, Node] = {}
    for i, node in enumerate(new):
        if node.key in old_by_key:
            matched[i] = old_by_key[node.key]
            taken.add(node.key)
    for i, node in enumerate(new):
        if i in matched:
            continue
        alias = next((a for a in node.match_aliases if a in old_by_key and a not in taken), None)
        if alias is not None:
            matched[i] = old_by_key[alias]
            taken.add(alias)
    new_keys = {n.key for i, n in enumerate(new) if i in matched}
    unmatched_new = {n.key: i for i, n in enumerate(new) if i not in matched}
    for node in old:
        if node.key in taken:
            continue
        target = next((unmatched_new[a] for a in node.match_aliases if a in unmatched_new), None)
        if target is not None and target not in matched:
            matched[target] = node
            taken.add(node.key)
            new_keys.add(new[target].key)
    pairs: list[tuple[Node | None, Node | None]] = [(matched.get(i), node) for i, node in enumerate(new)]
    pairs += [(node, None) for node in old if node.key not in taken]
    return pairs


def _rows(old_root: Node, new_root: Node, marked: frozenset[int] = frozenset()) -> Iterator[DiffRow]:
    """Rows for the whole tree, parents before their children, without recursion. A matched
    pair with nothing changed still gets a row when either node is in `marked` (by `id`)."""
    pending: deque[tuple[Node | None, Node | None]] = deque([(old_root, new_root)])
    while pending:
        old, new = pending.popleft()
        if old is None and new is not None:
            yield DiffRow(ADDED, new.path, None, new)
            continue
        if new is None and old is not None:
            yield DiffRow(REMOVED, old.path, old, None)
            continue
        assert old is not None and new is not None
        work_budget.check()
        changes = _changes(old, new)
        if changes or id(old) in marked or id(new) in marked:
            yield DiffRow(CHANGED, new.path, old, new, changes)
        pending.extendleft(reversed(pair_children(old.children, new.children)))


def _changes(old: Node, new: Node) -> tuple[Change, ...]:
    found = [Change(a, getattr(old, a), getattr(new, a)) for a in _COMPARED if getattr(old, a) != getattr(new, a)]
    for key in [*old.detail, *(k for k in new.detail if k not in old.detail)]:
        before, after = old.detail.get(key), new.detail.get(key)
        if before != after:
            found.append(Change(key, before, after))
    return tuple(found)


# ------------------------------------------------------------------ reasons
class LocationIndex:
    """Which node an incompatibility's location resolves to: the node whose location is the
    longest prefix of it (on a segment boundary), across the roots, the first root winning a
    tie (the reader's: a location points into the reader, unless it names something only the
    writer has). Built once per diff, so that resolving costs the length of the location,
    not the size of the trees."""

    def __init__(self, roots: Sequence[Node]) -> None:
        self.root = roots[0]
        self._claims: dict[str, Node] = {}
        for root in roots:
            for node in root.walk():
                for prefix in node.locations:
                    if prefix:
                        self._claims.setdefault(prefix, node)

    def resolve(self, location: str) -> Node | None:
        """The claiming node, None when none claims `location`. A prefix ends before a "/"
        of the location, or with it (a claimed location may end with "/"), or is all of it."""
        claims = self._claims
        if location in claims:
            return claims[location]
        end = location.rfind("/")
        while end >= 0:
            for candidate in (location[: end + 1], location[:end]):
                if candidate in claims:
                    return claims[candidate]
            end = location.rfind("/", 0, end)
        return None


def _reason(fmt: SchemaFormat, direction: str, found: Incompatibility, index: LocationIndex) -> tuple[Reason, Node]:
    """The reason, and the node its location resolves to (reader first); a location no node
    claims (the schema as a whole, a type of an imported file) resolves to the reader's root."""
    node = index.resolve(found.location) or index.root
    return _described(fmt, direction, found, node.path), node


def _unplaced(fmt: SchemaFormat, direction: str, found: Sequence[Incompatibility]) -> tuple[Reason, ...]:
    return tuple(_described(fmt, direction, i, "") for i in found)


def _described(fmt: SchemaFormat, direction: str, found: Incompatibility, path: str) -> Reason:
    reader, writer = ("new", "old") if direction == BACKWARD else ("old", "new")
    message = fmt.describe(found, reader, writer)
    sentence = fmt.explain(found, reader, writer) if supports(fmt, Explains) else message
    return Reason(direction, found.type, found.location, message, path, sentence)


def _different_types(direction: str) -> Reason:
    return Reason(direction, "DIFFERENT_SCHEMA_TYPE", "", DIFFERENT_TYPES, "", DIFFERENT_TYPES)


def _placed_rows(old_root: Node, new_root: Node, reasons: Sequence[tuple[Reason, Node]]) -> list[DiffRow]:
    """The rows with every reason on one. A reason whose node has no row of its own (nothing
    the outline shows of it changed: a change the outline does not model, such as which
    members of a combination pair up, or a type in an imported file) gets a row for its
    node, with no changes listed, unless a changed ancestor or a single changed row below
    it can take it. A row added that way can take a reason from the single row below the
    node it belongs to, so this repeats while it marks more nodes (a matched node marked
    gets its row; a node below an added or removed one is placed on that row by path)."""
    marked: frozenset[int] = frozenset()
    while True:  # each round marks at least one more reason's node, so it ends
        rows = list(_rows(old_root, new_root, marked))
        filed, unplaced = _place(rows, reasons)
        more = marked | {id(node) for _, node in unplaced}
        if more == marked:  # nothing left to mark: the rest stay with their direction only
            return [
                row if i not in filed else DiffRow(row.change, row.path, row.old, row.new, row.changes, tuple(filed[i]))
                for i, row in enumerate(rows)
            ]
        marked = more


def _place(
    rows: list[DiffRow], reasons: Sequence[tuple[Reason, Node]]
) -> tuple[dict[int, list[Reason]], list[tuple[Reason, Node]]]:
    """Each reason on the row of its node (on either side); a reason whose node did not
    change itself (a union's branch, the schema as a whole) goes to the row of its nearest
    changed ancestor, or to the one changed row below it. Returns the reasons by row index,
    and those no row took."""
    by_node = {id(node): i for i, row in enumerate(rows) for node in (row.old, row.new) if node is not None}
    by_path = _RowPaths([row.path for row in rows])
    filed: dict[int, list[Reason]] = {}
    unplaced: list[tuple[Reason, Node]] = []
    for reason, node in reasons:
        target = by_node.get(id(node))
        if target is None:
            target = by_path.row_for(reason.path)
        if target is None:
            unplaced.append((reason, node))
        else:
            filed.setdefault(target, []).append(reason)
    return filed, unplaced


class _RowPaths:
    """The rows by path, for a reason whose node has no row: the row of the nearest ancestor
    path, else the single row below the path. Indexed once per placement, so a reason costs
    the length of its path rather than a scan of every row. A path is below another when it
    starts with it and a "." (names may hold dots; this is the rule either way)."""

    def __init__(self, paths: Sequence[str]) -> None:
        self._count = len(paths)
        self._first: dict[str, int] = {}  # path -> its first row
        self._below: dict[str, list[int]] = {}  # path -> [first row below it, rows below it]
        for i, path in enumerate(paths):
            self._first.setdefault(path, i)
            dot = path.find(".")
            while dot >= 0:
                below = self._below.setdefault(path[:dot], [i, 0])
                below[1] += 1
                dot = path.find(".", dot + 1)

    def row_for(self, path: str) -> int | None:
        dot = path.rfind(".")
        while dot > 0:
            if (row := self._first.get(path[:dot])) is not None:
                return row
            dot = path.rfind(".", 0, dot)
        if path == "":
            return 0 if self._count == 1 else None
        first, count = self._below.get(path, (None, 0))
        return first if count == 1 else None
