"""Field walks over JSON Schema records (decoded JSON), as Confluent's walk visits them.

Paths start at `$` and a property adds `.name` (`$.ssn`, `$.address.zip`): what metadata tag
patterns and `fullName` see. A property's inline tags are its own `confluent:tags`. The walk
follows `$ref`s (through the same `referencing` registry validation uses), `allOf` (every
branch), `oneOf` (the first branch the value is valid under) and `anyOf` (each such branch),
a list of types (the first the value is of), `items` and `properties`; only ENUM, STRING,
INT, DOUBLE and BOOLEAN leaves reach the transform. A property that is absent or null is
not visited.
"""
from __future__ import annotations

from typing import Any

from jsonschema import Draft7Validator
from jsonschema.validators import validator_for
from referencing import Registry, Resource
from referencing.jsonschema import DRAFT7

from app.client.rules.context import FieldTransform, FieldType, RuleContext
from app.client.rules.walkers import settle

_LEAVES = frozenset({FieldType.ENUM, FieldType.STRING, FieldType.INT, FieldType.DOUBLE, FieldType.BOOLEAN})
_JSON_TYPES = {
    "null": lambda v: v is None, "boolean": lambda v: isinstance(v, bool),
    "integer": lambda v: isinstance(v, int) and not isinstance(v, bool),
    "number": lambda v: isinstance(v, (int, float)) and not isinstance(v, bool),
    "string": lambda v: isinstance(v, str), "array": lambda v: isinstance(v, list),
    "object": lambda v: isinstance(v, dict),
}


def type_of(schema: Any) -> FieldType:
    if not isinstance(schema, dict):
        return FieldType.COMBINED
    kind = schema.get("type")
    if schema.get("const") is not None or schema.get("enum") is not None:
        return FieldType.ENUM
    if kind == "object":
        return FieldType.RECORD if schema.get("properties") else FieldType.MAP
    simple = {"array": FieldType.ARRAY, "string": FieldType.STRING, "integer": FieldType.INT,
              "number": FieldType.DOUBLE, "boolean": FieldType.BOOLEAN, "null": FieldType.NULL}
    if isinstance(kind, str) and kind in simple:
        return simple[kind]
    return FieldType.RECORD if schema.get("properties") is not None else FieldType.NULL


class JsonWalker:
    """Walks records of one JSON schema; `registry` resolves its `$ref`s."""

    def __init__(self, schema: Any, registry: Registry[Any] | None = None) -> None:
        self.schema = schema
        self.registry: Registry[Any] = registry if registry is not None else Registry()
        self._resolver = self.registry.resolver_with_root(Resource.from_contents(schema, default_specification=DRAFT7))

    def walk(self, ctx: RuleContext, message: Any, transform: FieldTransform) -> Any:
        return self._visit(ctx, self.schema, self._resolver, "$", message, transform)

    def _valid(self, schema: Any, resolver: Any, value: Any) -> Any:
        """`schema` (its `$ref` followed) when `value` is valid under it, else None."""
        if not isinstance(schema, dict):
            return None
        ref = schema.get("$ref")
        if ref is not None:
            resolved = resolver.lookup(ref)
            schema, resolver = resolved.contents, resolved.resolver
        cls = validator_for(schema, default=Draft7Validator)
        return (schema, resolver) if cls(schema, registry=self.registry, _resolver=resolver).is_valid(value) \
            else None

    def _visit(self, ctx: RuleContext, schema: Any, resolver: Any, path: str, message: Any,
               transform: FieldTransform) -> Any:
        if message is None or not isinstance(schema, dict):
            return message
        current = ctx.current_field()
        if current is not None:
            current.field_type = type_of(schema)
        kinds = schema.get("type")
        if isinstance(kinds, list) and kinds:
            for kind in kinds:
                check = _JSON_TYPES.get(kind)
                if check is not None and check(message):
                    return self._visit(ctx, {**schema, "type": kind}, resolver, path, message, transform)
        combined = [key for key in ("allOf", "oneOf", "anyOf") if isinstance(schema.get(key), list)]
        if combined:
            key = combined[0]
            for branch in schema[key]:
                if key == "allOf":
                    message = self._visit(ctx, branch, resolver, path, message, transform)
                    continue
                valid = self._valid(branch, resolver, message)
                if valid is not None:
                    message = self._visit(ctx, valid[0], valid[1], path, message, transform)
                    if key == "oneOf":
                        break
            message = self._properties(ctx, schema, resolver, path, message, transform)
            items = schema.get("items")
            if items is not None and isinstance(message, list):
                message = [self._visit(ctx, items, resolver, path, item, transform) for item in message]
            return message
        items = schema.get("items")
        if items is not None and isinstance(message, list):
            return [self._visit(ctx, items, resolver, path, item, transform) for item in message]
        ref = schema.get("$ref")
        if ref is not None:
            resolved = resolver.lookup(ref)
            return self._visit(ctx, resolved.contents, resolved.resolver, path, message, transform)
        kind = type_of(schema)
        if kind == FieldType.RECORD:
            return self._properties(ctx, schema, resolver, path, message, transform)
        if kind in _LEAVES and current is not None and ctx.selects(current):
            return transform(ctx, current, message)
        return message

    def _properties(self, ctx: RuleContext, schema: dict[str, Any], resolver: Any, path: str, message: Any,
                    transform: FieldTransform) -> Any:
        properties = schema.get("properties")
        if not isinstance(properties, dict) or not isinstance(message, dict):
            return message
        out = message
        for name, subschema in properties.items():
            if not isinstance(subschema, dict):
                continue
            full = f"{path}.{name}"
            tags = subschema.get("confluent:tags")
            ctx.enter_field(message, full, name, type_of(subschema),
                            frozenset(str(t) for t in tags) if isinstance(tags, list) else frozenset())
            try:
                value = message.get(name)
                if value is None:
                    continue
                changed = self._visit(ctx, subschema, resolver, full, value, transform)
            finally:
                ctx.exit_field()
            out = settle(ctx, message, out, name, full, value, changed)
        return out
