"""Type rules: what a change of kind means for a reader of the writer's data."""
from __future__ import annotations

import pytest

from .json_schema_rules import Rule, check_rule, modern

RULES = [
    Rule("a reader of integers reads a writer of integers unchanged",
         writer={"type": "integer"}, reader={"type": "integer"}, changes=[], compatible=True),
    Rule("a reader widened from integer to number reads every integer (TYPE_EXTENDED)",
         writer={"type": "integer"}, reader={"type": "number"},
         changes=["TYPE_EXTENDED #/"], compatible=True),
    Rule("a reader narrowed from number to integer misses the writer's fractions (TYPE_NARROWED)",
         writer={"type": "number"}, reader={"type": "integer"},
         changes=["TYPE_NARROWED #/"], compatible=False),
    Rule("a string reader cannot read a boolean writer (TYPE_CHANGED)",
         writer={"type": "boolean"}, reader={"type": "string"},
         changes=["TYPE_CHANGED #/"], compatible=False),
    Rule("an empty-schema reader accepts whatever the writer wrote",
         writer={"type": "object", "properties": {"a": {"type": "string"}}}, reader={},
         changes=[], compatible=True),
    Rule("a `true` reader accepts whatever the writer wrote",
         writer={"type": "string"}, reader=True, changes=[], compatible=True),
    Rule("any reader reads a `false` writer, which wrote nothing",
         writer=False, reader={"type": "string"}, changes=[], compatible=True),
    Rule("a typed reader refuses what an empty-schema writer may have written",
         writer={}, reader={"type": "string"}, changes=["TYPE_CHANGED #/"], compatible=False),
    Rule("a reader whose type list gained null reads the writer's strings (SUM_TYPE_EXTENDED)",
         writer={"type": "string"}, reader={"type": ["string", "null"]},
         changes=["SUM_TYPE_EXTENDED #/"], compatible=True),
    Rule("a reader that dropped null from the type list fails on the writer's nulls",
         writer={"type": ["string", "null"]}, reader={"type": "string"},
         changes=["TYPE_CHANGED #/"], compatible=False),
    Rule("the keywords beside a type list apply to its member: a raised maxLength is seen there",
         writer={"type": ["string", "null"], "maxLength": 5},
         reader={"type": ["string", "null"], "maxLength": 10},
         changes=["MAX_LENGTH_INCREASED #/anyOf/0/maxLength"], compatible=True),
    Rule("a type-list member the reader narrowed leaves the writer's member unmatched",
         writer={"type": ["string", "null"], "maxLength": 10},
         reader={"type": ["string", "null"], "maxLength": 5},
         changes=["COMBINED_TYPE_SUBSCHEMAS_CHANGED #/"], compatible=False),
    Rule("Kafka Connect bytes stay compatible whichever JSON type carries them",
         writer={"type": "string", "connect.type": "bytes"},
         reader={"type": "number", "connect.type": "bytes"}, changes=[], compatible=True),
    Rule("annotations changed for the reader are reported and compatible",
         writer={"type": "string", "title": "a", "description": "x", "default": "d", "$id": "urn:a"},
         reader={"type": "string", "title": "b", "description": "y", "default": "e", "$id": "urn:b"},
         changes=["TITLE_CHANGED #/", "DESCRIPTION_CHANGED #/", "DEFAULT_CHANGED #/", "ID_CHANGED #/"],
         compatible=True),
    Rule("2020-12: a reader widened from integer to number reads the writer's integers",
         writer=modern({"type": "integer"}), reader=modern({"type": "number"}),
         changes=["TYPE_EXTENDED #/"], compatible=True),
    Rule("a string with an enum is a product: the reader must keep both parts",
         writer={"type": "string", "enum": ["a", "b"]}, reader={"type": "string"},
         changes=["PRODUCT_TYPE_NARROWED #/"], compatible=True),
]


@pytest.mark.parametrize("rule", RULES, ids=str)
def test_type_rule(rule: Rule) -> None:
    check_rule(rule)
