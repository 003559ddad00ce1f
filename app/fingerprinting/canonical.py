"""Avro's Parsing Canonical Form, the text that schema fingerprints are taken over.

The Avro specification ("Parsing Canonical Form for Schemas") reduces a schema to what
matters for reading data: primitives in their short form, full names everywhere and no
`namespace`, only the attributes name/type/fields/symbols/items/values/size in that order, no
whitespace. Two schemas that differ in docs, aliases, defaults or logical types share it, and
so share their fingerprints: either can decode what the other wrote.

Referenced schemas (Confluent's `references`) are inlined where the text first uses one of
their types, as Java's `SchemaNormalization` does for a schema parsed together with its
references, so the form (and fingerprint) is the one the writer's own Avro library computes.

This module needs nothing but `json`, so the server computes the very same form at
registration as the client does for its framings.
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Sequence

PRIMITIVES = frozenset({"null", "boolean", "int", "long", "float", "double", "bytes", "string"})
NAMED = frozenset({"record", "error", "enum", "fixed"})


class CanonicalFormError(ValueError):
    """The schema is not valid enough to have a canonical form (bad JSON, unknown name, ...)."""


@dataclass(frozen=True)
class _Definition:
    """A named type and the namespace its own nested names resolve in."""

    node: dict[str, Any]
    full_name: str
    namespace: str | None


def parsing_canonical_form(schema: str | Any, referenced: Sequence[str | Any] = ()) -> str:
    """The Parsing Canonical Form of `schema` (JSON text or already-decoded JSON).

    `referenced` holds the texts of the schemas it references, dependencies first (the order
    the registry's `references` resolve to).
    """
    definitions: dict[str, _Definition] = {}
    for reference in referenced:
        _collect(_decode(reference), None, definitions)
    root = _decode(schema)
    _collect(root, None, definitions)
    out: list[str] = []
    _Writer(definitions).write(root, None, out)
    return "".join(out)


def _decode(schema: str | Any) -> Any:
    if not isinstance(schema, str):
        return schema
    try:
        return json.loads(schema)
    except ValueError:
        # A bare name such as `int` or `com.example.User` is a schema too.
        stripped = schema.strip()
        if stripped and all(part.isidentifier() for part in stripped.split(".")):
            return stripped
        raise CanonicalFormError(f"schema is not JSON: {schema[:80]!r}") from None


def _full_name(node: dict[str, Any], enclosing: str | None) -> tuple[str, str | None]:
    """(full name, namespace) of a named type by the Avro specification's rules: a dotted name is
    already full; otherwise an explicit `namespace` (empty meaning none) wins over the enclosing one."""
    name = node.get("name")
    if not isinstance(name, str) or not name:
        raise CanonicalFormError(f"a {node.get('type')} needs a name")
    if "." in name:
        return name, name.rpartition(".")[0]
    namespace = node["namespace"] if "namespace" in node else enclosing
    if not namespace:
        return name, None
    return f"{namespace}.{name}", namespace


def _collect(node: Any, namespace: str | None, definitions: dict[str, _Definition]) -> None:
    """Record every named type under its full name, with the namespace its body uses."""
    if isinstance(node, list):
        for branch in node:
            _collect(branch, namespace, definitions)
        return
    if not isinstance(node, dict):
        return
    kind = node.get("type")
    if isinstance(kind, (dict, list)):
        _collect(kind, namespace, definitions)
        return
    if kind in NAMED:
        full, own = _full_name(node, namespace)
        definitions.setdefault(full, _Definition(node, full, own))
        if kind in ("record", "error"):
            for item in node.get("fields") or ():
                if isinstance(item, dict):
                    _collect(item.get("type"), own, definitions)
    elif kind == "array":
        _collect(node.get("items"), namespace, definitions)
    elif kind == "map":
        _collect(node.get("values"), namespace, definitions)


class _Writer:
    def __init__(self, definitions: dict[str, _Definition]) -> None:
        self.definitions = definitions
        self.written: set[str] = set()

    def write(self, node: Any, namespace: str | None, out: list[str]) -> None:
        if isinstance(node, str):
            self._name(node, namespace, out)
        elif isinstance(node, list):
            out.append("[")
            for index, branch in enumerate(node):
                if index:
                    out.append(",")
                self.write(branch, namespace, out)
            out.append("]")
        elif isinstance(node, dict):
            self._object(node, namespace, out)
        else:
            raise CanonicalFormError(f"not a schema: {node!r}")

    def _name(self, name: str, namespace: str | None, out: list[str]) -> None:
        if name in PRIMITIVES:
            out.append(_quote(name))
            return
        candidates = [f"{namespace}.{name}", name] if namespace and "." not in name else [name]
        for full in candidates:
            if full in self.written:
                out.append(_quote(full))
                return
            if full in self.definitions:
                self._named(self.definitions[full], out)
                return
        raise CanonicalFormError(f"unknown type name {name!r}")

    def _object(self, node: dict[str, Any], namespace: str | None, out: list[str]) -> None:
        kind = node.get("type")
        if isinstance(kind, (dict, list)):
            self.write(kind, namespace, out)
        elif not isinstance(kind, str):
            raise CanonicalFormError(f"schema object without a type: {node!r}")
        elif kind in NAMED:
            full, _ = _full_name(node, namespace)
            if full in self.written:
                out.append(_quote(full))
            else:
                self._named(self.definitions.get(full) or _Definition(node, full, namespace), out)
        elif kind == "array":
            out.append('{"type":"array","items":')
            self.write(node.get("items"), namespace, out)
            out.append("}")
        elif kind == "map":
            out.append('{"type":"map","values":')
            self.write(node.get("values"), namespace, out)
            out.append("}")
        else:
            self._name(kind, namespace, out)

    def _named(self, definition: _Definition, out: list[str]) -> None:
        node, full = definition.node, definition.full_name
        self.written.add(full)
        kind = node["type"]
        out.append(f'{{"name":{_quote(full)},"type":{_quote(kind)}')
        if kind in ("record", "error"):
            out.append(',"fields":[')
            for index, item in enumerate(node.get("fields") or ()):
                if not isinstance(item, dict) or not isinstance(item.get("name"), str):
                    raise CanonicalFormError(f"bad field in {full}: {item!r}")
                if index:
                    out.append(",")
                out.append(f'{{"name":{_quote(item["name"])},"type":')
                self.write(item.get("type"), definition.namespace, out)
                out.append("}")
            out.append("]")
        elif kind == "enum":
            symbols = node.get("symbols")
            if not isinstance(symbols, list):
                raise CanonicalFormError(f"enum {full} needs symbols")
            out.append(',"symbols":[' + ",".join(_quote(str(symbol)) for symbol in symbols) + "]")
        else:
            out.append(f',"size":{_size(node.get("size"), full)}')
        out.append("}")


def _size(size: Any, full: str) -> int:
    """[INTEGERS]: the size as a bare integer, whatever quoting or leading zeros it came with."""
    try:
        value = int(size)
    except (TypeError, ValueError):
        raise CanonicalFormError(f"fixed {full} needs an integer size") from None
    if isinstance(size, bool) or value < 0:
        raise CanonicalFormError(f"fixed {full} needs a non-negative size")
    return value


def _quote(text: str) -> str:
    """[STRINGS]: literal characters, not escapes (`json.dumps` keeps non-ASCII as is)."""
    return json.dumps(text, ensure_ascii=False)
