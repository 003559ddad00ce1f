"""The built-in rules that map to JSON Schema (doc-required, name-pattern, required-fields,
max-size, forbidden-types), table-driven; every location resolves in the document as sent."""
from __future__ import annotations

import json
from typing import Any

import pytest
from policy_pointers import resolve

from app.formats import FORMATS
from app.policies.catalogue import load_catalogue
from app.policies.engine import RuleUse, evaluate
from app.policies.rule import RuleContext

CATALOGUE = load_catalogue(plugins=False)
ORDER = json.dumps({
    "type": "object", "title": "Order", "description": "An order",
    "properties": {
        "id": {"type": "integer", "description": "Key"},
        "Amount": {"type": "number"},
        "ship/to": {"type": "object", "description": "Where", "properties": {
            "city": {"type": "string", "format": "uuid", "description": "City"}}},
        "tags": {"type": "array", "description": "Tags", "items": {"enum": ["GIFT", "rush"]}},
        "extra": {"type": "object", "description": "Extra", "additionalProperties": {"type": "number"}},
        "choice": {"description": "Either", "oneOf": [{"type": "string"}, {"type": "integer"}, {"type": "null"}]},
    },
    "required": ["id"],
    "$defs": {"money": {"type": "object", "properties": {"value": {"type": "number", "description": "V"}}}},
})

CASES: list[tuple[str, dict[str, Any], list[tuple[str, str]]]] = [
    ("doc-required", {}, [
        ("/properties/Amount", 'field "Amount" has no doc'),
        ("/$defs/money", 'record "money" has no doc'),
    ]),
    ("doc-required", {"on": ["record"], "minLength": 6}, [
        ("/properties/ship~1to", 'record "Order.ship/to" has a doc shorter than 6 characters'),
        ("/$defs/money", 'record "money" has no doc'),
    ]),
    ("name-pattern", {"field": "snake_case", "enumSymbol": "UPPER_SNAKE_CASE", "record": "PascalCase"}, [
        ("/properties/Amount", 'field "Amount" does not match snake_case'),
        ("/properties/ship~1to", 'field "ship/to" does not match snake_case'),
        ("/properties/ship~1to", 'record "ship/to" does not match PascalCase'),
        ("/properties/tags/items/enum/1", 'enumSymbol "rush" does not match UPPER_SNAKE_CASE'),
        ("/$defs/money", 'record "money" does not match PascalCase'),
    ]),
    ("required-fields", {"fields": [{"name": "id", "type": "integer"}, {"name": "tenant"}, {"name": "Amount", "type": "string"}]}, [
        ("", 'record "Order" has no field "tenant"'),
        ("/properties/Amount", 'field "Amount" is of type number, not string'),
    ]),
    ("max-size", {"fields": 7, "depth": 1, "unionBranches": 2}, [
        ("", "schema has 8 fields, over the limit of 7"),
        ("/properties/ship~1to", 'record "Order.ship/to" is nested 2 records deep, over the limit of 1'),
        ("/properties/choice", 'union at "Order.choice" has 3 branches, over the limit of 2'),
    ]),
    ("forbidden-types", {"types": ["number", "uuid", "map"]}, [
        ("/properties/Amount", 'type "number" at "Order.Amount" is forbidden'),
        ("/properties/ship~1to/properties/city", 'type "uuid" at "Order.ship/to.city" is forbidden'),
        ("/properties/extra", 'type "map" at "Order.extra" is forbidden'),
        ("/properties/extra/additionalProperties", 'type "number" at "Order.extra" is forbidden'),
        ("/$defs/money/properties/value", 'type "number" at "money.value" is forbidden'),
    ]),
]


@pytest.mark.parametrize(("rule", "params", "expected"), CASES, ids=[f"{c[0]}-{i}" for i, c in enumerate(CASES)])
def test_rule_over_json_schema(rule: str, params: dict[str, Any], expected: list[tuple[str, str]]) -> None:
    proposed = FORMATS["JSON"].parse(ORDER, {})
    outcome = evaluate([RuleUse(rule, params=params)], CATALOGUE, None, proposed, RuleContext("s"))
    assert outcome.checked == [rule]
    found = [(v.location, v.message) for v in outcome.violations]
    for location, _ in found:
        resolve(ORDER, location)
    assert sorted(found) == sorted(expected)


def test_avro_only_rules_are_skipped_for_json_schema() -> None:
    proposed = FORMATS["JSON"].parse(ORDER, {})
    outcome = evaluate([RuleUse("namespace-prefix", params={"prefixes": ["com"]})], CATALOGUE, None, proposed,
                       RuleContext("s"))
    assert outcome.checked == [] and [s["rule"] for s in outcome.skipped] == ["namespace-prefix"]


def test_forbidden_changes_between_json_schema_versions() -> None:
    before = json.loads(ORDER)
    after = json.loads(ORDER)
    del after["properties"]["id"]
    after["properties"]["Amount"] = {"type": "string"}
    after["properties"]["tags"]["items"]["enum"] = ["GIFT", "LATER"]
    after["properties"]["added"] = {"type": "integer"}
    after["properties"]["ship/to"].pop("description")
    old_text, new_text = json.dumps(before), json.dumps(after)
    older, proposed = FORMATS["JSON"].parse(old_text, {}), FORMATS["JSON"].parse(new_text, {})
    uses = [RuleUse("forbidden-changes", params={"changes": [
        "FIELD_REMOVED", "FIELD_TYPE_CHANGED", "ENUM_SYMBOL_REMOVED", "ENUM_SYMBOL_ADDED",
        "FIELD_ADDED_WITHOUT_DEFAULT", "DOC_REMOVED"]})]
    found = evaluate(uses, CATALOGUE, older, proposed, RuleContext("s", [(4, older)])).violations
    for v in found:
        resolve(old_text if v.version is not None else new_text, v.location)
    assert sorted((v.location, v.message, v.version) for v in found) == sorted([
        ("/properties/id", 'field "id" was removed', 4),
        ("/properties/Amount", 'field "Amount" changed type from number to string', None),
        ("/properties/tags/items/enum/1", 'enum "Order.tags" lost symbol "rush"', 4),
        ("/properties/tags/items/enum/1", 'enum "Order.tags" gained symbol "LATER"', None),
        ("/properties/added", 'field "added" was added without a default', None),
        ("/properties/ship~1to", 'field "ship/to" lost its doc', None),
        ("/properties/ship~1to", 'record "Order.ship/to" lost its doc', None),
    ])


EVERY_RULE = [
    RuleUse("doc-required", params={"on": ["record", "field", "enum", "fixed"]}),
    RuleUse("name-pattern", params={"record": "PascalCase", "namespace": "snake_case"}),
    RuleUse("required-fields", params={"fields": [{"name": "id"}]}),
    RuleUse("forbidden-changes", params={"changes": ["NAME_CHANGED", "FIELD_REMOVED"]}),
    RuleUse("max-size", params={"bytes": 10**6, "fields": 10, "depth": 3, "enumSymbols": 3, "unionBranches": 3}),
    RuleUse("forbidden-types", params={"types": ["number"], "maxUnionBranches": 3}),
]


@pytest.mark.parametrize("document", ["true", "{}", '{"const": "x"}', '{"$ref": "#/$defs/a", "$defs": {"a": {}}}'])
def test_a_schema_without_elements_fails_no_rule(document: str) -> None:
    """Found running the core API suite under a default policy: max-size and required-fields
    raised on such schemas, which refused their registration with "rule failed"."""
    proposed = FORMATS["JSON"].parse(document, {})
    outcome = evaluate(EVERY_RULE, CATALOGUE, proposed, proposed, RuleContext("s", [(1, proposed)]))
    assert outcome.checked == [use.rule for use in EVERY_RULE]
    assert [(v.rule, v.message) for v in outcome.violations] == [
        ("required-fields", "schema is not a record with the required fields")]
