"""Array rules: item schemas, positional items under each content model, counts, uniqueness,
contains bounds, and the 2020-12 spellings (prefixItems, items, unevaluatedItems)."""
from __future__ import annotations

import pytest

from .json_schema_rules import Rule, check_rule, modern

STR = {"type": "string"}
NUM = {"type": "number"}


def arr(**keywords: object) -> dict:
    return {"type": "array", **keywords}


RULES = [
    Rule("a reader whose item schema widened reads the writer's items",
         writer=arr(items={"type": "integer"}), reader=arr(items=NUM),
         changes=["TYPE_EXTENDED #/items"], compatible=True),
    Rule("a reader whose item type changed refuses the writer's items",
         writer=arr(items=STR), reader=arr(items=NUM), changes=["TYPE_CHANGED #/items"], compatible=False),
    Rule("a reader that dropped the item schema reads any item",
         writer=arr(items=STR), reader=arr(), changes=["SCHEMA_REMOVED #/items"], compatible=True),
    Rule("a reader that added an item schema refuses the writer's other items",
         writer=arr(), reader=arr(items=STR), changes=["SCHEMA_ADDED #/items"], compatible=False),
    Rule("a reader with a larger maxItems reads the writer's arrays",
         writer=arr(maxItems=2), reader=arr(maxItems=3),
         changes=["MAX_ITEMS_INCREASED #/maxItems"], compatible=True),
    Rule("a reader with a larger minItems refuses the writer's short arrays",
         writer=arr(minItems=1), reader=arr(minItems=2),
         changes=["MIN_ITEMS_INCREASED #/minItems"], compatible=False),
    Rule("a reader that added uniqueItems refuses the writer's repeated items",
         writer=arr(), reader=arr(uniqueItems=True),
         changes=["UNIQUE_ITEMS_ADDED #/uniqueItems"], compatible=False),
    Rule("a reader that dropped uniqueItems reads the writer's arrays",
         writer=arr(uniqueItems=True), reader=arr(),
         changes=["UNIQUE_ITEMS_REMOVED #/uniqueItems"], compatible=True),
    # positional items, draft 7 spelling
    Rule("a reader whose tuple lost positions still reads them when open",
         writer=arr(items=[STR, NUM]), reader=arr(items=[STR]),
         changes=["ITEM_REMOVED_FROM_OPEN_CONTENT_MODEL #/items/1"], compatible=True),
    Rule("a reader whose tuple gained a position may meet other values there (open writer)",
         writer=arr(items=[STR]), reader=arr(items=[STR, NUM]),
         changes=["ITEM_ADDED_TO_OPEN_CONTENT_MODEL #/items/1"], compatible=False),
    Rule("a reader whose tuple gained a position of a closed writer meets nothing there",
         writer=arr(items=[STR], additionalItems=False), reader=arr(items=[STR, NUM], additionalItems=False),
         changes=["ITEM_ADDED_TO_CLOSED_CONTENT_MODEL #/items/1"], compatible=True),
    Rule("a closed reader whose tuple lost a position refuses the writer's longer arrays",
         writer=arr(items=[STR, NUM], additionalItems=False), reader=arr(items=[STR], additionalItems=False),
         changes=["ITEM_REMOVED_FROM_CLOSED_CONTENT_MODEL #/items/1"], compatible=False),
    Rule("a reader's new position is covered by the writer's additionalItems schema",
         writer=arr(items=[STR], additionalItems=NUM), reader=arr(items=[STR, NUM], additionalItems=NUM),
         changes=["ITEM_ADDED_IS_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL #/items/1"], compatible=True),
    Rule("a reader's new position is not covered by another additionalItems schema",
         writer=arr(items=[STR], additionalItems=NUM), reader=arr(items=[STR, STR], additionalItems=NUM),
         changes=["TYPE_CHANGED #/items/1", "ITEM_ADDED_NOT_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL #/items/1"],
         compatible=False),
    Rule("a reader that closed additionalItems refuses the writer's extra items",
         writer=arr(items=[STR]), reader=arr(items=[STR], additionalItems=False),
         changes=["ADDITIONAL_ITEMS_REMOVED #/additionalItems"], compatible=False),
    Rule("a reader that narrowed open additionalItems to a schema refuses some extras",
         writer=arr(items=[STR]), reader=arr(items=[STR], additionalItems=NUM),
         changes=["ADDITIONAL_ITEMS_NARROWED #/additionalItems"], compatible=False),
    # 2020-12 spelling
    Rule("2020-12: a reader's new prefix item is covered by the writer's items schema",
         writer=modern(arr(prefixItems=[STR], items=NUM)), reader=modern(arr(prefixItems=[STR, NUM], items=NUM)),
         changes=["ITEM_ADDED_IS_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL #/items/1"], compatible=True),
    Rule("2020-12: `items: false` beside prefixItems closes the array",
         writer=modern(arr(prefixItems=[STR])), reader=modern(arr(prefixItems=[STR], items=False)),
         changes=["ADDITIONAL_ITEMS_REMOVED #/additionalItems"], compatible=False),
    Rule("2020-12: a reader with unevaluatedItems false refuses the writer's extra items",
         writer=modern(arr(prefixItems=[STR])), reader=modern(arr(prefixItems=[STR], unevaluatedItems=False)),
         changes=["UNEVALUATED_ITEMS_REMOVED #/unevaluatedItems"], compatible=False),
    Rule("2020-12: a reader's dropped prefix item is covered by its unevaluatedItems schema",
         writer=modern(arr(prefixItems=[STR, NUM], unevaluatedItems=NUM)),
         reader=modern(arr(prefixItems=[STR], unevaluatedItems=NUM)),
         changes=["ITEM_REMOVED_IS_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL #/items/1"], compatible=True),
    Rule("2019-09: an `items` array is positional, closed by additionalItems false",
         writer={"$schema": "https://json-schema.org/draft/2019-09/schema", "type": "array", "items": [STR],
                 "additionalItems": False},
         reader={"$schema": "https://json-schema.org/draft/2019-09/schema", "type": "array", "items": [STR, NUM],
                 "additionalItems": False},
         changes=["ITEM_ADDED_TO_CLOSED_CONTENT_MODEL #/items/1"], compatible=True),
    Rule("2020-12: a reader with a larger minContains refuses arrays with fewer matches",
         writer=modern(arr(contains=NUM, minContains=1)), reader=modern(arr(contains=NUM, minContains=2)),
         changes=["MIN_CONTAINS_INCREASED #/minContains"], compatible=False),
    Rule("2020-12: minContains 1 is the default, so dropping it is no change",
         writer=modern(arr(contains=NUM, minContains=1)), reader=modern(arr(contains=NUM)),
         changes=[], compatible=True),
    Rule("2020-12: a reader with a larger maxContains reads the writer's arrays",
         writer=modern(arr(contains=NUM, maxContains=2)), reader=modern(arr(contains=NUM, maxContains=3)),
         changes=["MAX_CONTAINS_INCREASED #/maxContains"], compatible=True),
    Rule("2020-12: a reader that added maxContains refuses arrays with more matches",
         writer=modern(arr(contains=NUM)), reader=modern(arr(contains=NUM, maxContains=3)),
         changes=["MAX_CONTAINS_ADDED #/maxContains"], compatible=False),
]


@pytest.mark.parametrize("rule", RULES, ids=str)
def test_array_rule(rule: Rule) -> None:
    check_rule(rule)
