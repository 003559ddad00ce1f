"""fastavro's decoded values -> the values Arrow builds the Spark column from, per (writer, reader).

Most values pass as fastavro returns them. Two need work:

- a uuid arrives as `uuid.UUID` and Spark's column is a string;
- a general union (Spark's struct of `member0`, `member1`, ...) needs to know which member a
  value is. fastavro returns the value bare, which cannot say whether a dict was record A or B,
  a str an enum or a string, an int an int or a long.

For the union, the writer schema handed to fastavro is rewritten: every member of a writer
union gets a private logical type (named types on their definition), and fastavro's public
`LOGICAL_READERS` hook returns such a value as `(writer member, value)`, unpromoted. The
writer member then names the reader member as Java's resolver (so Spark) picks it, once per
(writer, reader) pair: the first member of the value's own type, else the first it promotes to
(fastavro alone would take the first it promotes to, putting an int in a `long` before `int`,
or decoding bytes as a `string` before `bytes`). Members that
already carry a logical type (date, decimal...) cannot take a second one; their Python type
(`date`, `Decimal`...) tells them apart, and Avro forbids two members of one unnamed type.
Only pairs whose reader has a general union pay for this; other pairs decode untouched.
"""
from __future__ import annotations

import datetime
import decimal
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from fastavro import parse_schema
from fastavro.read import LOGICAL_READERS

Convert = Callable[[Any], Any]
Named = dict[str, Any]

TAG = "sqlregistry-pipeline-member"
_UNNAMED = ("boolean", "int", "long", "float", "double", "string", "bytes", "array", "map")
_NAMED = ("record", "error", "enum", "fixed")
_PROMOTIONS = {"int": ("long", "float", "double"), "long": ("float", "double"), "float": ("double",),
               "string": ("bytes",), "bytes": ("string",)}
_PYTHON_TYPES = {
    "date": datetime.date, "time-millis": datetime.time, "time-micros": datetime.time,
    "timestamp-millis": datetime.datetime, "timestamp-micros": datetime.datetime,
    "local-timestamp-millis": datetime.datetime, "local-timestamp-micros": datetime.datetime,
    "decimal": decimal.Decimal, "uuid": uuid.UUID,
}


def _tagged_value(data: Any, writer: Any, reader: Any) -> tuple[str, Any]:
    """fastavro's hook for the private logical type: the member's identity and its value as
    written. A logical reader replaces fastavro's own promotion, which is just as well: the
    member a value lands in is decided afterwards (by `PairConverter`), and promotes it then."""
    kind = writer["type"]
    return (writer["name"] if kind in _NAMED else kind), data


for _kind in (*_UNNAMED, *_NAMED):
    LOGICAL_READERS[f"{_kind}-{TAG}"] = _tagged_value


def general_union(members: list[Any], named: Named) -> bool:
    """Whether Spark makes this union a struct of members (not a nullable type, and not one of
    the two numeric pairs Spark widens: int+long to long, float+double to double)."""
    kinds = {_kind_of(member, named) for member in members if member != "null"}
    others = [member for member in members if member != "null"]
    return len(others) > 1 and kinds not in ({"int", "long"}, {"float", "double"})


def _resolve(node: Any, named: Named) -> Any:
    return named[node] if isinstance(node, str) and node in named else node


def _kind_of(node: Any, named: Named) -> str:
    node = _resolve(node, named)
    if isinstance(node, list):
        return "union"
    if isinstance(node, dict):
        return _kind_of(node["type"], named) if isinstance(node["type"], (dict, list)) else node["type"]
    return node


def _named_of(parsed: Any) -> Named:
    return parsed.get("__named_schemas", {}) if isinstance(parsed, dict) else {}


def _strip(parsed: Any) -> Any:
    """A parsed schema as plain JSON again (fastavro's bookkeeping keys removed)."""
    if isinstance(parsed, dict):
        return {key: _strip(value) for key, value in parsed.items() if not key.startswith("__fastavro")
                and key != "__named_schemas"}
    if isinstance(parsed, list):
        return [_strip(item) for item in parsed]
    return parsed


def has_general_union(parsed: Any) -> bool:
    """Whether any union reachable in a parsed schema maps to a struct of members."""
    named = _named_of(parsed)
    seen: set[str] = set()

    def visit(node: Any) -> bool:
        if isinstance(node, str):
            if node in named and node not in seen:
                seen.add(node)
                return visit(named[node])
            return False
        if isinstance(node, list):
            return general_union(node, named) or any(visit(member) for member in node)
        kind = node.get("type")
        if isinstance(kind, (dict, list)) or kind in named:
            return visit(kind)
        if kind in ("record", "error"):
            if node.get("name"):
                seen.add(node["name"])
            return any(visit(field["type"]) for field in node["fields"])
        if kind == "array":
            return visit(node["items"])
        if kind == "map":
            return visit(node["values"])
        return False

    return visit(parsed)


def tag_union_members(writer: Any) -> Any:
    """A copy of the parsed writer schema in which every union member reports which it is."""
    plain = _strip(writer)
    definitions: dict[str, dict[str, Any]] = {}
    tagged_names: set[str] = set()

    def collect(node: Any) -> None:
        if isinstance(node, list):
            for member in node:
                collect(member)
        elif isinstance(node, dict):
            kind = node.get("type")
            if kind in _NAMED:
                definitions[node["name"]] = node
            if isinstance(kind, (dict, list)):
                collect(kind)
            for field in node.get("fields", ()):
                collect(field["type"])
            for key in ("items", "values"):
                if key in node:
                    collect(node[key])

    def rewrite(node: Any) -> Any:
        if isinstance(node, list):
            return [member_tag(member) for member in node]
        if isinstance(node, dict):
            for field in node.get("fields", ()):
                field["type"] = rewrite(field["type"])
            for key in ("items", "values"):
                if key in node:
                    node[key] = rewrite(node[key])
            if isinstance(node.get("type"), (dict, list)):
                node["type"] = rewrite(node["type"])
        return node

    def member_tag(member: Any) -> Any:
        member = rewrite(member)
        if isinstance(member, str) and member in _UNNAMED:
            return {"type": member, "logicalType": TAG}
        if isinstance(member, str) and member != "null":
            tagged_names.add(member)
        elif isinstance(member, dict) and "logicalType" not in member:
            if member.get("type") in _NAMED:
                tagged_names.add(member["name"])
            else:
                member["logicalType"] = TAG
        return member

    collect(plain)
    plain = rewrite(plain)
    for name in tagged_names:
        definition = definitions.get(name)
        if definition is not None and "logicalType" not in definition:
            definition["logicalType"] = TAG
    # Types from schema references are not in the text: parse them first, as `parse_avro` does
    # (a type nested in one of them is defined by it, so it is skipped once that is parsed).
    named: dict[str, Any] = {}
    for name, schema in _named_of(writer).items():
        if name not in definitions and name not in named:
            parse_schema(_strip(schema), named_schemas=named)
    return parse_schema(plain, named_schemas=named)


@dataclass
class PairConverter:
    """Builds the converter for one (writer, reader) pair of parsed schemas."""

    writer_named: Named
    reader_named: Named

    def build(self, writer: Any, reader: Any, *, untag: bool = True) -> Convert | None:
        """The converter for values of `writer` read as `reader`; `untag=False` when the caller
        already took the value out of its tag (the same writer node, seen again)."""
        w = _resolve(writer, self.writer_named)
        r = _resolve(reader, self.reader_named)
        if untag and isinstance(w, dict) and w.get("logicalType") == TAG:
            inner = self._plain(w, r)
            if inner is None:
                return _untag
            return lambda value: inner(value[1])
        return self._plain(w, r)

    def _matches(self, writer: Any, reader: Any, *, exact: bool = False) -> bool:
        """Avro's resolution rule: may data written as `writer` be read as `reader` (with
        `exact`, without a promotion)?"""
        w = _resolve(writer, self.writer_named)
        r = _resolve(reader, self.reader_named)
        if isinstance(w, list) or isinstance(r, list):
            return True
        w_kind, r_kind = _kind_of(w, self.writer_named), _kind_of(r, self.reader_named)
        if w_kind in _NAMED and r_kind in _NAMED:
            if w_kind != r_kind or (w_kind == "fixed" and w["size"] != r["size"]):
                return False
            short = w["name"].rsplit(".", 1)[-1]
            aliases = r.get("aliases", [])
            return short == r["name"].rsplit(".", 1)[-1] or w["name"] in aliases or short in aliases
        if w_kind == r_kind == "array":
            return self._matches(w["items"], r["items"], exact=exact)
        if w_kind == r_kind == "map":
            return self._matches(w["values"], r["values"], exact=exact)
        return w_kind == r_kind or (not exact and r_kind in _PROMOTIONS.get(w_kind, ()))

    def _member_for(self, writer: Any, members: list[Any]) -> int:
        """The reader member Java's resolver (hence Spark) picks: the first that matches
        without promotion, else the first that matches with one."""
        for exact in (True, False):
            for index, member in enumerate(members):
                if self._matches(writer, member, exact=exact):
                    return index
        raise ValueError(f"no member of reader union {members} reads writer type {writer}")

    def _promotion(self, writer: Any, reader: Any) -> Convert | None:
        """A tagged member's value is as written: promote it to the reader's type if needed."""
        w_kind, r_kind = _kind_of(writer, self.writer_named), _kind_of(reader, self.reader_named)
        if r_kind not in _PROMOTIONS.get(w_kind, ()) or w_kind == r_kind:
            return None
        if r_kind in ("float", "double"):
            return float
        return (lambda value: value.encode()) if r_kind == "bytes" else (lambda value: value.decode())

    def _plain(self, w: Any, r: Any) -> Convert | None:
        if isinstance(r, list):
            return self._to_union(w, r)
        if isinstance(w, list):
            return self._from_union(w, lambda member: r)
        r_kind = _kind_of(r, self.reader_named)
        if r_kind in ("record", "error"):
            return self._record(w, r)
        if r_kind == "array":
            return _each(self.build(w["items"], r["items"]))
        if r_kind == "map":
            return _each_value(self.build(w["values"], r["values"]))
        if isinstance(r, dict) and r.get("logicalType") == "uuid":
            return _uuid_text
        written = w.get("logicalType") if isinstance(w, dict) else None
        if written in _TIME_UNITS:
            # Spark's Avro reader keeps times of day as their int (ms) or long (µs); fastavro
            # returns datetime.time.
            return _time_as_count(_TIME_UNITS[written])
        return None

    def _record(self, w: Any, r: Any) -> Convert | None:
        written = {field["name"]: field for field in w["fields"]}
        converters: list[tuple[str, Convert]] = []
        for field in r["fields"]:
            names = [field["name"], *field.get("aliases", [])]
            source = next((written[name] for name in names if name in written), None)
            # A field the writer lacks holds the reader's default, which fastavro does not
            # read through the writer (no tag); a union's default is its first member.
            writer_type = source["type"] if source is not None else _default_shape(field["type"])
            convert = self.build(writer_type, field["type"]) if source is not None else \
                PairConverter(self.reader_named, self.reader_named).build(writer_type, field["type"])
            if convert is not None:
                converters.append((field["name"], convert))
        return _record_converter(converters) if converters else None

    def _to_union(self, w: Any, r: list[Any]) -> Convert | None:
        members = [member for member in r if member != "null"]
        if not general_union(r, self.reader_named):
            target = members[0] if len(members) == 1 else None
            if isinstance(w, list):
                return self._from_union(w, lambda member: target or self._target(member, members))
            return self.build(w, target or self._target(w, members), untag=False) if w != "null" else None
        if not isinstance(w, list):
            if w == "null":
                return None
            index = self._member_for(w, members)
            inner = self.build(w, members[index], untag=False)
            key = f"member{index}"
            return lambda value: None if value is None else {key: value if inner is None else inner(value)}
        table: dict[Any, tuple[str, Convert | None]] = {}
        for member in w:
            if member == "null" or not any(self._matches(member, option) for option in members):
                continue  # data of such a member fails in fastavro's resolution, before this
            index = self._member_for(member, members)
            convert = _after(self.build(member, members[index]), self._promotion(member, members[index]))
            table[self._identity(member)] = (f"member{index}", convert)

        def to_struct(value: Any) -> Any:
            if value is None:
                return None
            key, convert = table[value[0] if type(value) is tuple else type(value)]
            return {key: value if convert is None else convert(value)}
        return to_struct

    def _target(self, writer: Any, members: list[Any]) -> Any:
        return members[self._member_for(writer, members)]

    def _from_union(self, w: list[Any], target: Callable[[Any], Any]) -> Convert | None:
        """A writer union read into a reader type that is not a struct of members."""
        table: dict[Any, Convert | None] = {}
        for member in w:
            if member == "null":
                continue
            try:
                reader = target(member)
            except ValueError:
                continue  # no reader type reads this member: fastavro fails such data first
            if not self._matches(member, reader):
                continue
            identity = self._identity(member, tagged_only=False)
            convert = self.build(member, reader)
            if isinstance(identity, str):
                convert = _after(convert, self._promotion(member, reader))
            if table.get(identity) is None:
                table[identity] = convert
        tagged = any(isinstance(key, str) for key in table)
        if not tagged and all(convert is None for convert in table.values()):
            return None
        bare = table.get(None)

        def convert(value: Any) -> Any:
            if value is None:
                return None
            if type(value) is tuple:
                found = table[value[0]]
            else:
                found = table.get(type(value), bare)
            return value if found is None else found(value)
        return convert

    def _identity(self, member: Any, *, tagged_only: bool = True) -> Any:
        """How a value of this writer member is recognised: its tag, or (for a member that
        already has a logical type, so no tag) the Python type fastavro returns for it. Outside
        a general union, writers are not tagged; their one reader type needs no telling apart
        (None: any other value)."""
        resolved = _resolve(member, self.writer_named)
        if isinstance(resolved, dict) and resolved.get("logicalType") == TAG:
            return resolved["name"] if resolved["type"] in _NAMED else resolved["type"]
        logical = resolved.get("logicalType") if isinstance(resolved, dict) else None
        if logical in _PYTHON_TYPES:
            return _PYTHON_TYPES[logical]
        if not tagged_only:
            return None
        raise ValueError(f"union member {member} cannot be told apart from the others")


def _after(first: Convert | None, then: Convert | None) -> Convert | None:
    if first is None:
        return then
    return first if then is None else (lambda value: then(first(value)))


def _default_shape(reader_type: Any) -> Any:
    members = reader_type if isinstance(reader_type, list) else None
    return members[0] if members else reader_type


_TIME_UNITS = {"time-millis": 1_000, "time-micros": 1_000_000}


def _time_as_count(per_second: int) -> Convert:
    def count(value: Any) -> Any:
        if not isinstance(value, datetime.time):
            return value
        micros = ((value.hour * 60 + value.minute) * 60 + value.second) * 1_000_000 + value.microsecond
        return micros * per_second // 1_000_000
    return count


def _untag(value: Any) -> Any:
    return value[1]


def _uuid_text(value: Any) -> Any:
    return str(value) if isinstance(value, uuid.UUID) else value


def _each(convert: Convert | None) -> Convert | None:
    if convert is None:
        return None
    return lambda items: None if items is None else [convert(item) for item in items]


def _each_value(convert: Convert | None) -> Convert | None:
    if convert is None:
        return None
    return lambda entries: None if entries is None else {k: convert(v) for k, v in entries.items()}


def _record_converter(converters: list[tuple[str, Convert]]) -> Convert:
    def convert(record: Any) -> Any:
        if record is None:
            return None
        out = dict(record)  # a default fastavro filled in may be one object shared by every record
        for name, field_convert in converters:
            out[name] = field_convert(out[name])
        return out
    return convert


@dataclass(frozen=True)
class DecodePlan:
    """How one writer's records are read for one reader: what fastavro gets, and what runs after."""

    writer: Any
    reader: Any | None
    convert: Convert | None


def plan(writer: Any, reader: Any | None) -> DecodePlan:
    """The plan for parsed `writer` data read as parsed `reader` (None: as written)."""
    target = writer if reader is None else reader
    if has_general_union(target):
        tagged = tag_union_members(writer)
        convert = PairConverter(_named_of(tagged), _named_of(target)).build(tagged, target)
        return DecodePlan(tagged, reader, convert)
    convert = PairConverter(_named_of(writer), _named_of(target)).build(writer, target)
    return DecodePlan(writer, reader, convert)
