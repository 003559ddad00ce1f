"""Avro schema JSON -> `model` objects, validating as Java's `Schema.Parser` does.

The rules and the error texts follow Java Avro, because the registry must accept and refuse
the same schemas as Confluent's (which wraps Java's message in its 42201 reply):
strict parsing (new schemas) validates names with Avro's ASCII rule and checks field defaults;
lenient parsing (stored schemas) checks simple names with the Unicode rule only and lets any
default through. Named types from earlier documents (the references) stay visible to later
ones, which is how a schema uses a type another subject defines.
"""
from __future__ import annotations

import math
import re
from collections.abc import Callable
from typing import Any

from app.formats import work_budget
from app.formats.avro import json_text
from app.formats.avro.canonical import to_json
from app.formats.avro.errors import InvalidAvro
from app.formats.avro.model import (
    NO_DEFAULT,
    PRIMITIVE_TYPES,
    Array,
    Enum,
    Field,
    Fixed,
    LogicalType,
    Map,
    Name,
    Named,
    Primitive,
    Record,
    Schema,
    Union,
)
from app.formats.avro.nesting import deeper


SCHEMA_RESERVED = frozenset({"doc", "fields", "items", "name", "namespace", "size", "symbols", "values", "type", "aliases"})
ENUM_RESERVED = SCHEMA_RESERVED | {"default"}
FIELD_RESERVED = frozenset({"default", "doc", "name", "order", "type", "aliases"})
_ORDERS = {"ASCENDING": "ascending", "DESCENDING": "descending", "IGNORE": "ignore"}
_JAVA_DOUBLE = re.compile(r"([+-]?(?:NaN|Infinity|(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?))[fFdD]?")
_INT_RANGE = (-(2**31), 2**31 - 1)
_LONG_RANGE = (-(2**63), 2**63 - 1)


def _ascii_name_error(name: str | None) -> str | None:
    """Avro's STRICT_VALIDATOR (the one Confluent uses for new schemas)."""
    if name is None:
        return "Null name"
    if not name:
        return "Empty name"
    if not (name[0].isascii() and name[0].isalpha() or name[0] == "_"):
        return f"Illegal initial character: {name}"
    if any(not (c.isascii() and c.isalnum() or c == "_") for c in name[1:]):
        return f"Illegal character in: {name}"
    return None


def _unicode_name_error(name: str | None) -> str | None:
    """Avro's UTF_VALIDATOR (Character.isLetter / isLetterOrDigit), used for stored schemas."""
    if name is None:
        return "Null name"
    if not name:
        return "Empty name"
    if not (name[0].isalpha() or name[0] == "_"):
        return f"Illegal initial character: {name}"
    if any(not (c.isalpha() or c.isdigit() or c == "_") for c in name[1:]):
        return f"Illegal character in: {name}"
    return None


def _text(node: dict[str, Any], key: str) -> str | None:
    """Jackson's `textValue()`: the value when it is a string, else nothing."""
    value = node.get(key)
    return value if isinstance(value, str) else None


def _required_text(node: dict[str, Any], key: str, error: str) -> str:
    value = _text(node, key)
    if value is None:
        raise InvalidAvro(f"{error}: {json_text.dumps(node)}")
    return value


def _is_int(value: Any, bounds: tuple[int, int]) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and bounds[0] <= value <= bounds[1]


def is_valid_default(schema: Schema, value: Any, depth: int = 0) -> bool:
    """Java `Schema.isValidDefault`: may `value` (parsed JSON) stand for `schema`?

    A record's missing field is checked with the field's own default, which may lead through
    further records (some in referenced schemas), so the walk is bounded by `deeper`.
    """
    kind = schema.type
    if kind in ("STRING", "BYTES", "ENUM", "FIXED"):
        return isinstance(value, str)
    if kind == "INT":
        return _is_int(value, _INT_RANGE)
    if kind == "LONG":
        return _is_int(value, _LONG_RANGE)
    if kind in ("FLOAT", "DOUBLE"):
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    if kind == "BOOLEAN":
        return isinstance(value, bool)
    if kind == "NULL":
        return value is None
    depth = deeper(depth)
    # loops rather than all()/any() over generators: one frame per level, not two
    if isinstance(schema, Array):
        if not isinstance(value, list):
            return False
        for item in value:
            if not is_valid_default(schema.items, item, depth):
                return False
        return True
    if isinstance(schema, Map):
        if not isinstance(value, dict):
            return False
        for item in value.values():
            if not is_valid_default(schema.values, item, depth):
                return False
        return True
    if isinstance(schema, Union):
        for branch in schema.branches:
            if is_valid_default(branch, value, depth):
                return True
        return False
    if isinstance(schema, Record):
        if not isinstance(value, dict):
            return False
        for f in schema.fields:
            given = value.get(f.name, f.default)
            if given is NO_DEFAULT or not is_valid_default(f.type, given, depth):
                return False
        return True
    return False


def _int_prop(props: dict[str, Any], key: str) -> int:
    value = props.get(key)
    if not _is_int(value, _INT_RANGE):
        raise ValueError(key)
    return value


def _logical_type(schema: Schema) -> LogicalType | None:
    """Java `LogicalTypes.fromSchemaIgnoreInvalid`: the logical type, or None when it is
    unknown or invalid for the underlying type (the property then stays a plain property)."""
    name = schema.props.get("logicalType")
    if not isinstance(name, str):
        return None
    kind = schema.type
    size = schema.size if isinstance(schema, Fixed) else None
    if name == "decimal" and kind in ("BYTES", "FIXED"):
        try:
            precision = _int_prop(schema.props, "precision")
            scale = _int_prop(schema.props, "scale") if schema.props.get("scale") is not None else 0
        except ValueError:
            return None
        max_precision = round(math.floor(math.log10(2) * (8 * size - 1))) if size is not None else None
        if precision <= 0 or scale < 0 or scale > precision or (max_precision is not None and precision > max_precision):
            return None
        return LogicalType(name, precision, scale)
    valid = {
        "uuid": kind == "STRING" or size == 16,
        "date": kind == "INT",
        "time-millis": kind == "INT",
        "time-micros": kind == "LONG",
        "timestamp-millis": kind == "LONG",
        "timestamp-micros": kind == "LONG",
        "timestamp-nanos": kind == "LONG",
        "local-timestamp-millis": kind == "LONG",
        "local-timestamp-micros": kind == "LONG",
        "local-timestamp-nanos": kind == "LONG",
        "duration": size == 12,
        "big-decimal": kind == "BYTES",
    }
    return LogicalType(name) if valid.get(name) else None


class Parser:
    """One parse context: the named types every document parsed so far has defined."""

    def __init__(self, strict: bool) -> None:
        self.strict = strict
        self.names: dict[str, Named] = {}
        self._name_error: Callable[[str | None], str | None] = _ascii_name_error if strict else _unicode_name_error

    def parse_text(self, text: Any) -> Schema:
        if not isinstance(text, str) or not text.strip():
            raise InvalidAvro("Empty schema")
        try:
            document = json_text.loads(text)
        except ValueError as exc:
            raise InvalidAvro(f"Invalid JSON: {exc}") from None
        return self.parse(document, None)

    def parse(self, node: Any, space: str | None) -> Schema:
        if isinstance(node, str):
            return self._find(node, space)
        if isinstance(node, list):
            return self._union(node, space)
        if not isinstance(node, dict):
            raise InvalidAvro(f"Schema not yet supported: {json_text.dumps(node)}")
        kind = _required_text(node, "type", "No type")
        if kind in PRIMITIVE_TYPES:
            return self._with_props(Primitive(PRIMITIVE_TYPES[kind]), node, SCHEMA_RESERVED)
        if kind in ("record", "error"):
            return self._record(node, space, kind == "error")
        if kind == "enum":
            return self._enum(node, space)
        if kind == "array":
            if "items" not in node:
                raise InvalidAvro(f"Array has no items type: {json_text.dumps(node)}")
            return self._with_props(Array(self.parse(node["items"], space)), node, SCHEMA_RESERVED)
        if kind == "map":
            if "values" not in node:
                raise InvalidAvro(f"Map has no values type: {json_text.dumps(node)}")
            return self._with_props(Map(self.parse(node["values"], space)), node, SCHEMA_RESERVED)
        if kind == "fixed":
            return self._fixed(node, space)
        defined = self.names.get(Name(kind, space).full) or self.names.get(kind)
        if defined is not None:  # Avro 1.11 accepts {"type": "DefinedName"} as a reference
            return defined
        raise InvalidAvro(
            'A schema "type" MUST be a primitive type or one of "enum", "fixed", "record", "error", "array" or "map". '
            f"Unknown type: {kind}"
        )

    # -- helpers -------------------------------------------------------------------------
    def _check_name(self, name: str | None, what: str = "") -> None:
        error = self._name_error(name)
        if error:
            raise InvalidAvro(f'{what} "{name}" is invalid: {error}' if what else error)

    def _find(self, name: str, space: str | None) -> Schema:
        if name in PRIMITIVE_TYPES:
            return Primitive(PRIMITIVE_TYPES[name])
        found = self.names.get(Name(name, space).full) or self.names.get(name)
        if found is None:
            raise InvalidAvro(f"Undefined schema: {Name(name, space).full}")
        return found

    def _with_props(self, schema: Schema, node: dict[str, Any], reserved: frozenset[str]) -> Schema:
        schema.props = {k: v for k, v in node.items() if k not in reserved}
        schema.logical = _logical_type(schema)
        return schema

    def _name(self, node: dict[str, Any], space: str | None) -> Name:
        namespace = _text(node, "namespace")
        name = Name(_required_text(node, "name", "No name in schema"), space if namespace is None else namespace)
        self._check_name(name.name)
        return name

    def _define(self, schema: Named) -> None:
        full = schema.name.full
        if full in PRIMITIVE_TYPES:
            raise InvalidAvro(f"Schemas may not be named after primitives: {full}")
        if self.strict and schema.name.space:
            for part in schema.name.space.split("."):
                self._check_name(part, "Namespace part")
        if full in self.names:
            raise InvalidAvro(f"Can't redefine: {full}")
        self.names[full] = schema

    def _aliases(self, node: dict[str, Any]) -> list[str]:
        aliases = node.get("aliases")
        if aliases is None:
            return []
        if not isinstance(aliases, list):
            raise InvalidAvro(f"aliases not an array: {json_text.dumps(node)}")
        for alias in aliases:
            if not isinstance(alias, str):
                raise InvalidAvro(f"alias not a string: {json_text.dumps(alias)}")
        return aliases

    def _named_aliases(self, schema: Named, node: dict[str, Any]) -> None:
        names = [Name(alias, schema.name.space) for alias in self._aliases(node)]
        if self.strict:  # the lenient parser, like Confluent's for stored schemas, skips alias names
            for alias in names:
                self._check_name(alias.name)
        schema.set_aliases(names)

    # -- named and composite types -------------------------------------------------------
    def _record(self, node: dict[str, Any], space: str | None, is_error: bool) -> Record:
        record = Record(self._name(node, space), _text(node, "doc"), is_error)
        fields_node = node.get("fields")
        if not isinstance(fields_node, list):
            raise InvalidAvro(f"Record has no fields: {json_text.dumps(node)}")
        self._define(record)  # before the fields, so that a field may refer to its own record
        for pos, field_node in enumerate(fields_node):
            work_budget.check()  # a record near the size limit holds tens of thousands of fields
            field = self._field(field_node, record.name.space, pos)
            existing = record.field_map.get(field.name)
            if existing is not None:
                raise InvalidAvro(
                    f"Duplicate field {field.name} in record {record.name.full}: "
                    f"{field.name} type:{field.type.type} pos:{pos} and "
                    f"{existing.name} type:{existing.type.type} pos:{existing.pos}."
                )
            record.fields.append(field)
            record.field_map[field.name] = field
        self._with_props(record, node, SCHEMA_RESERVED)
        self._named_aliases(record, node)
        return record

    def _field(self, node: Any, space: str | None, pos: int) -> Field:
        if not isinstance(node, dict):
            raise InvalidAvro(f"No field name: {json_text.dumps(node)}")
        name = _required_text(node, "name", "No field name")
        if "type" not in node:
            raise InvalidAvro(f"No field type: {json_text.dumps(node)}")
        schema = self.parse(node["type"], space)
        order = "ascending"
        if "order" in node:
            given = node["order"]
            order = _ORDERS.get(given.upper()) if isinstance(given, str) else None
            if order is None:
                raise InvalidAvro(f"No enum constant org.apache.avro.Schema.Field.Order.{str(given).upper()}")
        default = node.get("default", NO_DEFAULT)
        if isinstance(default, str) and schema.type in ("FLOAT", "DOUBLE"):
            default = self._java_parse_double(default)
        self._check_name(name)
        if self.strict and default is not NO_DEFAULT and not is_valid_default(schema, default):
            raise InvalidAvro(
                f"Invalid default for field {name}: {json_text.dumps(default)} not a {_inline(schema)}"
            )
        props = {k: v for k, v in node.items() if k not in FIELD_RESERVED}
        return Field(name, schema, _text(node, "doc"), default, order, self._aliases(node), props, pos)

    @staticmethod
    def _java_parse_double(text: str) -> float:
        """Java turns a textual float/double default into a number (`Double.parseDouble`)."""
        match = _JAVA_DOUBLE.fullmatch(text.strip())
        if match is None:
            raise InvalidAvro(f'For input string: "{text}"')
        return float(match.group(1))

    def _enum(self, node: dict[str, Any], space: str | None) -> Enum:
        name = self._name(node, space)
        symbols_node = node.get("symbols")
        if not isinstance(symbols_node, list):
            raise InvalidAvro(f"Enum has no symbols: {json_text.dumps(node)}")
        symbols = [s if isinstance(s, str) else None for s in symbols_node]
        seen: set[str | None] = set()
        for symbol in symbols:
            self._check_name(symbol)
            if symbol in seen:
                raise InvalidAvro(f"Duplicate enum symbol: {symbol}")
            seen.add(symbol)
        default = _text(node, "default")
        if default is not None and default not in seen:
            raise InvalidAvro(
                f"The Enum Default: {default} is not in the enum symbol set: [{', '.join(symbols)}]"
            )
        schema = Enum(name, _text(node, "doc"), symbols, default)
        self._with_props(schema, node, ENUM_RESERVED)
        self._named_aliases(schema, node)
        self._define(schema)
        return schema

    def _fixed(self, node: dict[str, Any], space: str | None) -> Fixed:
        name = self._name(node, space)
        size = node.get("size")
        if not _is_int(size, _INT_RANGE):
            raise InvalidAvro(f"Invalid or no size: {json_text.dumps(node)}")
        if size < 0:
            raise InvalidAvro(f"Malformed data. Length is negative: {size}")
        schema = Fixed(name, _text(node, "doc"), size)
        self._with_props(schema, node, SCHEMA_RESERVED)
        self._named_aliases(schema, node)
        self._define(schema)
        return schema

    def _union(self, node: list[Any], space: str | None) -> Union:
        branches = []
        for item in node:  # a loop rather than a comprehension: one frame per level, not two
            work_budget.check()
            branches.append(self.parse(item, space))
        union = Union(branches)
        seen: set[str] = set()
        for branch in branches:
            if isinstance(branch, Union):
                raise InvalidAvro(f"Nested union: {_inline(union)}")
            if branch.union_key in seen:
                raise InvalidAvro(f"Duplicate in union:{branch.union_key}")
            seen.add(branch.union_key)
        return union


def _inline(schema: Schema) -> str:
    """Java's `Schema.toString()`, which its parse errors print."""
    return to_json(schema, known=set())
