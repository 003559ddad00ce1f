"""Keywords no rule compares fail closed: a reader that changed one is refused under both
policies (Confluent would let it pass unnoticed), while annotations and vendor extensions,
which constrain no data, stay free to change."""
from __future__ import annotations

import pytest

from .json_schema_rules import Rule, check_rule, modern

CHANGED = "UNSUPPORTED_KEYWORD_CHANGED"

RULES = [
    Rule("a reader that added a format may refuse the writer's strings",
         writer={"type": "string"}, reader={"type": "string", "format": "email"},
         changes=[f"{CHANGED} #/format"], compatible=False),
    Rule("a reader with another format may refuse the writer's strings",
         writer={"type": "string", "format": "date"}, reader={"type": "string", "format": "email"},
         changes=[f"{CHANGED} #/format"], compatible=False),
    Rule("an unchanged format is no change",
         writer={"type": "string", "format": "date"}, reader={"type": "string", "format": "date"},
         changes=[], compatible=True),
    Rule("a reader whose if/then changed may refuse the writer's objects",
         writer={"type": "object", "if": {"required": ["a"]}, "then": {"required": ["b"]}},
         reader={"type": "object", "if": {"required": ["a"]}, "then": {"required": ["c"]}},
         changes=[f"{CHANGED} #/then"], compatible=False),
    Rule("draft 4 knows no propertyNames: a change to it is refused, not ignored",
         writer={"$schema": "http://json-schema.org/draft-04/schema#", "propertyNames": {"maxLength": 9}},
         reader={"$schema": "http://json-schema.org/draft-04/schema#", "propertyNames": {"maxLength": 3}},
         changes=[f"{CHANGED} #/propertyNames"], compatible=False),
    Rule("2020-12: a reader whose contains schema changed may refuse the writer's arrays",
         writer=modern({"type": "array", "contains": {"type": "number"}}),
         reader=modern({"type": "array", "contains": {"type": "string"}}),
         changes=[f"{CHANGED} #/contains"], compatible=False),
    Rule("a reader with an unknown keyword changed is refused: its meaning is unknown",
         writer={"type": "string", "minGraphemes": 1}, reader={"type": "string", "minGraphemes": 2},
         changes=[f"{CHANGED} #/minGraphemes"], compatible=False),
    Rule("draft 4: a reader that made its maximum exclusive refuses the writer's top value",
         writer={"$schema": "http://json-schema.org/draft-04/schema#", "type": "number", "maximum": 5},
         reader={"$schema": "http://json-schema.org/draft-04/schema#", "type": "number", "maximum": 5,
                 "exclusiveMaximum": True},
         changes=[f"{CHANGED} #/exclusiveMaximum"], compatible=False),
    Rule("draft 7 does not know unevaluatedProperties: a change to it is refused, not ignored",
         writer={"type": "object", "properties": {"a": {}}},
         reader={"type": "object", "properties": {"a": {}}, "unevaluatedProperties": False},
         changes=[f"{CHANGED} #/unevaluatedProperties"], compatible=False),
    Rule("Kafka Connect and registry annotations change freely",
         writer={"type": "string", "connect.index": 1, "confluent:tags": ["PII"]},
         reader={"type": "string", "connect.index": 2, "confluent:tags": []},
         changes=[], compatible=True),
    Rule("code-generation hints change freely (a Java class renamed)",
         writer={"type": "object", "javaType": "com.acme.Order", "properties": {"a": {"type": "string"}}},
         reader={"type": "object", "javaType": "com.acme.v2.Order", "properties": {"a": {"type": "string"}}},
         changes=[], compatible=True),
    Rule("documentation keywords change freely",
         writer={"type": "string", "examples": ["a"], "$comment": "x", "deprecated": False, "readOnly": True},
         reader={"type": "string", "examples": ["b"], "$comment": "y", "deprecated": True},
         changes=[], compatible=True),
    Rule("an unsupported keyword inside a property is reported at its full pointer",
         writer={"properties": {"when": {"type": "string", "format": "date"}}},
         reader={"properties": {"when": {"type": "string", "format": "date-time"}}},
         changes=[f"{CHANGED} #/properties/when/format"], compatible=False),
]


@pytest.mark.parametrize("rule", RULES, ids=str)
def test_fail_closed_rule(rule: Rule) -> None:
    check_rule(rule)
