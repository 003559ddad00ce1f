"""String and number constraint rules: a reader may loosen a bound, never tighten it."""
from __future__ import annotations

import pytest

from .json_schema_rules import Rule, check_rule, modern


def string(**keywords: object) -> dict:
    return {"type": "string", **keywords}


def number(**keywords: object) -> dict:
    return {"type": "number", **keywords}


RULES = [
    Rule("a reader with a longer maxLength reads the writer's strings",
         writer=string(maxLength=5), reader=string(maxLength=8),
         changes=["MAX_LENGTH_INCREASED #/maxLength"], compatible=True),
    Rule("a reader with a shorter maxLength refuses the writer's longer strings",
         writer=string(maxLength=8), reader=string(maxLength=5),
         changes=["MAX_LENGTH_DECREASED #/maxLength"], compatible=False),
    Rule("a reader that added maxLength refuses the writer's long strings",
         writer=string(), reader=string(maxLength=5),
         changes=["MAX_LENGTH_ADDED #/maxLength"], compatible=False),
    Rule("a reader that dropped maxLength reads everything the writer wrote",
         writer=string(maxLength=5), reader=string(),
         changes=["MAX_LENGTH_REMOVED #/maxLength"], compatible=True),
    Rule("a reader with a larger minLength refuses the writer's short strings",
         writer=string(minLength=1), reader=string(minLength=3),
         changes=["MIN_LENGTH_INCREASED #/minLength"], compatible=False),
    Rule("a reader with a smaller minLength reads the writer's strings",
         writer=string(minLength=3), reader=string(minLength=1),
         changes=["MIN_LENGTH_DECREASED #/minLength"], compatible=True),
    Rule("a reader that added minLength refuses the writer's empty strings",
         writer=string(), reader=string(minLength=1),
         changes=["MIN_LENGTH_ADDED #/minLength"], compatible=False),
    Rule("a reader that added a pattern refuses the writer's other strings",
         writer=string(), reader=string(pattern="^a"),
         changes=["PATTERN_ADDED #/pattern"], compatible=False),
    Rule("a reader that dropped the pattern reads the writer's strings",
         writer=string(pattern="^a"), reader=string(),
         changes=["PATTERN_REMOVED #/pattern"], compatible=True),
    Rule("a reader with another pattern may refuse the writer's strings",
         writer=string(pattern="^a"), reader=string(pattern="^b"),
         changes=["PATTERN_CHANGED #/pattern"], compatible=False),
    Rule("a string keyword without a type still constrains (the schema is a string schema)",
         writer={"maxLength": 8}, reader={"maxLength": 5},
         changes=["MAX_LENGTH_DECREASED #/maxLength"], compatible=False),
    Rule("a reader with a higher maximum reads the writer's numbers",
         writer=number(maximum=10), reader=number(maximum=20),
         changes=["MAXIMUM_INCREASED #/maximum"], compatible=True),
    Rule("a reader with a lower maximum refuses the writer's large numbers",
         writer=number(maximum=20), reader=number(maximum=10),
         changes=["MAXIMUM_DECREASED #/maximum"], compatible=False),
    Rule("a reader that added a maximum refuses the writer's large numbers",
         writer=number(), reader=number(maximum=10),
         changes=["MAXIMUM_ADDED #/maximum"], compatible=False),
    Rule("a reader with a higher minimum refuses the writer's small numbers",
         writer=number(minimum=0), reader=number(minimum=5),
         changes=["MINIMUM_INCREASED #/minimum"], compatible=False),
    Rule("a reader with a lower minimum reads the writer's numbers",
         writer=number(minimum=5), reader=number(minimum=0),
         changes=["MINIMUM_DECREASED #/minimum"], compatible=True),
    Rule("a reader that dropped the minimum reads the writer's numbers",
         writer=number(minimum=5), reader=number(),
         changes=["MINIMUM_REMOVED #/minimum"], compatible=True),
    Rule("a reader with a higher exclusiveMaximum reads the writer's numbers",
         writer=number(exclusiveMaximum=10), reader=number(exclusiveMaximum=11),
         changes=["EXCLUSIVE_MAXIMUM_INCREASED #/exclusiveMaximum"], compatible=True),
    Rule("a reader with a lower exclusiveMaximum refuses the writer's top numbers, maximum or not",
         writer=number(exclusiveMaximum=10), reader=number(exclusiveMaximum=5),
         changes=["EXCLUSIVE_MAXIMUM_DECREASED #/exclusiveMaximum"], compatible=False),
    Rule("a reader with a higher exclusiveMinimum refuses the writer's low numbers",
         writer=number(exclusiveMinimum=0), reader=number(exclusiveMinimum=1),
         changes=["EXCLUSIVE_MINIMUM_INCREASED #/exclusiveMinimum"], compatible=False),
    Rule("a reader that added exclusiveMinimum refuses the writer's low numbers",
         writer=number(), reader=number(exclusiveMinimum=1),
         changes=["EXCLUSIVE_MINIMUM_ADDED #/exclusiveMinimum"], compatible=False),
    Rule("a reader whose multipleOf divides the writer's reads its numbers (MULTIPLE_OF_REDUCED)",
         writer=number(multipleOf=10), reader=number(multipleOf=5),
         changes=["MULTIPLE_OF_REDUCED #/multipleOf"], compatible=True),
    Rule("a reader whose multipleOf is a multiple of the writer's refuses some (EXPANDED)",
         writer=number(multipleOf=5), reader=number(multipleOf=10),
         changes=["MULTIPLE_OF_EXPANDED #/multipleOf"], compatible=False),
    Rule("a reader whose multipleOf is unrelated refuses some numbers (CHANGED)",
         writer=number(multipleOf=3), reader=number(multipleOf=5),
         changes=["MULTIPLE_OF_CHANGED #/multipleOf"], compatible=False),
    Rule("decimal multiples compare exactly: 0.1 divides 0.3",
         writer=number(multipleOf=0.3), reader=number(multipleOf=0.1),
         changes=["MULTIPLE_OF_REDUCED #/multipleOf"], compatible=True),
    Rule("equal multiples written differently are no change",
         writer=number(multipleOf=0.5), reader=number(multipleOf=0.50), changes=[], compatible=True),
    Rule("a reader that added multipleOf refuses the writer's other numbers",
         writer=number(), reader=number(multipleOf=2),
         changes=["MULTIPLE_OF_ADDED #/multipleOf"], compatible=False),
    Rule("an integer 5 and a float 5.0 bound are the same bound",
         writer=number(maximum=5), reader=number(maximum=5.0), changes=[], compatible=True),
    Rule("2020-12: a reader with a lower maximum refuses the writer's large numbers",
         writer=modern(number(maximum=20)), reader=modern(number(maximum=10)),
         changes=["MAXIMUM_DECREASED #/maximum"], compatible=False),
]


@pytest.mark.parametrize("rule", RULES, ids=str)
def test_scalar_rule(rule: Rule) -> None:
    check_rule(rule)
