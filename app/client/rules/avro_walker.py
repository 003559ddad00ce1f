"""Field walks over Avro records (dicts, lists and scalars as fastavro reads and writes them).

Built from the schema's JSON and that of the schemas it references, so named types resolve
as fastavro resolves them. A field's full name is its record's full name and the field's
(`ns.Person.ssn`), its inline tags the field's `confluent:tags`. A union value goes down the
branch its `(name, value)` tuple names, else the first branch that accepts it (as
Confluent's walk picks it); a null is a leaf like any other, so a rule can guard on it.

A record of Confluent's logical type `variant` (`{metadata: bytes, value: bytes}`) is walked
as a record, as Confluent's walk does; `with_variants` gives CEL its values as Variants.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterable

from app.client.rules.context import FieldTransform, FieldType, RuleContext
from app.client.rules.variant_codec import Variant, VariantError
from app.client.rules.walkers import settle

_PRIMITIVE_TYPES = {
    "null": FieldType.NULL, "boolean": FieldType.BOOLEAN, "int": FieldType.INT, "long": FieldType.LONG,
    "float": FieldType.FLOAT, "double": FieldType.DOUBLE, "bytes": FieldType.BYTES, "string": FieldType.STRING,
}


@dataclass(frozen=True)
class _Field:
    name: str
    full_name: str
    type: Any
    tags: frozenset[str]
    has_default: bool


@dataclass(frozen=True)
class _Record:
    full_name: str
    fields: tuple[_Field, ...]
    variant: bool = False  # of logical type `variant`


@dataclass(frozen=True)
class _Named:
    """An enum or fixed type: a leaf, with what validation needs."""

    kind: FieldType
    symbols: frozenset[str] = frozenset()
    size: int = 0


@dataclass(frozen=True)
class _Container:
    kind: FieldType  # ARRAY or MAP
    element: Any


class AvroWalker:
    """Walks records of one Avro schema; types are kept as `_Record`, `_Named`, `_Container`,
    lists (unions), primitive names (str) and references to named types (`_Ref`)."""

    def __init__(self, schema: Any, dependencies: Iterable[Any] = ()) -> None:
        self._names: dict[str, Any] = {}
        # Per rule tags and schema metadata: the fields worth entering (selected, or holding a
        # selected field), so that a rule on one tagged field does not visit every field.
        self._worth: dict[tuple[Any, ...], frozenset[str] | None] = {}
        for dependency in dependencies:
            self._normalize(dependency, "")
        self.root = self._normalize(schema, "")
        self._has_variants = any(isinstance(node, _Record) and node.variant for node in self._names.values())

    # ------------------------------------------------------------------ building
    def _normalize(self, node: Any, namespace: str) -> Any:
        if isinstance(node, str):
            if node in _PRIMITIVE_TYPES:
                return node
            full = node if "." in node or not namespace else f"{namespace}.{node}"
            return _Ref(full, self._names, node)
        if isinstance(node, list):
            return [self._normalize(branch, namespace) for branch in node]
        if not isinstance(node, dict):
            return "null"
        kind = node.get("type")
        if isinstance(kind, (list, dict)) or (isinstance(kind, str) and kind not in
                                              ("record", "error", "enum", "fixed", "array", "map")):
            return self._normalize(kind, namespace)
        if kind == "array":
            return _Container(FieldType.ARRAY, self._normalize(node.get("items"), namespace))
        if kind == "map":
            return _Container(FieldType.MAP, self._normalize(node.get("values"), namespace))
        name = str(node.get("name", ""))
        own = node.get("namespace")
        space = name.rsplit(".", 1)[0] if "." in name else (own if isinstance(own, str) else namespace)
        full = name if "." in name or not space else f"{space}.{name}"
        if kind == "enum":
            found: Any = _Named(FieldType.ENUM, frozenset(str(s) for s in node.get("symbols") or ()))
            self._names[full] = found
            return found
        if kind == "fixed":
            found = _Named(FieldType.FIXED, size=int(node.get("size") or 0))
            self._names[full] = found
            return found
        record_fields: list[_Field] = []
        record = _Record(full, ())
        self._names[full] = record  # placeholder first: a recursive field refers to it by name
        for item in node.get("fields") or ():
            tags = item.get("confluent:tags")
            field_name = str(item.get("name"))
            record_fields.append(_Field(field_name, f"{full}.{field_name}", self._normalize(item.get("type"), space),
                                        frozenset(str(t) for t in tags) if isinstance(tags, list) else frozenset(),
                                        "default" in item))
        is_variant = node.get("logicalType") == "variant" and _variant_shaped(record_fields)
        record = _Record(full, tuple(record_fields), is_variant)
        self._names[full] = record
        return record

    # ------------------------------------------------------------------ walking
    def walk(self, ctx: RuleContext, message: Any, transform: FieldTransform) -> Any:
        key = (ctx.rule.tags, ctx.target.metadata)
        if key not in self._worth:
            self._worth[key] = self._fields_worth_entering(ctx)
        return self._visit(ctx, self.root, message, transform, self._worth[key])

    def _fields_worth_entering(self, ctx: RuleContext) -> frozenset[str] | None:
        """The full names of the fields a rule with tags can reach (None: a rule without tags
        reaches every field)."""
        if not ctx.rule.tags:
            return None
        wanted = set(ctx.rule.tags)
        worth: set[str] = set()
        verdicts: dict[str, bool] = {}

        def reaches(node: Any) -> bool:
            node = _resolved(node)
            if isinstance(node, list):  # every branch is looked into (no short cut): each marks its fields
                return any([reaches(branch) for branch in node])
            if isinstance(node, _Container):
                return reaches(node.element)
            if not isinstance(node, _Record):
                return False
            if node.full_name in verdicts:
                return verdicts[node.full_name]
            verdicts[node.full_name] = False  # a recursive reference reaches nothing new
            found = False
            for field in node.fields:
                if not ctx.field_tags(field.full_name, field.tags).isdisjoint(wanted) or reaches(field.type):
                    worth.add(field.full_name)
                    found = True
            verdicts[node.full_name] = found
            return found

        reaches(self.root)
        return frozenset(worth)

    def _visit(self, ctx: RuleContext, node: Any, message: Any, transform: FieldTransform,
               worth: frozenset[str] | None) -> Any:
        node = _resolved(node)
        current = ctx.current_field()
        if current is not None:
            current.field_type = _type_of(node)
        if isinstance(node, list):
            branch, value = self._branch(node, message)
            if branch is None:
                return message
            changed = self._visit(ctx, branch, value, transform, worth)
            if isinstance(message, tuple) and len(message) == 2 and _accepts(branch, changed):
                return (message[0], changed)
            return changed
        if isinstance(node, _Container):
            if node.kind == FieldType.ARRAY:
                if not isinstance(message, list):
                    return message
                return [self._visit(ctx, node.element, item, transform, worth) for item in message]
            if not isinstance(message, dict):
                return message
            return {key: self._visit(ctx, node.element, value, transform, worth) for key, value in message.items()}
        if isinstance(node, _Record):
            if not isinstance(message, dict):
                return message
            out = message
            for field in node.fields:
                if field.name not in message or (worth is not None and field.full_name not in worth):
                    continue
                ctx.enter_field(message, field.full_name, field.name, _type_of(_resolved(field.type)), field.tags)
                try:
                    value = message[field.name]
                    changed = self._visit(ctx, field.type, value, transform, worth)
                finally:
                    ctx.exit_field()
                out = settle(ctx, message, out, field.name, field.full_name, value, changed)
            return out
        if current is not None and ctx.selects(current):
            return transform(ctx, current, message)
        return message

    # ------------------------------------------------------------------ variants
    def with_variants(self, message: Any) -> Any:
        """`message` with the value of each `variant` record as a Variant (copies made only
        where one is, and nothing walked for schemas without them)."""
        return self._variants(self.root, message) if self._has_variants else message

    def _variants(self, node: Any, message: Any) -> Any:
        node = _resolved(node)
        if isinstance(node, list):
            branch, value = self._branch(node, message)
            if branch is None:
                return message
            changed = self._variants(branch, value)
            return (message[0], changed) if value is not message else changed
        if isinstance(node, _Container):
            if node.kind == FieldType.ARRAY and isinstance(message, list):
                return [self._variants(node.element, item) for item in message]
            if node.kind == FieldType.MAP and isinstance(message, dict):
                return {key: self._variants(node.element, value) for key, value in message.items()}
            return message
        if not isinstance(node, _Record) or not isinstance(message, dict):
            return message
        if node.variant:
            return _as_variant(message)
        out = message
        for field in node.fields:
            if field.name in message:
                value = message[field.name]
                changed = self._variants(field.type, value)
                if changed is not value:
                    out = dict(message) if out is message else out
                    out[field.name] = changed
        return out

    def _branch(self, union: list[Any], message: Any) -> tuple[Any, Any]:
        if isinstance(message, tuple) and len(message) == 2 and isinstance(message[0], str):
            for exact in (True, False):
                for branch in union:
                    if _names_branch(_resolved(branch), message[0], exact):
                        return branch, message[1]
            return None, message
        for branch in union:
            if _accepts(branch, message):
                return branch, message
        return None, message


class _Ref:
    """A named type used by name; resolved at walk time, as records may be recursive."""

    def __init__(self, name: str, names: dict[str, Any], written: str) -> None:
        self.name, self.names, self.written = name, names, written

    def target(self) -> Any:
        # A short name inside a namespace may also name a type of the null namespace.
        return self.names.get(self.name) or self.names.get(self.written, "null")


def _variant_shaped(fields: list[_Field]) -> bool:
    """Two fields, `metadata` and `value`, both bytes (what VariantLogicalType accepts)."""
    return len(fields) == 2 and {field.name: field.type for field in fields} == {"metadata": "bytes", "value": "bytes"}


def _as_variant(record: dict[str, Any]) -> Any:
    """A variant record's Variant; None when it is empty (as CEL then has nothing to read), the
    record itself when its bytes are not a variant (`variant(...)` then says why)."""
    value, metadata = record.get("value"), record.get("metadata")
    if not isinstance(value, (bytes, bytearray)) or not isinstance(metadata, (bytes, bytearray)):
        return record
    if not metadata:
        return None
    try:
        return Variant(value, metadata)
    except VariantError:
        return record


def _resolved(node: Any) -> Any:
    return node.target() if isinstance(node, _Ref) else node


def _type_of(node: Any) -> FieldType:
    if isinstance(node, list):
        return FieldType.COMBINED
    if isinstance(node, _Record):
        return FieldType.RECORD
    if isinstance(node, (_Named, _Container)):
        return node.kind
    return _PRIMITIVE_TYPES.get(node, FieldType.NULL)


def _names_branch(node: Any, name: str, exact: bool) -> bool:
    if isinstance(node, str):
        return exact and node == name
    full = node.full_name if isinstance(node, _Record) else None
    if full is None:
        return False
    return full == name if exact else full.rsplit(".", 1)[-1] == name.rsplit(".", 1)[-1]


def _accepts(node: Any, value: Any) -> bool:
    """Whether `value` is a datum of `node`: the test that picks a union's branch."""
    node = _resolved(node)
    if isinstance(node, list):
        return any(_accepts(branch, value) for branch in node)
    if isinstance(node, _Record):
        return isinstance(value, dict) and all(
            _accepts(field.type, value[field.name]) if field.name in value else field.has_default
            for field in node.fields)
    if isinstance(node, _Container):
        if node.kind == FieldType.ARRAY:
            return isinstance(value, list) and all(_accepts(node.element, item) for item in value)
        return isinstance(value, dict) and all(_accepts(node.element, item) for item in value.values())
    if isinstance(node, _Named):
        if node.kind == FieldType.ENUM:
            return isinstance(value, str) and value in node.symbols
        return isinstance(value, bytes) and len(value) == node.size
    if node == "null":
        return value is None
    if node == "boolean":
        return isinstance(value, bool)
    if node in ("int", "long"):
        return isinstance(value, int) and not isinstance(value, bool)
    if node in ("float", "double"):
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    if node == "string":
        return isinstance(value, str)
    if node == "bytes":
        return isinstance(value, (bytes, bytearray))
    return False
