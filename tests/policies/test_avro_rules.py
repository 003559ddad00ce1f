"""Each built-in rule over Avro, table-driven: passing and failing schemas, nested records,
unions, arrays and maps of records, recursive types. Every location is resolved in the
document as sent and must name the element the message is about."""
from __future__ import annotations

import json
from typing import Any

import pytest

from app.formats import FORMATS
from app.policies.catalogue import load_catalogue
from app.policies.engine import RuleUse, evaluate
from app.policies.rule import RuleContext
from policy_samples import ORDER, text, with_fields
from policy_pointers import resolve

CATALOGUE = load_catalogue(plugins=False)


def run(rule: str, params: dict[str, Any], schema: str, previous: str | None = None) -> list[tuple[str, str]]:
    proposed = FORMATS["AVRO"].parse(schema, {})
    older = FORMATS["AVRO"].parse(previous, {}) if previous is not None else None
    ctx = RuleContext("orders-value", [(1, older)] if older is not None else [])
    outcome = evaluate([RuleUse(rule, params=params)], CATALOGUE, older, proposed, ctx)
    assert outcome.checked == [rule]
    for v in outcome.violations:
        resolve(previous if v.version is not None else schema, v.location)  # every location resolves
    return [(v.location, v.message) for v in outcome.violations]


ORDER_TEXT = text(ORDER)

CASES = [
    # doc-required
    ("doc-required", {}, ORDER_TEXT, [
        ("/fields/1", 'field "amount" has no doc'),
        ("/fields/2/type/1/fields/1", 'field "Zip" has no doc'),
        ("/fields/3/type/items", 'record "com.acme.orders.Line" has no doc'),
    ]),
    ("doc-required", {"on": ["enum", "fixed"]}, ORDER_TEXT, [
        ("/fields/4/type/values", 'enum "com.acme.orders.Tag" has no doc'),
        ("/fields/7/type", 'fixed "com.acme.orders.Md5" has no doc'),
    ]),
    ("doc-required", {"on": ["record"], "minLength": 3}, ORDER_TEXT, [
        ("/fields/2/type/1", 'record "com.acme.orders.Address" has a doc shorter than 3 characters'),
        ("/fields/3/type/items", 'record "com.acme.orders.Line" has no doc'),
    ]),
    ("doc-required", {"on": ["field"]}, with_fields({"name": "a", "type": "int", "doc": "A"}), []),
    # name-pattern
    ("name-pattern", {"field": "snake_case"}, ORDER_TEXT, [
        ("/fields/2/type/1/fields/1", 'field "Zip" does not match snake_case'),
    ]),
    ("name-pattern", {"enumSymbol": "UPPER_SNAKE_CASE", "record": "PascalCase"}, ORDER_TEXT, [
        ("/fields/4/type/values/symbols/1", 'enumSymbol "rush" does not match UPPER_SNAKE_CASE'),
    ]),
    ("name-pattern", {"field": "camelCase", "fixed": "[A-Z]+"}, ORDER_TEXT, [
        ("/fields/2", 'field "ship_to" does not match camelCase'),
        ("/fields/2/type/1/fields/1", 'field "Zip" does not match camelCase'),
        ("/fields/7/type", 'fixed "Md5" does not match [A-Z]+'),
    ]),
    ("name-pattern", {"namespace": "kebab-case"}, with_fields({"name": "a", "type": "int"}, namespace="com.Acme"), [
        ("", 'namespace "com.Acme" does not match kebab-case'),
    ]),
    ("name-pattern", {"namespace": r"com\.acme(\.[a-z]+)*", "record": "PascalCase", "field": "snake_case"},
     ORDER_TEXT.replace('"Zip"', '"zip"'), []),
    # required-fields
    ("required-fields", {"fields": [{"name": "id", "type": "long"}, {"name": "created", "type": "timestamp-millis"}]},
     ORDER_TEXT, []),
    ("required-fields", {"fields": [{"name": "id", "type": "string"}, {"name": "tenant"}, {"name": "city"}]},
     ORDER_TEXT, [
         ("/fields/0", 'field "id" is of type long, not string'),
         ("", 'record "com.acme.orders.Order" has no field "tenant"'),
         ("", 'record "com.acme.orders.Order" has no field "city"'),  # nested fields do not count
     ]),
    ("required-fields", {"fields": [{"name": "ship_to", "type": "union<null,com.acme.orders.Address>"}]},
     ORDER_TEXT, []),
    ("required-fields", {"fields": [{"name": "id"}]}, '"string"', [
        ("", "schema is a primitive, not a record with the required fields"),
    ]),
    # max-size
    ("max-size", {"fields": 12, "depth": 2, "enumSymbols": 2, "unionBranches": 2}, ORDER_TEXT, []),
    ("max-size", {"fields": 11, "depth": 1, "enumSymbols": 1, "unionBranches": 1}, ORDER_TEXT, [
        ("", "schema has 12 fields, over the limit of 11"),
        ("/fields/2/type/1", 'record "com.acme.orders.Address" is nested 2 records deep, over the limit of 1'),
        ("/fields/4/type/values", 'enum "com.acme.orders.Tag" has 2 symbols, over the limit of 1'),
        ("/fields/2/type", 'union at "com.acme.orders.Order.ship_to" has 2 branches, over the limit of 1'),
        ("/fields/3/type/items/fields/1/type", 'union at "com.acme.orders.Line.next" has 2 branches, over the limit of 1'),
    ]),
    ("max-size", {"bytes": 50}, with_fields({"name": "a", "type": "int"}), [
        ("", f"schema is {len(FORMATS['AVRO'].parse(with_fields({'name': 'a', 'type': 'int'}), {}).canonical)} bytes,"
             " over the limit of 50"),
    ]),
    # namespace-prefix
    ("namespace-prefix", {"prefixes": ["com.acme"]}, ORDER_TEXT, []),
    ("namespace-prefix", {"prefixes": ["com.acmex", "org.acme"]}, ORDER_TEXT.replace('"name": "Line"', '"name": "org.acme.Line"'), [
        ("", 'record "com.acme.orders.Order" namespace "com.acme.orders" is not under com.acmex, org.acme'),
        ("/fields/2/type/1", 'record "com.acme.orders.Address" namespace "com.acme.orders" is not under com.acmex, org.acme'),
        ("/fields/4/type/values", 'enum "com.acme.orders.Tag" namespace "com.acme.orders" is not under com.acmex, org.acme'),
        ("/fields/7/type", 'fixed "com.acme.orders.Md5" namespace "com.acme.orders" is not under com.acmex, org.acme'),
    ]),
    ("namespace-prefix", {"prefixes": ["com"]}, text({"type": "enum", "name": "E", "symbols": ["A"]}), [
        ("", 'enum "E" has no namespace, expected under com'),
    ]),
    ("namespace-prefix", {"prefixes": ["com"], "require": False}, text({"type": "enum", "name": "E", "symbols": ["A"]}), []),
    # forbidden-types
    ("forbidden-types", {"types": ["float", "decimal", "map"]}, ORDER_TEXT, [
        ("/fields/1/type", 'type "decimal" at "com.acme.orders.Order.amount" is forbidden'),
        ("/fields/4/type", 'type "map" at "com.acme.orders.Order.tags" is forbidden'),
        ("/fields/6/type", 'type "float" at "com.acme.orders.Order.price" is forbidden'),
    ]),
    ("forbidden-types", {"types": ["fixed", "uuid"], "maxUnionBranches": 2}, ORDER_TEXT, [
        ("/fields/7/type", 'type "fixed" at "com.acme.orders.Md5" is forbidden'),
    ]),
    ("forbidden-types", {"types": ["double"]}, ORDER_TEXT, []),
]


@pytest.mark.parametrize(("rule", "params", "schema", "expected"), CASES,
                         ids=[f"{c[0]}-{i}" for i, c in enumerate(CASES)])
def test_rule_reports_expected_violations_at_resolvable_locations(rule, params, schema, expected):
    assert sorted(run(rule, params, schema)) == sorted(expected)


def test_locations_point_at_the_named_element_itself():
    for location, message in run("name-pattern", {"field": "PascalCase", "enumSymbol": "PascalCase"}, ORDER_TEXT):
        element = resolve(ORDER_TEXT, location)
        named = element if isinstance(element, str) else element["name"]
        assert f'"{named}"' in message


PREVIOUS = with_fields(
    {"name": "id", "type": "int", "doc": "Key"},
    {"name": "old_name", "type": "string"},
    {"name": "gone", "type": "string"},
    {"name": "kind", "type": {"type": "enum", "name": "Kind", "symbols": ["A", "B"]}, "default": "A"},
    {"name": "at", "type": {"type": "long", "logicalType": "timestamp-millis"}},
)
PROPOSED = with_fields(
    {"name": "id", "type": "long"},
    {"name": "new_name", "type": "string", "aliases": ["old_name"]},
    {"name": "kind", "type": {"type": "enum", "name": "Kind", "symbols": ["A", "C"]}, "default": "C"},
    {"name": "at", "type": {"type": "long", "logicalType": "timestamp-micros"}},
    {"name": "extra", "type": "int"},
    {"name": "optional", "type": "int", "default": 0},
)

CHANGE_CASES = [
    ("FIELD_REMOVED", [("/fields/2", 'field "gone" was removed')]),
    ("FIELD_ADDED_WITHOUT_DEFAULT", [("/fields/4", 'field "extra" was added without a default')]),
    ("FIELD_TYPE_CHANGED", [("/fields/0", 'field "id" changed type from int to long')]),
    ("FIELD_RENAMED", [("/fields/1", 'field "old_name" was renamed to "new_name"')]),
    ("FIELD_DEFAULT_CHANGED", [("/fields/2", 'field "kind" changed its default')]),
    ("ENUM_SYMBOL_REMOVED", [("/fields/3/type/symbols/1", 'enum "com.acme.Kind" lost symbol "B"')]),
    ("ENUM_SYMBOL_ADDED", [("/fields/2/type/symbols/1", 'enum "com.acme.Kind" gained symbol "C"')]),
    ("DOC_REMOVED", [("/fields/0", 'field "id" lost its doc')]),
    ("LOGICAL_TYPE_CHANGED", [("/fields/3", 'field "at" changed logical type from timestamp-millis to timestamp-micros')]),
    ("NAME_CHANGED", []),
    ("NAMESPACE_CHANGED", []),
]


@pytest.mark.parametrize(("change", "expected"), CHANGE_CASES, ids=[c[0] for c in CHANGE_CASES])
def test_forbidden_change_is_reported_once_where_it_is(change, expected):
    assert run("forbidden-changes", {"changes": [change]}, PROPOSED, PREVIOUS) == expected


def test_removed_elements_point_into_the_older_version():
    proposed = FORMATS["AVRO"].parse(PROPOSED, {})
    older = FORMATS["AVRO"].parse(PREVIOUS, {})
    outcome = evaluate([RuleUse("forbidden-changes", params={"changes": ["FIELD_REMOVED", "ENUM_SYMBOL_REMOVED"]})],
                       CATALOGUE, older, proposed, RuleContext("s", [(3, older)]))
    assert [(v.version, resolve(PREVIOUS, v.location)) for v in outcome.violations] == [
        (3, {"name": "gone", "type": "string"}), (3, "B")]


def test_root_rename_and_namespace_move_are_changes():
    renamed = PREVIOUS.replace('"name": "R"', '"name": "S"').replace('"namespace": "com.acme"', '"namespace": "org.acme"')
    found = run("forbidden-changes", {"changes": ["NAME_CHANGED", "NAMESPACE_CHANGED"]}, renamed, PREVIOUS)
    assert found == [("", 'record name changed from "R" to "S"'), ("", 'namespace changed from "com.acme" to "org.acme"')]


def test_first_version_has_no_forbidden_changes():
    assert run("forbidden-changes", {"changes": ["FIELD_ADDED_WITHOUT_DEFAULT"]}, PROPOSED) == []


def test_against_all_compares_every_live_version():
    v1 = with_fields({"name": "a", "type": "int"}, {"name": "b", "type": "int"})
    v2 = with_fields({"name": "a", "type": "int"}, {"name": "b", "type": "int", "default": 1})
    v3 = with_fields({"name": "a", "type": "int"})
    parsed = [FORMATS["AVRO"].parse(t, {}) for t in (v1, v2, v3)]
    proposed = FORMATS["AVRO"].parse(with_fields({"name": "a", "type": "long"}), {})
    ctx = RuleContext("s", [(1, parsed[0]), (2, parsed[1]), (3, parsed[2])])
    uses = [RuleUse("forbidden-changes", params={"changes": ["FIELD_REMOVED"], "against": "all"})]
    found = evaluate(uses, CATALOGUE, parsed[2], proposed, ctx).violations
    assert [(v.version, v.message) for v in found] == [(1, 'field "b" was removed'), (2, 'field "b" was removed')]
    latest_only = [RuleUse("forbidden-changes", params={"changes": ["FIELD_REMOVED"]})]
    assert evaluate(latest_only, CATALOGUE, parsed[2], proposed, ctx).violations == []


def test_recursive_type_is_walked_once():
    schema = text({"type": "record", "name": "Node", "fields": [
        {"name": "children", "type": {"type": "array", "items": "Node"}},
        {"name": "Next", "type": ["null", "Node"]}]})
    assert run("name-pattern", {"field": "snake_case"}, schema) == [("/fields/1", 'field "Next" does not match snake_case')]


def test_types_from_references_are_not_checked():
    dep = json.dumps({"type": "record", "name": "Ref", "fields": [{"name": "BadName", "type": "int"}]})
    fmt = FORMATS["AVRO"]
    proposed = fmt.parse(with_fields({"name": "r", "type": "Ref", "doc": "d"}), {"ref": dep})
    outcome = evaluate([RuleUse("name-pattern", params={"field": "snake_case", "record": "PascalCase"})],
                       CATALOGUE, None, proposed, RuleContext("s"))
    assert outcome.violations == [] and outcome.checked == ["name-pattern"]


def test_default_change_is_seen_between_values_python_calls_equal() -> None:
    before = with_fields({"name": "flag", "type": ["int", "boolean"], "default": 0})
    after = with_fields({"name": "flag", "type": ["boolean", "int"], "default": False})
    found = run("forbidden-changes", {"changes": ["FIELD_DEFAULT_CHANGED"]}, after, before)
    assert found == [("/fields/0", 'field "flag" changed its default')]
