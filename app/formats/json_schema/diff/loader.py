"""JSON Schema documents -> the comparison's nodes, classified as Confluent's loaders do.

Confluent loads drafts 4, 6 and 7 with everit's loader and 2019-09/2020-12 with json-sKema
translated into everit's model; the two agree on the shape that matters: the keywords of one
schema are grouped by the kind of value they constrain (string, number, object, array), a
`type` claims the keywords of its kind, and when more than one kind of schema results
(`enum` beside `type`, `allOf` beside `properties`, ...) they become a synthetic `allOf`.
The drafts differ in a few keywords, noted where they are read.

`$ref`s become `RefNode`s resolved on first use, once per target, so that a recursive schema
is a finite graph the comparison can walk with cycle detection.
"""
from __future__ import annotations

from typing import Any
from weakref import WeakKeyDictionary

from referencing.exceptions import Unresolvable
from referencing.jsonschema import DRAFT3, DRAFT4, DRAFT201909, DRAFT202012

from app.formats.json_schema.model import JsonNative

from .refusals import refusal
from .nodes import (
    ALL_OF,
    ANY_OF,
    ArrayNode,
    BooleanNode,
    CombinedNode,
    ConditionalNode,
    ConstNode,
    EmptyNode,
    EnumNode,
    FalseNode,
    Node,
    NotNode,
    NullNode,
    NumberNode,
    ObjectNode,
    RefNode,
    StringNode,
    TrueNode,
    value_key,
)

# Subschemas nested beyond this in one document are refused rather than risking the
# interpreter's recursion limit (four frames a level). The format already refuses documents
# nested past 40 when they are registered; this bound guards the checker on its own.
MAX_DEPTH = 64

# Which keywords make a schema of each kind (sets: they are intersected with a schema's keys).
STRING_KEYWORDS = frozenset({"minLength", "maxLength", "pattern", "format"})
NUMBER_KEYWORDS = frozenset({"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf"})
_OBJECT_V4 = frozenset({"properties", "required", "minProperties", "maxProperties", "dependencies",
                        "patternProperties", "additionalProperties"})
_OBJECT_V6 = _OBJECT_V4 | {"propertyNames"}
_OBJECT_MODERN = _OBJECT_V6 | {"dependentRequired", "dependentSchemas", "unevaluatedProperties"}
_ARRAY_V4 = frozenset({"items", "additionalItems", "minItems", "maxItems", "uniqueItems"})
_ARRAY_V6 = _ARRAY_V4 | {"contains"}
_ARRAY_MODERN = _ARRAY_V6 | {"prefixItems", "minContains", "maxContains", "unevaluatedItems"}
_COMBINERS = ("allOf", "anyOf", "oneOf")
_CONDITIONAL = frozenset({"if", "then", "else"})
# What each kind claims from a schema when it is built (the uncompared ones stay unclaimed).
_STRING_CLAIMS = frozenset({"minLength", "maxLength", "pattern"})
_NUMBER_CLAIMS = frozenset({"minimum", "maximum", "multipleOf"})
_EXCLUSIVE_BOUNDS = frozenset({"exclusiveMinimum", "exclusiveMaximum"})

# Keywords that carry no constraint on data: ignored, as Confluent ignores them. Besides the
# specification's annotations, the code-generation hints of jsonschema2pojo, which Confluent's
# Java serializers read (`javaType` is in its documentation's examples).
_ANNOTATIONS = frozenset({
    "$schema", "$id", "id", "$anchor", "$dynamicAnchor", "$recursiveAnchor", "$comment",
    "$vocabulary", "definitions", "$defs", "examples", "deprecated", "readOnly", "writeOnly",
    "contentEncoding", "contentMediaType", "title", "description", "default",
    "javaType", "javaName", "javaInterfaces", "javaEnumNames", "existingJavaType",
})

# Keywords of an object or array schema that no rule compares (Confluent reads them and
# ignores them): left unconsumed, so that they land in `unsupported` and fail closed.
_UNCOMPARED = frozenset({"contains"})


def is_extension(keyword: str) -> bool:
    """Vendor annotations (`connect.type`, `confluent:tags`, `x-...`): Kafka Connect and the
    registry's own tooling change them freely between versions, and they constrain no data."""
    return "." in keyword or ":" in keyword or keyword.startswith("x-")


# The model of each parsed schema, built on its first comparison: the registry keeps a parsed
# schema (and so its JsonNative) cached and compares it again and again, while the model is
# immutable once built. Weak keys, so a schema dropped from the registry's cache drops its
# model too.
_MODELS: WeakKeyDictionary[JsonNative, Node] = WeakKeyDictionary()


def model_of(native: JsonNative) -> Node:
    """The checker's model of `native`, built once (two threads racing may both build it;
    either result is equal and the last one stays)."""
    model = _MODELS.get(native)
    if model is None:
        model = _MODELS[native] = SchemaLoader(native).root()
    return model


class SchemaLoader:
    """Loads one schema (the original or the update) with its references.

    One loader per `JsonNative`: it caches nodes by the identity of the JSON they came from,
    which is what makes every `$ref` to one definition the same node.
    """

    def __init__(self, native: JsonNative) -> None:
        self.native = native
        specification = native.specification
        self.modern = specification in (DRAFT201909, DRAFT202012)
        self.draft4 = specification in (DRAFT3, DRAFT4)
        self.draft6_or_later = not self.draft4
        self.id_keyword = "id" if self.draft4 else "$id"
        if self.modern:
            self.object_keywords, self.array_keywords = _OBJECT_MODERN, _ARRAY_MODERN
        elif self.draft4:
            self.object_keywords, self.array_keywords = _OBJECT_V4, _ARRAY_V4
        else:
            self.object_keywords, self.array_keywords = _OBJECT_V6, _ARRAY_V6
        self._cache: dict[int, Node] = {}
        self._pending: list[RefNode] = []
        self._refs = 0  # references made so far, to tell which subtrees hold one

    def root(self) -> Node:
        """The root node, with every reference reachable from it resolved.

        References are resolved here, in a loop, rather than when the comparison first
        follows one: loading a referenced subtree recurses, and doing it from the bottom of a
        deep comparison would stack the two recursions.
        """
        node = self.load(self.native.document, self.native.resolver(), 0)
        while self._pending:
            self._pending.pop().target()
        return node

    def load(self, schema: Any, resolver: Any, depth: int) -> Node:
        """The node for `schema` (a dict or a boolean), found in the document `resolver` is
        positioned in."""
        if depth > MAX_DEPTH:
            raise refusal(f"Schema is nested more than {MAX_DEPTH} levels deep (subschemas)")
        if schema is True:
            return TrueNode(source=True)
        if schema is False:
            return FalseNode(source=False)
        if not isinstance(schema, dict):
            raise refusal(f"A schema must be an object or a boolean, not {value_key(schema)}")
        cached = self._cache.get(id(schema))
        if cached is not None:
            self._refs += cached.has_refs
            return cached
        refs_before = self._refs
        node = self._load_object(schema, self._enter(schema, resolver), depth + 1)
        node.has_refs = self._refs != refs_before
        self._cache[id(schema)] = node
        return node

    def _enter(self, schema: dict[str, Any], resolver: Any) -> Any:
        """A subschema with its own `$id` is a new base for the `$ref`s inside it."""
        if isinstance(schema.get(self.id_keyword), str):
            try:
                return resolver.in_subresource(self.native.specification.create_resource(schema))
            except Exception:  # noqa: BLE001 - an unusable $id keeps the enclosing base
                return resolver
        return resolver

    # ------------------------------------------------------------------ one schema object
    def _load_object(self, schema: dict[str, Any], resolver: Any, depth: int) -> Node:
        if "$ref" in schema and (not self.modern or not self._has_siblings(schema)):
            # Drafts 4-7 ignore every keyword beside `$ref` (annotations still count).
            node: Node = self._reference(schema, resolver)
        else:
            parts, consumed = self._extract(schema, resolver, depth)
            if not parts:
                node = EmptyNode()
            elif len(parts) == 1:
                node = parts[0]
            else:
                node = CombinedNode(criterion=ALL_OF, subschemas=parts)
            if isinstance(node, ArrayNode) and not self.modern:
                # Draft 7 knows no minContains/maxContains, yet Confluent compares them when
                # they sit on an array schema.
                consumed |= {"minContains", "maxContains"}
                node.min_contains = _int_or_none(schema.get("minContains"))
                node.max_contains = _int_or_none(schema.get("maxContains"))
            node.unsupported = self._unsupported(schema, consumed)
        if not self.modern:
            # json-sKema treats `$id` as a base URI only, so 2019-09+ never reports ID_CHANGED.
            node.id = _str_or_none(schema.get(self.id_keyword))
        node.title = _str_or_none(schema.get("title"))
        node.description = _str_or_none(schema.get("description"))
        if "default" in schema:
            node.default = schema["default"]
        node.source = schema
        return node

    def _has_siblings(self, schema: dict[str, Any]) -> bool:
        return any(k != "$ref" and k not in _ANNOTATIONS and not is_extension(k) for k in schema)

    def _unsupported(self, schema: dict[str, Any], consumed: set[str]) -> dict[str, Any]:
        """The keywords no comparison reads (unknown ones, and known ones the rules leave
        alone, such as `format` or draft 4's boolean `exclusiveMaximum`)."""
        left = schema.keys() - consumed - _ANNOTATIONS
        return {k: schema[k] for k in left if not is_extension(k)} if left else {}

    def _reference(self, schema: dict[str, Any], resolver: Any) -> RefNode:
        ref = schema["$ref"]
        if not isinstance(ref, str):
            raise refusal(f"$ref must be a string, not {value_key(ref)}")

        def resolve() -> Node:
            resolved = self._lookup(resolver, ref)
            return self.load(resolved.contents, resolved.resolver, 0)

        node = RefNode(ref=ref, resolve=resolve)
        self._pending.append(node)
        self._refs += 1
        return node

    def _lookup(self, resolver: Any, ref: str) -> Any:
        try:
            return resolver.lookup(ref)
        except Unresolvable:
            # Confluent also finds `#/$defs/X` among `definitions` (and the reverse is
            # plain JSON pointer resolution).
            if "#/$defs/" in ref:
                try:
                    return resolver.lookup(ref.replace("#/$defs/", "#/definitions/", 1))
                except Unresolvable:
                    pass
            raise refusal(f"Unresolved $ref '{ref}'") from None

    def _extract(
        self, schema: dict[str, Any], resolver: Any, depth: int
    ) -> tuple[list[Node], set[str]]:
        """The schemas one object makes, in Confluent's order, and the keywords they used."""
        parts: list[Node] = []
        consumed: set[str] = {"$ref"} if "$ref" in schema else set()
        if "$ref" in schema:
            parts.append(self._reference(schema, resolver))
        if "enum" in schema and isinstance(schema["enum"], list):
            parts.append(EnumNode(values=frozenset(value_key(v) for v in schema["enum"])))
            consumed.add("enum")
        for keyword in _COMBINERS:
            if isinstance(schema.get(keyword), list):
                subschemas = [self.load(s, resolver, depth) for s in schema[keyword]]
                parts.append(CombinedNode(criterion=keyword, subschemas=subschemas))
                consumed.add(keyword)
        if "not" in schema:
            parts.append(NotNode(must_not=self.load(schema["not"], resolver, depth)))
            consumed.add("not")
        if "const" in schema and not self.draft4:
            parts.append(ConstNode(value=value_key(schema["const"])))
            consumed.add("const")
        kinds = self._typed(schema, resolver, depth, parts, consumed)
        keys = schema.keys()
        if "array" not in kinds and keys & self.array_keywords:
            parts.append(self._array(schema, resolver, depth, consumed))
        if "object" not in kinds:
            present = keys & self.object_keywords
            if self._makes_object(schema, present):
                parts.append(self._object(schema, resolver, depth, consumed))
            else:
                consumed |= present  # empty `properties` of 2019-09+: no constraint at all
        if "number" not in kinds and keys & NUMBER_KEYWORDS:
            parts.append(self._number(schema, False, consumed))
        if "string" not in kinds and keys & STRING_KEYWORDS:
            parts.append(self._string(schema, consumed))
        if self.draft6_or_later and keys & _CONDITIONAL:
            parts.append(ConditionalNode())
        return parts, consumed

    def _makes_object(self, schema: dict[str, Any], present: set[str]) -> bool:
        """Whether the object keywords `present` make an object schema. In 2019-09/2020-12 an
        empty `properties`/`patternProperties` contributes nothing (json-sKema makes one schema
        per entry), so `{"properties": {}}` stays the empty schema there."""
        if not self.modern:
            return bool(present)
        return any(schema[k] != {} or k not in ("properties", "patternProperties") for k in present)

    def _typed(
        self, schema: dict[str, Any], resolver: Any, depth: int, parts: list[Node], consumed: set[str]
    ) -> set[str]:
        """The node(s) `type` asks for; returns the kinds whose keywords `type` claimed."""
        declared = schema.get("type")
        if declared is None:
            return set()
        consumed.add("type")
        names = declared if isinstance(declared, list) else [declared]
        typed = [self._of_type(name, schema, resolver, depth, consumed) for name in names]
        if isinstance(declared, list):
            parts.append(CombinedNode(criterion=ANY_OF, subschemas=typed))
        else:
            parts.append(typed[0])
        return {"number" if n == "integer" else n for n in names if isinstance(n, str)}

    def _of_type(self, name: Any, schema: dict[str, Any], resolver: Any, depth: int,
                 consumed: set[str]) -> Node:
        if name == "string":
            return self._string(schema, consumed)
        if name in ("number", "integer"):
            return self._number(schema, name == "integer", consumed)
        if name == "object":
            return self._object(schema, resolver, depth, consumed)
        if name == "array":
            return self._array(schema, resolver, depth, consumed)
        if name == "boolean":
            return BooleanNode()
        if name == "null":
            return NullNode()
        raise refusal(f"unknown type: [{name}]")

    # ------------------------------------------------------------------ the kinds
    def _string(self, schema: dict[str, Any], consumed: set[str]) -> StringNode:
        consumed |= schema.keys() & _STRING_CLAIMS
        pattern = schema.get("pattern")
        return StringNode(
            min_length=_int_or_none(schema.get("minLength")),
            max_length=_int_or_none(schema.get("maxLength")),
            pattern=pattern if isinstance(pattern, str) else None,
        )

    def _number(self, schema: dict[str, Any], integer: bool, consumed: set[str]) -> NumberNode:
        consumed |= schema.keys() & _NUMBER_CLAIMS
        node = NumberNode(
            minimum=_number_or_none(schema.get("minimum")),
            maximum=_number_or_none(schema.get("maximum")),
            multiple_of=_number_or_none(schema.get("multipleOf")),
            integer=integer,
        )
        if not self.draft4:
            # Draft 4's boolean exclusive flags are not compared by Confluent: they stay
            # unconsumed, so a change to one fails closed.
            consumed |= schema.keys() & _EXCLUSIVE_BOUNDS
            node.exclusive_minimum = _number_or_none(schema.get("exclusiveMinimum"))
            node.exclusive_maximum = _number_or_none(schema.get("exclusiveMaximum"))
        return node

    def _object(self, schema: dict[str, Any], resolver: Any, depth: int, consumed: set[str]) -> ObjectNode:
        consumed |= (schema.keys() & self.object_keywords) - _UNCOMPARED
        node = ObjectNode(
            min_properties=_int_or_none(schema.get("minProperties")),
            max_properties=_int_or_none(schema.get("maxProperties")),
        )
        properties = schema.get("properties")
        if isinstance(properties, dict):
            node.properties = {name: self.load(sub, resolver, depth) for name, sub in properties.items()}
        required = schema.get("required")
        if isinstance(required, list):
            node.required = frozenset(name for name in required if isinstance(name, str))
        additional = schema.get("additionalProperties")
        if additional is False:
            node.additional = False
        elif isinstance(additional, dict):
            node.additional_schema = self.load(additional, resolver, depth)
        patterns = schema.get("patternProperties")
        if isinstance(patterns, dict):
            node.pattern_properties = [(p, self.load(s, resolver, depth)) for p, s in patterns.items()]
        for keyword in ("dependencies", "dependentRequired", "dependentSchemas"):
            dependencies = schema.get(keyword)
            if not isinstance(dependencies, dict):
                continue
            for name, dependency in dependencies.items():
                if isinstance(dependency, list):
                    node.property_dependencies.setdefault(name, set()).update(
                        d for d in dependency if isinstance(d, str))
                else:
                    node.schema_dependencies[name] = self.load(dependency, resolver, depth)
        if self.modern and "unevaluatedProperties" in schema:
            node.unevaluated = self.load(schema["unevaluatedProperties"], resolver, depth)
        if self.draft6_or_later and "propertyNames" in schema:
            node.property_names = self.load(schema["propertyNames"], resolver, depth)
        return node

    def _array(self, schema: dict[str, Any], resolver: Any, depth: int, consumed: set[str]) -> ArrayNode:
        consumed |= (schema.keys() & self.array_keywords) - _UNCOMPARED
        node = ArrayNode(
            min_items=_int_or_none(schema.get("minItems")),
            max_items=_int_or_none(schema.get("maxItems")),
            unique_items=schema.get("uniqueItems") is True,
        )
        items = schema.get("items")
        if self.modern:
            # 2019-09 still spells positional items as an `items` array; 2020-12 as prefixItems.
            prefix = schema.get("prefixItems", items if isinstance(items, list) else None)
            if isinstance(prefix, list):
                node.item_schemas = [self.load(s, resolver, depth) for s in prefix]
            if items is False:
                node.additional = False
            elif isinstance(items, dict):
                loaded = self.load(items, resolver, depth)
                if node.item_schemas:
                    node.additional_schema = loaded
                else:
                    node.all_items = loaded
            if "contains" in schema:
                node.min_contains = _int_or_none(schema.get("minContains", 1))
                node.max_contains = _int_or_none(schema.get("maxContains"))
            if "unevaluatedItems" in schema:
                node.unevaluated = self.load(schema["unevaluatedItems"], resolver, depth)
        else:
            if isinstance(items, list):
                node.item_schemas = [self.load(s, resolver, depth) for s in items]
            elif items is not None and (isinstance(items, dict) or self.draft6_or_later):
                node.all_items = self.load(items, resolver, depth)
        if not self.modern or "additionalItems" in schema:
            # 2020-12 dropped additionalItems; Confluent still reads it beside prefixItems.
            additional = schema.get("additionalItems")
            if additional is False:
                node.additional = False
            elif isinstance(additional, dict):
                node.additional_schema = self.load(additional, resolver, depth)
        return node


def _int_or_none(value: Any) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return None


def _number_or_none(value: Any) -> float | int | None:
    return value if isinstance(value, (int, float)) and not isinstance(value, bool) else None


def _str_or_none(value: Any) -> str | None:
    return value if isinstance(value, str) else None
