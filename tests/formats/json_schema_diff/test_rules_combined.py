"""Combination rules (oneOf, anyOf, allOf, not) and value rules (enum, const)."""
from __future__ import annotations

import pytest

from .json_schema_rules import Rule, check_rule, modern

STR = {"type": "string"}
NUM = {"type": "number"}
INT = {"type": "integer"}
BOOL = {"type": "boolean"}

RULES = [
    # oneOf / anyOf
    Rule("a reader whose oneOf gained a member reads the writer's values",
         writer={"oneOf": [STR, NUM]}, reader={"oneOf": [STR, NUM, BOOL]},
         changes=["SUM_TYPE_EXTENDED #/"], compatible=True),
    Rule("a reader whose oneOf lost a member refuses the writer's values of it",
         writer={"oneOf": [STR, NUM, BOOL]}, reader={"oneOf": [STR, NUM]},
         changes=["SUM_TYPE_NARROWED #/"], compatible=False),
    Rule("members pair by compatibility, not by position",
         writer={"oneOf": [STR, INT]}, reader={"oneOf": [NUM, STR]},
         changes=["TYPE_EXTENDED #/oneOf/1"], compatible=True),
    Rule("a reader member narrowed below the writer's leaves that member without a partner",
         writer={"oneOf": [STR, NUM]}, reader={"oneOf": [STR, INT]},
         changes=["COMBINED_TYPE_SUBSCHEMAS_CHANGED #/"], compatible=False),
    Rule("duplicate members count once",
         writer={"anyOf": [STR, STR, NUM]}, reader={"anyOf": [STR, NUM]}, changes=[], compatible=True),
    Rule("a reader that turned oneOf into anyOf accepts at least as much",
         writer={"oneOf": [STR, NUM]}, reader={"anyOf": [STR, NUM]},
         changes=["COMBINED_TYPE_EXTENDED #/"], compatible=True),
    Rule("a reader that turned anyOf into allOf accepts less",
         writer={"anyOf": [STR, NUM]}, reader={"allOf": [STR, NUM]},
         changes=["COMBINED_TYPE_CHANGED #/"], compatible=False),
    Rule("a reader that turned a one-member oneOf into allOf changes nothing",
         writer={"oneOf": [STR]}, reader={"allOf": [STR]},
         changes=["COMBINED_TYPE_EXTENDED #/"], compatible=True),
    Rule("a reader that wrapped the writer's type in a union reads it (SUM_TYPE_EXTENDED)",
         writer=STR, reader={"oneOf": [NUM, STR]}, changes=["SUM_TYPE_EXTENDED #/"], compatible=True),
    Rule("a reader that replaced a union by one of its members refuses the others",
         writer={"oneOf": [NUM, STR]}, reader=STR, changes=["TYPE_CHANGED #/"], compatible=False),
    Rule("a reader with a one-member union reads the writer's plain type",
         writer=STR, reader={"anyOf": [STR]}, changes=[], compatible=True),
    # allOf
    Rule("a reader whose allOf dropped a constraint reads the writer's values",
         writer={"allOf": [STR, {"maxLength": 5}]}, reader={"allOf": [STR]},
         changes=["PRODUCT_TYPE_NARROWED #/"], compatible=True),
    Rule("a reader whose allOf gained a constraint refuses some of the writer's values",
         writer={"allOf": [STR]}, reader={"allOf": [STR, {"maxLength": 5}]},
         changes=["PRODUCT_TYPE_EXTENDED #/"], compatible=False),
    Rule("a reader that replaced an allOf by one of its members reads the writer's values",
         writer={"allOf": [STR, {"maxLength": 5}]}, reader=STR,
         changes=["PRODUCT_TYPE_NARROWED #/"], compatible=True),
    Rule("a change inside a matched member is reported at the writer's member pointer",
         writer={"type": "object", "properties": {"p": {"oneOf": [{"type": "string", "maxLength": 5}]}}},
         reader={"type": "object", "properties": {"p": {"oneOf": [BOOL, {"type": "string", "maxLength": 8}]}}},
         changes=["SUM_TYPE_EXTENDED #/properties/p", "MAX_LENGTH_INCREASED #/properties/p/oneOf/0/maxLength"],
         compatible=True),
    Rule("2020-12: a reader whose anyOf gained a member reads the writer's values",
         writer=modern({"anyOf": [STR]}), reader=modern({"anyOf": [STR, NUM]}),
         changes=["SUM_TYPE_EXTENDED #/"], compatible=True),
    Rule("the policy decides inside a union: a member that gained an optional property pairs under LENIENT only",
         writer={"oneOf": [{"type": "object", "properties": {"a": STR}}, NUM]},
         reader={"oneOf": [{"type": "object", "properties": {"a": STR, "b": STR}}, NUM]},
         changes=["COMBINED_TYPE_SUBSCHEMAS_CHANGED #/"], compatible=False, compatible_lenient=True),
    # not
    Rule("a reader that excludes less accepts the writer's values (NOT_TYPE_NARROWED)",
         writer={"not": NUM}, reader={"not": INT}, changes=["NOT_TYPE_NARROWED #/not"], compatible=True),
    Rule("a reader that excludes more refuses some of the writer's values (NOT_TYPE_EXTENDED)",
         writer={"not": INT}, reader={"not": NUM}, changes=["NOT_TYPE_EXTENDED #/not"], compatible=False),
    # enum / const
    Rule("a reader whose enum gained values reads the writer's values",
         writer={"enum": ["a", "b"]}, reader={"enum": ["a", "b", "c"]},
         changes=["ENUM_ARRAY_EXTENDED #/enum"], compatible=True),
    Rule("a reader whose enum lost a value refuses the writer's values of it",
         writer={"enum": ["a", "b"]}, reader={"enum": ["a"]},
         changes=["ENUM_ARRAY_NARROWED #/enum"], compatible=False),
    Rule("a reader whose enum swapped values refuses the writer's old ones",
         writer={"enum": ["a", "b"]}, reader={"enum": ["a", "c"]},
         changes=["ENUM_ARRAY_CHANGED #/enum"], compatible=False),
    Rule("enum members keep their JSON type: 1 and true are different values",
         writer={"enum": [1]}, reader={"enum": [True]}, changes=["ENUM_ARRAY_CHANGED #/enum"], compatible=False),
    Rule("a reader whose const changed refuses the writer's value",
         writer={"properties": {"c": {"const": "red"}}}, reader={"properties": {"c": {"const": "blue"}}},
         changes=["ENUM_ARRAY_CHANGED #/properties/c/const"], compatible=False),
    Rule("an equal const (objects compared by value) is no change",
         writer={"const": {"a": [1, 2]}}, reader={"const": {"a": [1, 2]}}, changes=[], compatible=True),
]


@pytest.mark.parametrize("rule", RULES, ids=str)
def test_combined_rule(rule: Rule) -> None:
    check_rule(rule)
