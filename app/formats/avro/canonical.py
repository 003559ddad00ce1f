"""Java's `Schema.toString()` writer: the text the registry stores, hashes and serves.

Confluent stores `schemaObj.toString(referencedSchemas, false)`, so two registries agree on ids
only if this writer emits the same bytes as Java's `Schema.toJson`: the same attribute order
per kind of schema, namespaces written only where they differ from the enclosing one, a named
type spelled out at its first occurrence and referred to by name afterwards, and types that are
already `known` (the referenced schemas) referred to by name from the start.
"""
from __future__ import annotations

from typing import Any

from app.formats import work_budget
from app.formats.avro.json_text import dumps, quote
from app.formats.avro.model import Array, Enum, Field, Fixed, Map, Name, Named, Record, Schema, Union
from app.formats.avro.nesting import deeper


def to_json(schema: Schema, known: set[str]) -> str:
    """Compact Java JSON of `schema`; full names in `known` are written as references.

    `known` is updated in place, as Java's writer does with its `knownNames`. Without the
    referenced names in `known` the walk goes into other schemas, hence its `deeper` bound.
    """
    out: list[str] = []
    _write(schema, known, None, out, 0)
    return "".join(out)


def _props(props: dict[str, Any], out: list[str]) -> None:
    for key, value in props.items():
        out.append(f",{quote(key)}:{dumps(value)}")


def _name(name: Name, space: str | None, out: list[str]) -> None:
    out.append(f',"name":{quote(name.name)}')
    if name.space is not None:
        if name.space != space:
            out.append(f',"namespace":{quote(name.space)}')
    elif space is not None:  # a type without namespace inside a namespaced one
        out.append(',"namespace":""')


def _aliases(schema: Named, out: list[str]) -> None:
    if schema.aliases:
        names = ",".join(quote(alias.qualified(schema.name.space)) for alias in schema.aliases)
        out.append(f',"aliases":[{names}]')


def _write(schema: Schema, known: set[str], space: str | None, out: list[str], depth: int) -> None:
    depth = deeper(depth)
    if isinstance(schema, Named):
        if schema.name.full in known:
            out.append(quote(schema.name.qualified(space)))
            return
        known.add(schema.name.full)
    if isinstance(schema, Record):
        _named_start(schema, "error" if schema.is_error else "record", space, out)
        out.append(',"fields":[')
        for i, field in enumerate(schema.fields):
            work_budget.check()
            out.append(("," if i else "") + f'{{"name":{quote(field.name)},"type":')
            _write(field.type, known, schema.name.space, out, depth)  # here, not in a helper: a frame a level
            _field_end(field, out)
        out.append("]")
        _named_end(schema, out)
    elif isinstance(schema, Enum):
        _named_start(schema, "enum", space, out)
        out.append(',"symbols":[' + ",".join(quote(s) for s in schema.symbols) + "]")
        if schema.default is not None:
            out.append(f',"default":{quote(schema.default)}')
        _named_end(schema, out)
    elif isinstance(schema, Fixed):
        _named_start(schema, "fixed", space, out)
        out.append(f',"size":{schema.size}')
        _named_end(schema, out)
    elif isinstance(schema, (Array, Map)):
        key, inner = ("items", schema.items) if isinstance(schema, Array) else ("values", schema.values)
        out.append(f'{{"type":"{schema.type.lower()}","{key}":')
        _write(inner, known, space, out, depth)
        _props(schema.props, out)
        out.append("}")
    elif isinstance(schema, Union):
        out.append("[")
        for i, branch in enumerate(schema.branches):
            if i:
                out.append(",")
            _write(branch, known, space, out, depth)
        out.append("]")
    elif schema.props:
        out.append(f'{{"type":"{schema.type.lower()}"')
        _props(schema.props, out)
        out.append("}")
    else:
        out.append(f'"{schema.type.lower()}"')


def _named_start(schema: Named, kind: str, space: str | None, out: list[str]) -> None:
    out.append(f'{{"type":"{kind}"')
    _name(schema.name, space, out)
    if schema.doc is not None:
        out.append(f',"doc":{quote(schema.doc)}')


def _named_end(schema: Named, out: list[str]) -> None:
    _props(schema.props, out)
    _aliases(schema, out)
    out.append("}")


def _field_end(field: Field, out: list[str]) -> None:
    """A field's attributes after its type."""
    if field.doc is not None:
        out.append(f',"doc":{quote(field.doc)}')
    if field.has_default:
        out.append(f',"default":{dumps(field.default)}')
    if field.order != "ascending":
        out.append(f',"order":"{field.order}"')
    if field.aliases:
        out.append(',"aliases":[' + ",".join(quote(a) for a in field.aliases) + "]")
    _props(field.props, out)
    out.append("}")
