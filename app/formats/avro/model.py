"""The parsed form of an Avro schema, shaped like Java's `org.apache.avro.Schema` objects.

Identity matters here, as in Java: a named type (record, enum, fixed) is one object however
many times it is referenced, while every primitive, array, map and union occurrence is its own
object. The compatibility checker memoizes on object identity exactly as Java's
`SchemaCompatibility` does, so recursion terminates and repeated named pairs reuse their
first result (locations included).

`type` holds Java's upper-case `Schema.Type` name, which is also what incompatibility messages
print. Everything the checker needs per schema (field maps, qualified aliases) is computed here
once, at parse time, because parsed schemas are cached by the core and compared many times.
"""
from __future__ import annotations

from typing import Any

PRIMITIVE_TYPES = {
    "null": "NULL",
    "boolean": "BOOLEAN",
    "int": "INT",
    "long": "LONG",
    "float": "FLOAT",
    "double": "DOUBLE",
    "bytes": "BYTES",
    "string": "STRING",
}

# Java `Schema.Type` names in lower case: a reference to a named type whose simple name is one
# of these is always written fully qualified.
TYPE_NAMES = frozenset(PRIMITIVE_TYPES) | {"record", "enum", "array", "map", "union", "fixed"}

NO_DEFAULT: Any = object()
"""A field's `default` when the field has none (JSON `null` is a real default)."""


class LogicalType:
    """A logical type Java recognised; an invalid one is not kept (Java ignores it)."""

    __slots__ = ("name", "precision", "scale")

    def __init__(self, name: str, precision: int = 0, scale: int = 0) -> None:
        self.name = name
        self.precision = precision
        self.scale = scale


class Schema:
    __slots__ = ("logical", "props", "type")

    def __init__(self, type_: str, props: dict[str, Any] | None = None) -> None:
        self.type = type_
        self.props: dict[str, Any] = props or {}
        self.logical: LogicalType | None = None

    @property
    def union_key(self) -> str:
        """Java's `getFullName()`: what a union uses to detect duplicate branches."""
        return self.type.lower()


class Primitive(Schema):
    __slots__ = ()


class Array(Schema):
    __slots__ = ("items",)

    def __init__(self, items: Schema, props: dict[str, Any] | None = None) -> None:
        super().__init__("ARRAY", props)
        self.items = items


class Map(Schema):
    __slots__ = ("values",)

    def __init__(self, values: Schema, props: dict[str, Any] | None = None) -> None:
        super().__init__("MAP", props)
        self.values = values


class Union(Schema):
    __slots__ = ("branches",)

    def __init__(self, branches: list[Schema]) -> None:
        super().__init__("UNION")
        self.branches = branches


class Name:
    """A (namespace, simple name) pair; an empty namespace is no namespace, as in Java."""

    __slots__ = ("full", "name", "space")

    def __init__(self, name: str, space: str | None) -> None:
        if "." in name:
            space, name = name.rsplit(".", 1)
        self.space = space or None
        self.name = name
        self.full = f"{self.space}.{name}" if self.space else name

    def qualified(self, default_space: str | None) -> str:
        """How Java writes a reference to this name inside `default_space`."""
        if self.space is not None and self.space == default_space and self.name not in TYPE_NAMES:
            return self.name
        return self.full


class Named(Schema):
    __slots__ = ("alias_fullnames", "aliases", "doc", "name")

    def __init__(self, type_: str, name: Name, doc: str | None) -> None:
        super().__init__(type_)
        self.name = name
        self.doc = doc
        self.aliases: list[Name] = []
        self.alias_fullnames: frozenset[str] = frozenset()

    @property
    def union_key(self) -> str:
        return self.name.full

    def set_aliases(self, aliases: list[Name]) -> None:
        """Keep Java's alias set (deduplicated by full name) and its `getAliases()` view,
        in which an alias without namespace inside a namespaced type reads `.name`."""
        unique: dict[str, Name] = {}
        for alias in aliases:
            unique.setdefault(alias.full, alias)
        self.aliases = list(unique.values())
        self.alias_fullnames = frozenset(
            "." + a.name if a.space is None and self.name.space is not None else a.full for a in self.aliases
        )


class Field:
    __slots__ = ("aliases", "default", "doc", "name", "order", "pos", "props", "type")

    def __init__(self, name: str, type_: Schema, doc: str | None, default: Any, order: str,
                 aliases: list[str], props: dict[str, Any], pos: int) -> None:
        self.name = name
        self.type = type_
        self.doc = doc
        self.default = default
        self.order = order  # "ascending" | "descending" | "ignore"
        self.aliases = list(dict.fromkeys(aliases))  # Java keeps a LinkedHashSet
        self.props = props
        self.pos = pos

    @property
    def has_default(self) -> bool:
        return self.default is not NO_DEFAULT


class Record(Named):
    __slots__ = ("field_map", "fields", "is_error")

    def __init__(self, name: Name, doc: str | None, is_error: bool) -> None:
        super().__init__("RECORD", name, doc)
        self.is_error = is_error
        self.fields: list[Field] = []
        self.field_map: dict[str, Field] = {}


class Enum(Named):
    __slots__ = ("default", "symbol_set", "symbols")

    def __init__(self, name: Name, doc: str | None, symbols: list[str], default: str | None) -> None:
        super().__init__("ENUM", name, doc)
        self.symbols = symbols
        self.symbol_set = frozenset(symbols)
        self.default = default


class Fixed(Named):
    __slots__ = ("size",)

    def __init__(self, name: Name, doc: str | None, size: int) -> None:
        super().__init__("FIXED", name, doc)
        self.size = size
