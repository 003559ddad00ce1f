"""Confluent's `normalize=true` text for Avro (`AvroSchemaUtils.toNormalizedString`).

Confluent writes this form (adapted from Avro's Parsing Canonical Form) and then parses it
again: what it stores is the Java writer's output for the re-parsed schema. The form itself:
every named type carries its full name in `name` and no `namespace`; each kind of schema has a
fixed attribute order; custom properties, aliases and the keys of JSON objects in properties
and defaults are sorted; defaults are re-typed through their schema (an integer default of a
`double` field becomes `1.0`, a `float` one is rounded to 32 bits); a valid logical type puts
`logicalType` (and a decimal's precision/scale) first; an empty type doc is dropped.

Where Confluent's normalization throws (a default it cannot re-type), this raises `InvalidAvro`.
The walks recurse without bounds of their own: they follow the same structure as the canonical
text, which `AvroFormat.parse` has already held to the document bound (`nesting`).
"""
from __future__ import annotations

import struct
from typing import Any

from app.formats import work_budget
from app.formats.avro.errors import InvalidAvro
from app.formats.avro.json_text import dumps, quote
from app.formats.avro.model import Array, Enum, Field, Fixed, Map, Named, Record, Schema, Union


def normalized_text(schema: Schema, referenced: list[str]) -> str:
    """The normalized text of `schema`; `referenced` full names are written as names only."""
    out: list[str] = []
    _build(schema, {name: quote(name) for name in referenced}, out)
    return "".join(out)


def _sorted_json(value: Any) -> Any:
    """Confluent re-reads properties and defaults into key-sorted JSON objects."""
    if isinstance(value, dict):
        return {key: _sorted_json(value[key]) for key in sorted(value)}
    if isinstance(value, list):
        return [_sorted_json(item) for item in value]
    return value


def _simple_props(props: dict[str, Any], out: list[str]) -> None:
    for key in sorted(props):
        out.append(f",{quote(key)}:{dumps(_sorted_json(props[key]))}")


def _logical_props(schema: Schema, out: list[str]) -> None:
    logical = schema.logical
    if logical is None:
        return
    out.append(f',"logicalType":{quote(logical.name)}')
    if logical.name == "decimal":
        out.append(f',"precision":{logical.precision}')
        if logical.scale:
            out.append(f',"scale":{logical.scale}')


def _build(schema: Schema, env: dict[str, str], out: list[str]) -> None:
    if isinstance(schema, Union):
        out.append("[")
        for i, branch in enumerate(schema.branches):
            if i:
                out.append(",")
            _build(branch, env, out)
        out.append("]")
    elif isinstance(schema, (Array, Map)):
        key, inner = ("items", schema.items) if isinstance(schema, Array) else ("values", schema.values)
        out.append(f'{{"type":"{schema.type.lower()}","{key}":')
        _build(inner, env, out)
        _logical_props(schema, out)
        _simple_props(schema.props, out)
        out.append("}")
    elif isinstance(schema, Named):
        _named(schema, env, out)
    elif schema.logical is not None or schema.props:
        out.append(f'{{"type":"{schema.type.lower()}"')
        _logical_props(schema, out)
        _simple_props(schema.props, out)
        out.append("}")
    else:
        out.append(f'"{schema.type.lower()}"')


def _named(schema: Named, env: dict[str, str], out: list[str]) -> None:
    full = schema.name.full
    if full in env:
        out.append(env[full])
        return
    env[full] = quote(full)
    out.append(f'{{"name":{quote(full)},"type":"{schema.type.lower()}"')
    if isinstance(schema, Enum):
        out.append(',"symbols":[' + ",".join(quote(s) for s in schema.symbols) + "]")
    elif isinstance(schema, Fixed):
        out.append(f',"size":{schema.size}')
    elif isinstance(schema, Record):
        out.append(',"fields":[')
        for i, field in enumerate(schema.fields):
            work_budget.check()
            out.append(("," if i else "") + f'{{"name":{quote(field.name)},"type":')
            _build(field.type, env, out)
            _field_props(field, out)
            out.append("}")
        out.append("]")
    _logical_props(schema, out)
    if schema.doc:
        out.append(f',"doc":{quote(schema.doc)}')
    if schema.alias_fullnames:
        out.append(f',"aliases":{dumps(sorted(schema.alias_fullnames))}')
    if isinstance(schema, Enum) and schema.default is not None:
        out.append(f',"default":{quote(schema.default)}')
    _simple_props(schema.props, out)
    out.append("}")


def _field_props(field: Field, out: list[str]) -> None:
    out.append(f',"order":"{field.order.upper()}"')
    if field.doc is not None:
        out.append(f',"doc":{quote(field.doc)}')
    if field.aliases:
        out.append(f',"aliases":{dumps(sorted(field.aliases))}')
    if field.has_default:
        value = _retyped(field.default, field.type)
        if value is not _DROPPED:
            out.append(f',"default":{dumps(_sorted_json(value))}')
    _simple_props(field.props, out)


_DROPPED: Any = object()
"""Java's `JacksonUtils.toObject` found no reading of the value for its schema: no default."""


def _float32(value: float) -> float:
    """The double Java gets back from `Float.toString((float) value)`: the shortest decimal
    that rounds to the same 32-bit float."""
    single = struct.unpack("<f", struct.pack("<f", value))[0]
    for digits in range(1, 10):
        text = f"{single:.{digits}g}"
        if struct.unpack("<f", struct.pack("<f", float(text)))[0] == single:
            return float(text)
    return single


def _retyped(value: Any, schema: Schema | None) -> Any:
    """Java `JacksonUtils.toObject(node, schema)` followed by writing the object back."""
    if value is None:
        return None
    if isinstance(schema, Union):
        for branch in schema.branches:
            if branch.type != "NULL":
                typed = _retyped(value, branch)
                if typed is not _DROPPED:
                    return typed
        return _DROPPED
    kind = schema.type if schema is not None else None
    if isinstance(value, bool):
        return value
    if isinstance(value, int):
        if not -(2**63) <= value < 2**63:
            return _DROPPED
        if kind in (None, "INT", "LONG"):
            return value
        if kind == "FLOAT":
            return _float32(float(value))
        return float(value) if kind == "DOUBLE" else _DROPPED
    if isinstance(value, float):
        if kind in (None, "DOUBLE"):
            return value
        return _float32(value) if kind == "FLOAT" else _DROPPED
    if isinstance(value, str):
        if kind in (None, "STRING", "ENUM"):
            return value
        if kind in ("BYTES", "FIXED"):  # getBytes(ISO_8859_1) read back as ISO-8859-1
            return "".join(c if ord(c) < 256 else "?" for c in value)
        return _DROPPED
    if isinstance(value, list):
        items = schema.items if isinstance(schema, Array) else None
        return [_present(_retyped(item, items)) for item in value]
    if isinstance(value, dict):
        typed: dict[str, Any] = {}
        for key, item in value.items():
            inner: Schema | None = None
            if isinstance(schema, Map):
                inner = schema.values
            elif isinstance(schema, Record):
                inner = schema.field_map[key].type if key in schema.field_map else None
            typed[key] = _present(_retyped(item, inner))
        return typed
    return _DROPPED


def _present(value: Any) -> Any:
    """Inside a list or map Java would write a Java null, which its JSON writer rejects."""
    if value is _DROPPED:
        raise InvalidAvro("Unknown datum class: null")
    return value
