"""The schema model the comparison walks: one node per schema, classified as Confluent's is.

Confluent compares the schema objects its loader builds, not the JSON text, and the loader's
classification decides the outcome: `{"type": "string", "enum": [...]}` is an `allOf` of an
enum and a string, `{"maxLength": 3}` is a string schema that does not require a string,
`{"type": ["string", "null"]}` is an `anyOf`. The nodes here carry exactly what the
comparison reads, so a difference in classification cannot hide in the diff code.

Nodes are compared by identity (the comparison memoizes pairs and detects recursion by it),
hence `eq=False` everywhere.
"""
from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

def value_key(value: Any) -> str:
    """A comparison key for a JSON value (enum and const members, whole schemas): equal JSON
    gives equal keys, while `1`, `1.0` and `true` stay distinct, as they are to Confluent's
    comparison (Python's `==` would make them equal)."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"))


# A default that is absent, distinct from a default of JSON null.
NO_DEFAULT: Any = object()

# Combination criteria, spelled as they appear in pointers (`#/oneOf/0`).
ALL_OF = "allOf"
ANY_OF = "anyOf"
ONE_OF = "oneOf"


@dataclass(eq=False, slots=True)
class Node:
    """What every schema has: the annotations Confluent compares on any pair of one kind, and
    the keywords it does not compare (`unsupported`, keyword -> JSON value), which we compare
    verbatim so that a change to one fails closed. `source` is the JSON the node came from,
    for collapsing duplicate subschemas of a combination and for recognizing equal schemas
(None when synthesized); `has_refs` says whether a `$ref` sits anywhere inside it, in which
case equal JSON does not mean an equal schema; `source_key` caches the source's exact text
(see `schema_diff.same_source`)."""

    id: str | None = None
    title: str | None = None
    description: str | None = None
    default: Any = NO_DEFAULT
    unsupported: dict[str, Any] = field(default_factory=dict)
    source: Any = None
    has_refs: bool = False
    source_key: str | None = None

    @property
    def has_default(self) -> bool:
        return self.default is not NO_DEFAULT

    def source_text(self) -> str:
        """The source's exact JSON text, computed once (the model is kept per parsed schema,
        so a schema compared again and again serializes each of its subschemas once)."""
        if self.source_key is None:
            self.source_key = value_key(self.source)
        return self.source_key


@dataclass(eq=False, slots=True)
class EmptyNode(Node):
    """`{}` (or a schema of annotations only): accepts anything."""


@dataclass(eq=False, slots=True)
class TrueNode(EmptyNode):
    """The boolean schema `true`. A kind of its own (Confluent's `TrueSchema`), yet an empty
    schema wherever the rules ask "does it accept anything"."""


@dataclass(eq=False, slots=True)
class FalseNode(Node):
    """The boolean schema `false`: accepts nothing."""


@dataclass(eq=False, slots=True)
class BooleanNode(Node):
    """`type: boolean`."""


@dataclass(eq=False, slots=True)
class NullNode(Node):
    """`type: null`."""


@dataclass(eq=False, slots=True)
class StringNode(Node):
    min_length: int | None = None
    max_length: int | None = None
    pattern: str | None = None


@dataclass(eq=False, slots=True)
class NumberNode(Node):
    """`number` or `integer` (`integer` is a number node that requires integers)."""

    minimum: float | int | None = None
    maximum: float | int | None = None
    exclusive_minimum: float | int | None = None
    exclusive_maximum: float | int | None = None
    multiple_of: float | int | None = None
    integer: bool = False


@dataclass(eq=False, slots=True)
class ObjectNode(Node):
    """`additional` is False for `additionalProperties: false`; `additional_schema` holds a
    schema given for it (`true` counts as absent, as Confluent reads it); `unevaluated` is the
    2019-09+ `unevaluatedProperties` schema and `property_names` the draft 6+ `propertyNames`
    schema (None when absent)."""

    properties: dict[str, Node] = field(default_factory=dict)
    required: frozenset[str] = frozenset()
    additional: bool = True
    additional_schema: Node | None = None
    pattern_properties: list[tuple[str, Node]] = field(default_factory=list)
    property_dependencies: dict[str, set[str]] = field(default_factory=dict)
    schema_dependencies: dict[str, Node] = field(default_factory=dict)
    min_properties: int | None = None
    max_properties: int | None = None
    unevaluated: Node | None = None
    property_names: Node | None = None


@dataclass(eq=False, slots=True)
class ArrayNode(Node):
    """`all_items` is the one schema for every item; `item_schemas` the positional ones (a
    draft 4-7 `items` array, or 2020-12 `prefixItems`), None when there are none;
    `additional`/`additional_schema` the schema for items past them (`additionalItems`, or
    2020-12 `items` beside `prefixItems`)."""

    all_items: Node | None = None
    item_schemas: list[Node] | None = None
    additional: bool = True
    additional_schema: Node | None = None
    min_items: int | None = None
    max_items: int | None = None
    unique_items: bool = False
    min_contains: int | None = None
    max_contains: int | None = None
    unevaluated: Node | None = None


@dataclass(eq=False, slots=True)
class EnumNode(Node):
    """`values` holds a comparison key per allowed value (see `value_key`)."""

    values: frozenset[str] = frozenset()


@dataclass(eq=False, slots=True)
class ConstNode(Node):
    value: str = ""


@dataclass(eq=False, slots=True)
class CombinedNode(Node):
    """`allOf`, `anyOf`, `oneOf`, also the ones the loader synthesizes (several kinds of
    keywords in one schema make an `allOf`; a list of types makes an `anyOf`)."""

    criterion: str = ALL_OF
    subschemas: list[Node] = field(default_factory=list)


@dataclass(eq=False, slots=True)
class NotNode(Node):
    must_not: Node = field(default_factory=EmptyNode)


@dataclass(eq=False, slots=True)
class ConditionalNode(Node):
    """`if`/`then`/`else`: Confluent compares nothing inside; the keywords sit in
    `unsupported`, so a change there fails closed."""


@dataclass(eq=False, slots=True)
class RefNode(Node):
    """A `$ref`. `resolve` loads the target once; the comparison always looks through a
    reference to its target (recursive schemas come back to the same target node)."""

    ref: str = ""
    resolve: Callable[[], Node] | None = None
    _target: Node | None = None

    def target(self) -> Node:
        if self._target is None:
            assert self.resolve is not None
            self._target = self.resolve()
            # The resolver holds the loader, and so the parsed schema the model is cached
            # for: dropping it lets the model go when the schema does.
            self.resolve = None
        return self._target
