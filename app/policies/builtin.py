"""The built-in rules that read one schema: docs, names, required fields, sizes, namespaces,
types. `forbidden-changes`, which compares versions, is in `changes`.

Every rule reads the format-neutral elements (`view.elements_of`), so a format gains a rule
by implementing `PolicyView`; the messages name the element and what was expected.
"""
from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import Any

from app.formats import work_budget
from app.formats.base import ParsedSchema, SchemaElement
from app.policies.patterns import CASES, Matcher, PatternError, compile_pattern
from app.policies.rule import RuleContext, Violation
from app.policies.view import elements_of

NAMED_KINDS = ("record", "enum", "fixed")
ALL_FORMATS = frozenset({"AVRO", "JSON", "PROTOBUF"})
_NO_JSON = frozenset({"AVRO", "PROTOBUF"})  # JSON Schema has no namespaces


def _label(element: SchemaElement) -> str:
    """How a message names an element: fields and symbols by name, types by full name, in
    the format's own words where it has them (a Protobuf `message`, `enum value`)."""
    name = element.name if element.kind in ("field", "enumSymbol") else element.path
    return f'{element.noun or element.kind} "{name or "(root)"}"'


def _union_label(element: SchemaElement) -> str:
    return _label(element) if element.noun else f'union at "{element.path}"'


def _kind_phrase(element: SchemaElement) -> str:
    """`a primitive`, `an enum`."""
    kind = element.noun or element.kind
    return f"{'an' if kind[0] in 'aeiou' else 'a'} {kind}"


def namespaces(found: Sequence[SchemaElement]) -> list[tuple[SchemaElement, str | None]]:
    """Where each namespace is declared and what it is (None: no namespace): the document's
    one `namespace` element when it has one (Protobuf's package), else each named type."""
    declared = [e for e in found if e.kind == "namespace"]
    if declared:
        return [(e, e.name or None) for e in declared]
    return [(e, e.namespace) for e in found if e.kind in NAMED_KINDS]


def _violation(rule: str, element: SchemaElement, message: str) -> Violation:
    return Violation(rule, message, element.location, element.path)


class DocRequired:
    name = "doc-required"
    description = ("Records, fields, enums or fixed types must carry documentation (Avro doc, JSON Schema "
                   "description, Protobuf leading comments).")
    formats = ALL_FORMATS
    params_schema: dict[str, Any] = {
        "type": "object", "additionalProperties": False,
        "properties": {
            "on": {"type": "array", "uniqueItems": True,
                   "items": {"enum": ["record", "field", "enum", "fixed"]}},
            "minLength": {"type": "integer", "minimum": 1},
        },
    }

    def check(self, current_latest: ParsedSchema | None, proposed: ParsedSchema,
              params: Mapping[str, Any], ctx: RuleContext) -> Iterator[Violation]:
        kinds = set(params.get("on", ("record", "field")))
        least = params.get("minLength", 1)
        for element in elements_of(proposed):
            work_budget.check()
            if element.kind not in kinds:
                continue
            doc = (element.doc or "").strip()
            if not doc:
                yield _violation(self.name, element, f"{_label(element)} has no doc")
            elif len(doc) < least:
                yield _violation(self.name, element, f"{_label(element)} has a doc shorter than {least} characters")


class NamePattern:
    name = "name-pattern"
    description = ("Simple names of records, fields, enums, enum symbols, fixed types and namespaces "
                   "follow a case or a regex (Protobuf: messages, fields, enums, enum values, the package).")
    formats = ALL_FORMATS
    _KINDS = ("record", "field", "enum", "enumSymbol", "fixed", "namespace")
    params_schema: dict[str, Any] = {
        "type": "object", "additionalProperties": False,
        "properties": {kind: {"type": "string", "minLength": 1} for kind in _KINDS},
    }

    def validate(self, params: Mapping[str, Any]) -> str | None:
        """The semantic check a JSON Schema cannot make: every regex compiles."""
        for kind in self._KINDS:
            if kind in params:
                try:
                    compile_pattern(params[kind])
                except PatternError as exc:
                    return f'name-pattern: {kind} pattern "{params[kind]}" does not compile: {exc}'
        return None

    def check(self, current_latest: ParsedSchema | None, proposed: ParsedSchema,
              params: Mapping[str, Any], ctx: RuleContext) -> Iterator[Violation]:
        patterns: dict[str, tuple[str, Matcher]] = {}
        for kind, spec in params.items():
            try:
                patterns[kind] = (spec, compile_pattern(spec))
            except PatternError as exc:  # stored before RE2 checked patterns, or google-re2 is gone
                yield Violation(self.name, f'{kind} pattern "{spec}" cannot be checked: {exc}', "", "")
        found = elements_of(proposed)
        for element in found:
            work_budget.check()
            wanted = patterns.get(element.kind) if element.kind != "namespace" else None
            if wanted is not None and not wanted[1].fullmatch(element.name):
                yield _violation(self.name, element,
                                 f'{element.noun or element.kind} "{element.name}" does not match {wanted[0]}')
        if "namespace" in patterns:
            spec, pattern = patterns["namespace"]
            for element, space in namespaces(found):
                work_budget.check()
                # A case applies to each dotted part; a regex to the whole namespace.
                parts = space.split(".") if space and spec in CASES else [space]
                if space and not all(pattern.fullmatch(part) for part in parts):
                    noun = element.noun if element.kind == "namespace" else "namespace"
                    yield _violation(self.name, element, f'{noun} "{space}" does not match {spec}')


class RequiredFields:
    name = "required-fields"
    description = ("The top-level record (Protobuf: the first message) must have the listed fields "
                   "(and types, logical types by name).")
    formats = ALL_FORMATS
    params_schema: dict[str, Any] = {
        "type": "object", "additionalProperties": False, "required": ["fields"],
        "properties": {"fields": {"type": "array", "items": {
            "type": "object", "additionalProperties": False, "required": ["name"],
            "properties": {"name": {"type": "string", "minLength": 1}, "type": {"type": "string", "minLength": 1}},
        }}},
    }

    def check(self, current_latest: ParsedSchema | None, proposed: ParsedSchema,
              params: Mapping[str, Any], ctx: RuleContext) -> Iterator[Violation]:
        found = elements_of(proposed)
        root = found[0] if found else None  # a JSON Schema of `true`, `{}` or a `$ref` has none
        if root is None or root.kind != "record":
            what = f"is {_kind_phrase(root)}, not" if root is not None else "is not"
            yield Violation(self.name, f"schema {what} a record with the required fields")
            return
        fields = {e.name: e for e in found if e.kind == "field" and e.record == root.path}
        for wanted in params["fields"]:
            field = fields.get(wanted["name"])
            if field is None:
                yield _violation(self.name, root, f'{root.noun or root.kind} "{root.path}" has no field "{wanted["name"]}"')
            elif "type" in wanted and wanted["type"] not in (field.type, field.logical):
                shown = field.logical or field.type
                yield _violation(self.name, field, f'field "{field.name}" is of type {shown}, not {wanted["type"]}')


class MaxSize:
    name = "max-size"
    description = ("Limits on canonical text size, fields over all records, record nesting depth, "
                   "enum symbols, union branches (Protobuf: oneof members).")
    formats = ALL_FORMATS
    _LIMITS = ("bytes", "fields", "depth", "enumSymbols", "unionBranches")
    params_schema: dict[str, Any] = {
        "type": "object", "additionalProperties": False,
        "properties": {limit: {"type": "integer", "minimum": 0} for limit in _LIMITS},
    }

    def check(self, current_latest: ParsedSchema | None, proposed: ParsedSchema,
              params: Mapping[str, Any], ctx: RuleContext) -> Iterator[Violation]:
        found = elements_of(proposed)
        if "bytes" in params:
            size = len(proposed.canonical.encode())
            if size > params["bytes"]:
                yield Violation(self.name, f"schema is {size} bytes, over the limit of {params['bytes']}")
        if "fields" in params:
            count = sum(1 for e in found if e.kind == "field")
            if count > params["fields"]:
                yield Violation(self.name, f"schema has {count} fields, over the limit of {params['fields']}")
        if "depth" in params and found:
            deepest = max(found, key=lambda e: e.depth)
            if deepest.depth > params["depth"]:
                yield _violation(self.name, deepest,
                                 f"{_label(deepest)} is nested {deepest.depth} records deep, "
                                 f"over the limit of {params['depth']}")
        for kind, limit, what in (("enum", "enumSymbols", "symbols"), ("union", "unionBranches", "branches")):
            if limit in params:
                for element in found:
                    work_budget.check()
                    if element.kind == kind and element.size > params[limit]:
                        shown = _label(element) if kind == "enum" else _union_label(element)
                        yield _violation(self.name, element,
                                         f"{shown} has {element.size} {what}, over the limit of {params[limit]}")


class NamespacePrefix:
    name = "namespace-prefix"
    description = ("Every named type's namespace (Protobuf: the package) equals one of the prefixes or "
                   "extends it at a dot.")
    formats = _NO_JSON
    params_schema: dict[str, Any] = {
        "type": "object", "additionalProperties": False, "required": ["prefixes"],
        "properties": {
            "prefixes": {"type": "array", "minItems": 1, "items": {"type": "string", "minLength": 1}},
            "require": {"type": "boolean"},
        },
    }

    def check(self, current_latest: ParsedSchema | None, proposed: ParsedSchema,
              params: Mapping[str, Any], ctx: RuleContext) -> Iterator[Violation]:
        prefixes = params["prefixes"]
        shown = ", ".join(prefixes)
        for element, space in namespaces(elements_of(proposed)):
            work_budget.check()
            declared = element.kind == "namespace"
            if space is None:
                if params.get("require", True):
                    what = f"schema has no {element.noun}" if declared else f"{_label(element)} has no namespace"
                    yield _violation(self.name, element, f"{what}, expected under {shown}")
            elif not any(space == p or space.startswith(p + ".") for p in prefixes):
                what = f'{element.noun} "{space}"' if declared else f'{_label(element)} namespace "{space}"'
                yield _violation(self.name, element, f"{what} is not under {shown}")


class ForbiddenTypes:
    name = "forbidden-types"
    description = ("Types or logical types that may not be used (float, bytes, map, fixed, uuid...), "
                   "and a union size limit.")
    formats = ALL_FORMATS
    params_schema: dict[str, Any] = {
        "type": "object", "additionalProperties": False,
        "properties": {
            "types": {"type": "array", "items": {"type": "string", "minLength": 1}},
            "maxUnionBranches": {"type": "integer", "minimum": 1},
        },
    }

    def check(self, current_latest: ParsedSchema | None, proposed: ParsedSchema,
              params: Mapping[str, Any], ctx: RuleContext) -> Iterator[Violation]:
        banned = set(params.get("types", ()))
        branches = params.get("maxUnionBranches")
        for element in elements_of(proposed):
            work_budget.check()
            if element.kind in ("field", "enumSymbol", "namespace"):
                continue
            used = element.logical if element.logical in banned else None
            if used is None and (element.kind if element.kind != "primitive" else element.name) in banned:
                used = element.kind if element.kind != "primitive" else element.name
            if used is not None:
                where = f' at "{element.path}"' if element.path else ""
                yield _violation(self.name, element, f'type "{used}"{where} is forbidden')
            if branches is not None and element.kind == "union" and element.size > branches:
                yield _violation(self.name, element,
                                 f"{_union_label(element)} has {element.size} branches, over the limit of {branches}")


def shape_rules() -> Iterable[Any]:
    return (DocRequired(), NamePattern(), RequiredFields(), MaxSize(), NamespacePrefix(), ForbiddenTypes())
