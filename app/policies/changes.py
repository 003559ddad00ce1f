"""`forbidden-changes`: changes the compatibility level may allow but a team does not.

Versions are compared element by element: named types by full name (or an alias naming the
old one), fields within a record by name, or through an alias naming the old field, or
(Protobuf) by wire number (then the field was renamed). Older versions are read as stored;
a Protobuf version's stored text keeps no comments, so DOC_REMOVED never fires for it. A violation about something the proposed schema no longer has (a
removed field or symbol) points into the older version and carries its number.
"""
from __future__ import annotations

import json
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from app.formats import work_budget
from app.formats.base import ParsedSchema, SchemaElement
from app.policies.rule import RuleContext, Violation
from app.policies.view import elements_of

CHANGES = (
    "FIELD_REMOVED", "FIELD_ADDED_WITHOUT_DEFAULT", "FIELD_TYPE_CHANGED", "FIELD_RENAMED",
    "FIELD_DEFAULT_CHANGED", "ENUM_SYMBOL_REMOVED", "ENUM_SYMBOL_ADDED", "NAME_CHANGED",
    "NAMESPACE_CHANGED", "DOC_REMOVED", "LOGICAL_TYPE_CHANGED",
)
_TYPES = ("record", "enum", "fixed")
# The root of a schema without elements (JSON Schema's `true`, `{}`, a lone `$ref`): of no kind
# a comparison looks at.
_NOTHING = SchemaElement("none", "", "", "")


class _Index:
    """One version's elements, looked up the ways the comparison needs."""

    def __init__(self, found: Sequence[SchemaElement]) -> None:
        self.root = found[0] if found else _NOTHING
        declared = next((e for e in found if e.kind == "namespace"), None)
        self.namespace_noun = declared.noun if declared is not None else "namespace"
        self.types = {e.path: e for e in found if e.kind in _TYPES}
        self.fields: dict[str, dict[str, SchemaElement]] = {}
        self.symbols: dict[str, dict[str, SchemaElement]] = {}
        for e in found:
            if e.kind == "field":
                self.fields.setdefault(e.record, {})[e.name] = e
            elif e.kind == "enumSymbol":
                self.symbols.setdefault(e.record, {})[e.name] = e

    def old_type(self, new: SchemaElement) -> SchemaElement | None:
        found = self.types.get(new.path)
        if found is None:
            found = next((self.types[a] for a in new.aliases if a in self.types), None)
        return found


class ForbiddenChanges:
    name = "forbidden-changes"
    description = "Changes refused between versions, against the latest or all live versions."
    formats = frozenset({"AVRO", "JSON", "PROTOBUF"})  # JSON Schema: properties by name, no aliases
    params_schema: dict[str, Any] = {
        "type": "object", "additionalProperties": False, "required": ["changes"],
        "properties": {
            "changes": {"type": "array", "uniqueItems": True, "items": {"enum": list(CHANGES)}},
            "against": {"enum": ["latest", "all"]},
        },
    }

    def check(self, current_latest: ParsedSchema | None, proposed: ParsedSchema,
              params: Mapping[str, Any], ctx: RuleContext) -> Iterator[Violation]:
        if current_latest is None:
            return
        if params.get("against", "latest") == "all" and ctx.versions:
            olders = list(ctx.versions)
        else:
            number = next((v for v, s in reversed(ctx.versions) if s is current_latest), None)
            if number is None and ctx.versions:
                number = ctx.versions[-1][0]
            olders = [(number, current_latest)]
        wanted = frozenset(params["changes"])
        new = _Index(elements_of(proposed))
        reported: set[tuple[str, str, str]] = set()
        for version, older in olders:
            work_budget.check()
            if older.schema_type != proposed.schema_type:
                continue
            for found in _compare(_Index(elements_of(older, as_stored=True)), new, wanted, version):
                key = (found.message, found.location, str(found.version))
                if key not in reported:
                    reported.add(key)
                    yield found


def _compare(old: _Index, new: _Index, wanted: frozenset[str], version: int | None) -> Iterator[Violation]:
    rule = ForbiddenChanges.name
    if "NAME_CHANGED" in wanted and old.root.kind in _TYPES and old.root.name != new.root.name:
        yield Violation(rule, f'{new.root.noun or new.root.kind} name changed from "{old.root.name}" to "{new.root.name}"',
                        "", new.root.path)
    if "NAMESPACE_CHANGED" in wanted and old.root.kind in _TYPES and old.root.namespace != new.root.namespace:
        yield Violation(rule, f'{new.namespace_noun} changed from "{old.root.namespace or ""}" '
                        f'to "{new.root.namespace or ""}"',
                        "", new.root.path)
    for path, element in new.types.items():
        before = old.types.get(path) or (old.root if element is new.root else None) or old.old_type(element)
        if before is None or before.kind != element.kind:
            continue
        if "DOC_REMOVED" in wanted and before.doc and not element.doc:
            yield Violation(rule, f'{element.kind} "{path}" lost its doc', element.location, path)
        if element.kind == "record":
            yield from _fields(old.fields.get(before.path, {}), new.fields.get(path, {}), wanted, version)
        elif element.kind == "enum":
            was, now = old.symbols.get(before.path, {}), new.symbols.get(path, {})
            if "ENUM_SYMBOL_REMOVED" in wanted:
                for name, symbol in was.items():
                    if name not in now:
                        yield Violation(rule, f'enum "{path}" lost symbol "{name}"', symbol.location,
                                        symbol.path, version=version)
            if "ENUM_SYMBOL_ADDED" in wanted:
                for name, symbol in now.items():
                    if name not in was:
                        yield Violation(rule, f'enum "{path}" gained symbol "{name}"', symbol.location, symbol.path)


def _fields(was: dict[str, SchemaElement], now: dict[str, SchemaElement], wanted: frozenset[str],
            version: int | None) -> Iterator[Violation]:
    rule = ForbiddenChanges.name
    matched: set[str] = set()
    for name, field in now.items():
        before = was.get(name)
        if before is None:
            before = next((was[a] for a in field.aliases if a in was), None) or _same_number(was, now, field)
            if before is not None and "FIELD_RENAMED" in wanted:
                yield Violation(rule, f'field "{before.name}" was renamed to "{name}"', field.location, field.path)
        if before is None:
            if "FIELD_ADDED_WITHOUT_DEFAULT" in wanted and not field.has_default:
                yield Violation(rule, f'field "{name}" was added without a default', field.location, field.path)
            continue
        matched.add(before.name)
        if "FIELD_TYPE_CHANGED" in wanted and before.type != field.type:
            yield Violation(rule, f'field "{name}" changed type from {before.type} to {field.type}',
                            field.location, field.path)
        if "LOGICAL_TYPE_CHANGED" in wanted and before.logical != field.logical:
            yield Violation(rule, f'field "{name}" changed logical type from {before.logical or "none"} '
                            f'to {field.logical or "none"}', field.location, field.path)
        if "FIELD_DEFAULT_CHANGED" in wanted and _default(before) != _default(field):
            yield Violation(rule, f'field "{name}" changed its default', field.location, field.path)
        if "DOC_REMOVED" in wanted and before.doc and not field.doc:
            yield Violation(rule, f'field "{name}" lost its doc', field.location, field.path)
    if "FIELD_REMOVED" in wanted:
        for name, field in was.items():
            if name not in matched:
                yield Violation(rule, f'field "{name}" was removed', field.location, field.path, version=version)


def _same_number(was: dict[str, SchemaElement], now: dict[str, SchemaElement],
                 field: SchemaElement) -> SchemaElement | None:
    """The older field with `field`'s wire number, when no field of the new version has its
    name: the same field, renamed."""
    if field.number is None:
        return None
    return next((f for f in was.values() if f.number == field.number and f.name not in now), None)


def _default(field: SchemaElement) -> tuple[bool, str]:
    """A default compared as JSON text: `0` and `false` (equal in Python) differ in a schema."""
    return field.has_default, json.dumps(field.default, sort_keys=True) if field.has_default else ""
