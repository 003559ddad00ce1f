"""The Avro schema as policy rules read it (`PolicyView`): one walk in document order.

Locations are JSON pointers built from the parsed model's structure (field index, union
branch index, `items`, `values`, `symbols`), which is the structure of the text as sent:
Java's writer and ours keep fields, branches and symbols in their order, and a named type
is defined at its first occurrence in both. A named type met again (recursion, reuse) or
defined by a referenced schema is a reference and yields nothing, so that a rule reports an
element once, where it is written.

The walk uses its own stack, not recursion: schemas may nest as deep as `nesting` allows.
"""
from __future__ import annotations

from app.formats import work_budget
from app.formats.avro.model import Array, Enum, Fixed, Map, Named, Record, Schema, Union
from app.formats.base import SchemaElement


def type_label(schema: Schema) -> str:
    """The type in a short notation that ignores logical types and props: what a field's
    type "is" for naming and comparing. Named types go by full name, so recursion stops."""
    if isinstance(schema, Named):
        return schema.name.full
    if isinstance(schema, Array):
        return f"array<{type_label(schema.items)}>"
    if isinstance(schema, Map):
        return f"map<{type_label(schema.values)}>"
    if isinstance(schema, Union):
        return "union<" + ",".join(type_label(b) for b in schema.branches) + ">"
    return schema.type.lower()


def _logical(schema: Schema) -> str | None:
    return schema.logical.name if schema.logical is not None else None


def elements(root: Schema, referenced: frozenset[str]) -> list[SchemaElement]:
    """Every element of the types `root` defines; `referenced` are the full names that come
    from references (not walked)."""
    out: list[SchemaElement] = []
    seen: set[int] = set()
    # (schema, location, path of the holder, records enclosing it)
    pending: list[tuple[Schema, str, str, int]] = [(root, "", "", 0)]
    while pending:
        schema, location, holder, depth = pending.pop()
        if isinstance(schema, Named):
            if id(schema) in seen or schema.name.full in referenced:
                continue
            seen.add(id(schema))
            _named(schema, location, depth, out, pending)
        elif isinstance(schema, Union):
            out.append(SchemaElement("union", "", location, holder, type=type_label(schema),
                                     depth=depth, size=len(schema.branches)))
            for index in range(len(schema.branches) - 1, -1, -1):
                pending.append((schema.branches[index], f"{location}/{index}", holder, depth))
        elif isinstance(schema, Array):
            out.append(SchemaElement("array", "", location, holder, type="array", depth=depth))
            pending.append((schema.items, location + "/items", holder, depth))
        elif isinstance(schema, Map):
            out.append(SchemaElement("map", "", location, holder, type="map", depth=depth))
            pending.append((schema.values, location + "/values", holder, depth))
        else:
            name = schema.type.lower()
            out.append(SchemaElement("primitive", name, location, holder, type=name,
                                     logical=_logical(schema), depth=depth))
    return out


def _named(schema: Named, location: str, depth: int, out: list[SchemaElement],
           pending: list[tuple[Schema, str, str, int]]) -> None:
    full = schema.name.full
    aliases = tuple(a.full for a in schema.aliases)
    common = dict(namespace=schema.name.space, doc=schema.doc, aliases=aliases)
    if isinstance(schema, Record):
        depth += 1
        out.append(SchemaElement("record", schema.name.name, location, full, type=full, depth=depth,
                                 size=len(schema.fields), **common))
        children = []
        for index, field in enumerate(schema.fields):
            work_budget.check()
            field_location = f"{location}/fields/{index}"
            field_path = f"{full}.{field.name}"
            out.append(SchemaElement(
                "field", field.name, field_location, field_path, doc=field.doc,
                type=type_label(field.type), logical=_logical(field.type), depth=depth,
                default=field.default if field.has_default else None, has_default=field.has_default,
                aliases=tuple(field.aliases), record=full,
            ))
            children.append((field.type, field_location + "/type", field_path, depth))
        pending.extend(reversed(children))
    elif isinstance(schema, Enum):
        out.append(SchemaElement("enum", schema.name.name, location, full, type=full, depth=depth,
                                 size=len(schema.symbols), **common))
        for index, symbol in enumerate(schema.symbols):
            out.append(SchemaElement("enumSymbol", symbol, f"{location}/symbols/{index}", f"{full}.{symbol}",
                                     depth=depth, record=full))
    elif isinstance(schema, Fixed):
        out.append(SchemaElement("fixed", schema.name.name, location, full, type=full,
                                 logical=_logical(schema), depth=depth, size=schema.size, **common))
