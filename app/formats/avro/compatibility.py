"""Can a reader schema decode what a writer schema wrote? The rules of Java Avro's
`org.apache.avro.SchemaCompatibility`, which Confluent runs for every Avro check.

What Confluent's verbose replies print is kept as Java has it: every incompatibility, in
Java's order, with Java's type constant, JSON-pointer location into the reader schema and
message text. Some of Java's behaviour is surprising and is kept on purpose:

* a writer union read by a non-union reader puts the branch index into the location, but the
  branch checks of a reader union (or of a union read by a union) start from a fresh location
  and only their verdict is used;
* results are memoized per (reader object, writer object), so a named pair met twice has the
  result of its first comparison, locations included; a pair met again while still being
  checked counts as compatible, which is what makes recursive records terminate;
* named types compare unqualified names, then the reader's aliases (qualified with the
  reader's namespace) against the writer's full name;
* a reader field missing from the writer, without default, whose type is an enum with a
  default is checked against the writer *record* (Java passes the record there), which is
  always a TYPE_MISMATCH;
* a reader field whose name and aliases match several writer fields makes Java throw;
  Confluent turns the exception into a single "Unexpected exception" entry, so the result
  is that one entry, whatever else was found before.

One deliberate difference: Java copies a memoized pair's whole list into every parent that
meets the pair again, so a type shared by two fields of each level of a chain is reported
2^depth times, and the copying takes as long. Here a pair's result is kept once and its
parents point at it (`_Result`), so a check costs time and memory linear in the pairs of
types compared, and the final list holds each incompatibility once, at its first place in
Java's list. Verdicts are Java's: a pair fails when anything below it does.

Comparing follows references and named types into each other, so one comparison can go
deeper than either schema's text; `NestingTooDeep` stops it at the walk bound (`nesting`).
"""
from __future__ import annotations

from dataclasses import dataclass

from app.formats import work_budget
from app.formats.avro.canonical import to_json
from app.formats.avro.model import Array, Enum, Field, Fixed, Map, Named, Primitive, Record, Schema, Union
from app.formats.avro.nesting import deeper
from app.formats.base import Incompatibility

NAME_MISMATCH = "NAME_MISMATCH"
FIXED_SIZE_MISMATCH = "FIXED_SIZE_MISMATCH"
MISSING_ENUM_SYMBOLS = "MISSING_ENUM_SYMBOLS"
READER_FIELD_MISSING_DEFAULT_VALUE = "READER_FIELD_MISSING_DEFAULT_VALUE"
TYPE_MISMATCH = "TYPE_MISMATCH"
MISSING_UNION_BRANCH = "MISSING_UNION_BRANCH"
UNEXPECTED_EXCEPTION = "UNEXPECTED_EXCEPTION"
"""Not a Java constant: the check threw (ambiguous field aliases); the message is Java's."""

# writer types each reader type accepts besides its own (Avro's promotions)
_PROMOTIONS = {
    "LONG": frozenset({"INT"}),
    "FLOAT": frozenset({"INT", "LONG"}),
    "DOUBLE": frozenset({"INT", "LONG", "FLOAT"}),
    "BYTES": frozenset({"STRING"}),
    "STRING": frozenset({"BYTES"}),
}
_NO_PROMOTION: frozenset[str] = frozenset()


class _AmbiguousField(Exception):
    def __init__(self, message: str, location: str) -> None:
        super().__init__(message)
        self.message = message
        self.location = location


@dataclass(frozen=True)
class CheckOutcome:
    """A check's incompatibilities and what it cost: `comparisons` counts the steps of the
    walk (pairs of types looked at, memoized ones included), which is what stays linear in
    the two schemas; the benches and tests read it instead of a clock."""

    incompatibilities: list[Incompatibility]
    comparisons: int


def check(reader: Schema, writer: Schema) -> list[Incompatibility]:
    """Every reason `reader` cannot decode data written with `writer` (empty: it can)."""
    return assess(reader, writer).incompatibilities


def assess(reader: Schema, writer: Schema) -> CheckOutcome:
    """`check`, with the number of comparisons it made."""
    checker = _Checker()
    try:
        found = _flatten(checker.compare(reader, writer, []))
    except _AmbiguousField as exc:
        found = [Incompatibility(UNEXPECTED_EXCEPTION, exc.location, exc.message)]
    return CheckOutcome(found, checker.comparisons)


def _location(path: list[str]) -> str:
    return "/" + "/".join(token.replace("~", "~0").replace("/", "~1") for token in path)


class _Result:
    """One pair's result as Java would list it: its own incompatibilities and the results of
    the pairs below it, in Java's order. A failing sub-pair is held by reference, never
    copied, so a pair shared by many parents costs its parents one item each."""

    __slots__ = ("failed", "items")

    def __init__(self) -> None:
        self.items: list[Incompatibility | _Result] = []
        self.failed = False

    def add(self, item: Incompatibility | _Result) -> None:
        """Keeps an own incompatibility, or a sub-pair's result when it failed (a
        compatible one adds nothing to Java's list)."""
        if isinstance(item, Incompatibility) or item.failed:
            self.items.append(item)
            self.failed = True


_COMPATIBLE = _Result()
"""The result of a pair that adds nothing: equal primitives, and a pair met again while it
is still being compared (Java's memo answers compatible there). Never added to."""


def _flatten(result: _Result) -> list[Incompatibility]:
    """Java's list for `result` with each incompatibility once, where Java lists it first:
    a sub-result met again would only repeat what its first expansion listed, so it is
    skipped. Iterative, since results nest as deep as the walk went."""
    found: list[Incompatibility] = []
    expanded = {id(result)}
    pending = [iter(result.items)]
    while pending:
        item = next(pending[-1], None)
        if item is None:
            pending.pop()
        elif isinstance(item, Incompatibility):
            found.append(item)
        elif id(item) not in expanded:
            work_budget.check()
            expanded.add(id(item))
            pending.append(iter(item.items))
    return found


class _Checker:
    """One comparison of a reader schema with a writer schema, with Java's memo table."""

    __slots__ = ("_depth", "_memo", "comparisons")

    def __init__(self) -> None:
        # (id(reader), id(writer)) -> result; None while that pair is being compared
        self._memo: dict[tuple[int, int], _Result | None] = {}
        self._depth = 0  # compare calls in progress
        self.comparisons = 0

    def compare(self, reader: Schema, writer: Schema, path: list[str]) -> _Result:
        """Compare `reader` (decoding side) with `writer` (encoding side) at `path`.

        Java's `calculateCompatibility` in one method: every recursion comes straight back
        here, so a step of the walk costs one frame (see `nesting`). Helpers never recurse.
        An exception abandons the whole check, so `path` and the depth need no `finally`.
        """
        self.comparisons += 1
        if reader.type == writer.type and isinstance(reader, Primitive):
            return _COMPATIBLE  # the common case; memoizing it would change nothing
        key = (id(reader), id(writer))
        if key in self._memo:
            return self._memo[key] or _COMPATIBLE
        work_budget.check()
        self._memo[key] = None
        self._depth = deeper(self._depth)
        found = _Result()
        if reader.type == writer.type:
            if isinstance(reader, (Array, Map)):
                token, inner = ("items", reader.items) if isinstance(reader, Array) else ("values", reader.values)
                path.append(token)
                found.add(self.compare(inner, writer.items if isinstance(writer, Array) else writer.values, path))
                path.pop()
            elif isinstance(reader, Record):
                _add_all(found, _names(reader, writer, path))
                path.append("fields")
                for field in reader.fields:
                    path.append(str(field.pos))
                    source = _field_source(writer, field, path)
                    if isinstance(source, Incompatibility):
                        found.add(source)
                    elif source is not None:
                        path.append("type")
                        found.add(self.compare(field.type, source, path))
                        path.pop()
                    path.pop()
                path.pop()
            elif isinstance(reader, Enum):
                _add_all(found, _names(reader, writer, path) + _symbols(reader, writer, path))
            elif isinstance(reader, Fixed):
                _add_all(found, _names(reader, writer, path) + _size(reader, writer, path))
            elif isinstance(reader, Union):
                # each writer branch must fit the reader union; only the verdict of the branch
                # check counts, reported at the branch index
                for index, branch in enumerate(writer.branches):
                    if self.compare(reader, branch, []).failed:
                        message = f"reader union lacking writer type: {branch.type}"
                        found.add(Incompatibility(MISSING_UNION_BRANCH, _location([*path, str(index)]), message))
        elif isinstance(writer, Union):
            for index, branch in enumerate(writer.branches):
                path.append(str(index))
                found.add(self.compare(reader, branch, path))
                path.pop()
        elif isinstance(reader, Union):
            if not any(not self.compare(branch, writer, []).failed for branch in reader.branches):
                message = f"reader union lacking writer type: {writer.type}"
                found.add(Incompatibility(MISSING_UNION_BRANCH, _location(path), message))
        elif writer.type not in _PROMOTIONS.get(reader.type, _NO_PROMOTION):
            message = f"reader type: {reader.type} not compatible with writer type: {writer.type}"
            found.add(Incompatibility(TYPE_MISMATCH, _location(path), message))
        self._depth -= 1
        self._memo[key] = found
        return found


def _add_all(result: _Result, found: list[Incompatibility]) -> None:
    for incompatibility in found:
        result.add(incompatibility)


def _names(reader: Named, writer: Named, path: list[str]) -> list[Incompatibility]:
    if reader.name.name == writer.name.name or writer.name.full in reader.alias_fullnames:
        return []
    return [Incompatibility(NAME_MISMATCH, _location(path + ["name"]), f"expected: {writer.name.full}")]


def _field_source(writer: Record, field: Field, path: list[str]) -> Schema | Incompatibility | None:
    """What a reader field's type is compared with: the writer field's type; for a field the
    writer lacks, without default, whose type is an enum with a default, the writer record
    itself (as Java passes it); None when the field's default applies; else the
    incompatibility of a missing field."""
    source = _writer_field(writer, field, path)
    if source is not None:
        return source.type
    if field.has_default:
        return None
    if isinstance(field.type, Enum) and field.type.default is not None:
        return writer
    return Incompatibility(READER_FIELD_MISSING_DEFAULT_VALUE, _location(path), field.name)


def _writer_field(writer: Record, reader_field: Field, path: list[str]) -> Field | None:
    """The writer field a reader field reads: by name, then by the reader field's aliases."""
    if not reader_field.aliases:
        return writer.field_map.get(reader_field.name)
    matches = [f for f in (writer.field_map.get(n) for n in [reader_field.name, *reader_field.aliases]) if f]
    if len(matches) > 1:
        message = (
            f"Reader record field {reader_field.name} type:{reader_field.type.type} pos:{reader_field.pos} "
            f"matches multiple fields in writer record schema {to_json(writer, set())}"
        )
        raise _AmbiguousField(message, _location(path))
    return matches[0] if matches else None


def _symbols(reader: Enum, writer: Enum, path: list[str]) -> list[Incompatibility]:
    missing = [s for s in writer.symbols if s not in reader.symbol_set]
    if not missing or reader.default is not None:
        return []
    # Java prints a TreeSet of the missing symbols
    message = "[" + ", ".join(sorted(set(missing))) + "]"
    return [Incompatibility(MISSING_ENUM_SYMBOLS, _location(path + ["symbols"]), message)]


def _size(reader: Fixed, writer: Fixed, path: list[str]) -> list[Incompatibility]:
    if reader.size == writer.size:
        return []
    message = f"expected: {writer.size}, found: {reader.size}"
    return [Incompatibility(FIXED_SIZE_MISMATCH, _location(path + ["size"]), message)]
