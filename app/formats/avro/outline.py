"""An Avro schema as an outline (`app.formats.base.Node`): the browser's field tree, what
the structural diff pairs, and what the search index stores.

A record's fields are children of the field (or root) where the record is defined: its first
appearance in the text, as Java writes it. A later use of the same type is written by name,
so it shows the name and nothing below it; that also keeps recursive types finite.

Each node's location is the JSON pointer into the schema's canonical text that
`compatibility.check` reports for it when the schema is the reader (`/fields/1`,
`/fields/1/type/1/fields/0`), so the core can file every incompatibility under its field.
Fields pair up by name, and by the aliases a reader field declares.
"""
from __future__ import annotations

import json
from typing import Any

from app.formats.avro.model import Array, Enum, Field, Fixed, Map, Named, Record, Schema, Union
from app.formats.base import FIELD_NODE, GROUP_NODE, TYPE_NODE, Declaration, Node


def outline(schema: Schema, referenced: tuple[str, ...] = ()) -> Node:
    """The root node of `schema`; types named in `referenced` (defined by referenced
    schemas) are shown by name only."""
    return _Outliner(set(referenced)).root(schema)


def label(schema: Schema) -> str:
    """How a type reads in the tree: `long`, `timestamp-millis (long)`, `Address`,
    `array<string>`, `map<long>`, `union<null, Address>`."""
    return _spelled(schema, prose=False)


def written(schema: Schema) -> str:
    """How a person reads the type: `long`, `long (timestamp-millis)`, `Address`,
    `array<string>`, `map<long>`, `null | Address`. Unlike `label`, which diffs compare and
    the search index stores, free to change with how pages should read."""
    return _spelled(schema, prose=True)


def _spelled(schema: Schema, prose: bool) -> str:
    if isinstance(schema, Named):
        return schema.name.name
    if isinstance(schema, Array):
        return f"array<{_spelled(schema.items, prose)}>"
    if isinstance(schema, Map):
        return f"map<{_spelled(schema.values, prose)}>"
    if isinstance(schema, Union):
        branches = [_spelled(branch, prose) for branch in schema.branches]
        return " | ".join(branches) if prose else "union<" + ", ".join(branches) + ">"
    base = schema.type.lower()
    logical = schema.logical
    if logical is None:
        return base
    if logical.name == "decimal":
        precision = f"{logical.precision}, {logical.scale}" if prose else f"{logical.precision},{logical.scale}"
        logical_text = f"decimal({precision})"
    else:
        logical_text = logical.name
    return f"{base} ({logical_text})" if prose else f"{logical_text} ({base})"


def _written_as(schema: Schema) -> Declaration:
    return Declaration(after=written(schema), spells=("type",))


_RECORD = Declaration(before="record", spells=("type",))


class _Outliner:
    """One walk; `defined` holds the full names whose definition has been met already."""

    def __init__(self, defined: set[str]) -> None:
        self.defined = defined

    def root(self, schema: Schema) -> Node:
        named = self._define(schema)
        detail = _type_detail(schema)
        if isinstance(schema, Record):
            children = self._fields(schema, "", "")
            return Node("", schema.name.name, TYPE_NODE, "record", "", None, schema.doc, children, detail,
                        named=schema.name.full, named_kind="record", declared=_RECORD)
        children = self._below(schema, "", "")
        kind = TYPE_NODE if named else GROUP_NODE
        name = schema.name.name if isinstance(schema, Named) else ""
        doc = schema.doc if isinstance(schema, Named) else None
        declared = Declaration(before=schema.type.lower(), spells=("type",)) if named else _written_as(schema)
        return Node("", name, kind, _declared_label(schema), "", None, doc, children, detail, named=named,
                    named_kind=schema.type.lower() if named else "", declared=declared)

    def _define(self, schema: Schema) -> str | None:
        """The full name `schema` defines here, marking it defined; None for an unnamed
        type or a name defined before."""
        if not isinstance(schema, Named) or schema.name.full in self.defined:
            return None
        self.defined.add(schema.name.full)
        return schema.name.full

    def _fields(self, record: Record, path: str, pointer: str) -> tuple[Node, ...]:
        return tuple(self._field(f, path, f"{pointer}/fields/{i}") for i, f in enumerate(record.fields))

    def _field(self, field: Field, parent: str, pointer: str) -> Node:
        path = f"{parent}.{field.name}" if parent else field.name
        detail: dict[str, Any] = {}
        if field.aliases:
            detail["aliases"] = list(field.aliases)
        if field.order != "ascending":
            detail["order"] = field.order
        named = _first_named(field.type, self.defined)
        detail.update(_type_detail(_first_of(field.type, (Enum, Fixed)) or field.type))
        children = self._below(field.type, path, f"{pointer}/type")
        default = json.dumps(field.default, ensure_ascii=False) if field.has_default else None
        return Node(
            path, field.name, FIELD_NODE, label(field.type), field.name, default, field.doc, children, detail,
            match_aliases=tuple(field.aliases), locations=(pointer,),
            named=named.name.full if named else None, named_kind=named.type.lower() if named else "",
            declared=_written_as(field.type),
        )

    def _below(self, schema: Schema, path: str, pointer: str) -> tuple[Node, ...]:
        """The fields of the records first defined inside this type: directly when there is
        one, under a group per record when a union holds several."""
        found: list[tuple[Named, str]] = []
        self._definitions(schema, pointer, found)
        records = [(r, p) for r, p in found if isinstance(r, Record)]
        if len(records) == 1:
            record, at = records[0]
            return self._fields(record, path, at)
        groups = []
        for record, at in records:
            group_path = f"{path}.{record.name.name}" if path else record.name.name
            groups.append(Node(
                group_path, record.name.name, GROUP_NODE, "record", record.name.full, None, record.doc,
                self._fields(record, group_path, at), _type_detail(record), locations=(at,), named=record.name.full,
                named_kind="record", declared=_RECORD,
            ))
        return tuple(groups)

    def _definitions(self, schema: Schema, pointer: str, found: list[tuple[Named, str]]) -> None:
        """Named types defined inside `schema` without passing through a record, in text
        order, each marked defined."""
        pending = [(schema, pointer)]  # a stack: the next in text order is last
        while pending:
            current, at = pending.pop()
            if isinstance(current, Named):
                if self._define(current) is not None:
                    found.append((current, at))
            elif isinstance(current, Union):
                pending += reversed([(b, f"{at}/{i}") for i, b in enumerate(current.branches)])
            elif isinstance(current, Array):
                pending.append((current.items, f"{at}/items"))
            elif isinstance(current, Map):
                pending.append((current.values, f"{at}/values"))


def _first_named(schema: Schema, defined: set[str]) -> Named | None:
    """The first named type this field's type defines (not yet met), as `_definitions` will."""
    return _first_of(schema, (Named,), lambda n: n.name.full not in defined)


def _first_of(schema: Schema, kinds: tuple[type, ...], accept: Any = None) -> Any:
    pending = [schema]  # a stack: the next in text order is last
    while pending:
        current = pending.pop()
        if isinstance(current, kinds) and (accept is None or accept(current)):
            return current
        if isinstance(current, Union):
            pending += reversed(current.branches)
        elif isinstance(current, Array):
            pending.append(current.items)
        elif isinstance(current, Map):
            pending.append(current.values)
    return None


def _declared_label(schema: Schema) -> str:
    return schema.type.lower() if isinstance(schema, Named) else label(schema)


def _type_detail(schema: Schema) -> dict[str, Any]:
    """The facts of a named type that a diff compares: aliases, symbols, size."""
    detail: dict[str, Any] = {}
    if isinstance(schema, Named) and schema.aliases:
        detail["type aliases"] = sorted(a.full for a in schema.aliases)
    if isinstance(schema, Enum):
        detail["symbols"] = list(schema.symbols)
        if schema.default is not None:
            detail["enum default"] = schema.default
    if isinstance(schema, Fixed):
        detail["size"] = schema.size
    return detail
