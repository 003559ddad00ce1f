"""The metaschema check node by node (app/formats/json_schema/metaschema.py) gives the verdict
`jsonschema` gives on the whole document: checked on every schema of Confluent's JSON Schema
corpora, as they are and with a bad keyword planted in each of their subschemas in turn."""
from __future__ import annotations

import copy
import json
from collections.abc import Iterator
from typing import Any

import pytest
from support.conformance import DATA, read_json

from app.formats.json_schema import metaschema
from app.formats.json_schema.drafts import ALL_DRAFTS, Draft, draft_of
from app.formats.json_schema.errors import InvalidJsonSchema
from app.formats.json_schema.json_text import loads
from app.formats.json_schema.metaschema import check_against_metaschema
from app.formats.json_schema.subschemas import SUBSCHEMA_KEYWORDS, children

# What gets planted: values each draft's metaschema refuses (or, for the last ones, accepts
# in some drafts only).
PLANTS: list[tuple[str, Any]] = [
    ("minimum", "zero"), ("maxLength", -1), ("type", "strin"), ("required", [1]), ("enum", "red"),
    ("properties", {"a": 5}), ("items", [True, 5]), ("additionalProperties", 5), ("allOf", []),
    ("exclusiveMinimum", True), ("prefixItems", {"a": 1}), ("$anchor", "1bad"), ("items", []),
    ("dependentRequired", {"a": "b"}), ("not", True), ("$defs", {"x": 7}), ("const", None),
]
CORPORA = ["diff-schema-examples.json", "diff-schema-examples-2020-12.json", "diff-combined-schema-examples.json",
           "diff-combined-schema-examples-2020-12.json"]


def corpus_schemas() -> Iterator[Any]:
    for name in CORPORA:
        for case in read_json(DATA / "json-schema" / name):
            yield loads(json.dumps(case["original_schema"]))
            yield loads(json.dumps(case["update_schema"]))


def nodes(document: Any) -> Iterator[dict[str, Any]]:
    stack = [document]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            yield node
            stack.extend(child for _, child in children(node, SUBSCHEMA_KEYWORDS))


def node_by_node(document: Any, draft: Draft) -> bool:
    try:
        check_against_metaschema(document, draft)
    except InvalidJsonSchema:
        return False
    return True


def test_every_corpus_schema_is_judged_as_jsonschema_judges_it() -> None:
    judged = 0
    for document in corpus_schemas():
        for draft in {draft_of(document), *ALL_DRAFTS}:
            assert node_by_node(document, draft) == draft.validator.is_valid(document), (draft.name, document)
            judged += 1
    assert judged > 2500


def test_a_bad_keyword_anywhere_is_judged_as_jsonschema_judges_it() -> None:
    refused = accepted = 0
    for document in list(corpus_schemas())[::7]:
        positions = sum(1 for _ in nodes(document))
        for index in range(positions):
            for keyword, value in PLANTS:
                planted = copy.deepcopy(document)
                node = next(n for i, n in enumerate(nodes(planted)) if i == index)
                node[keyword] = value
                draft = draft_of(planted)
                expected = draft.validator.is_valid(planted)
                assert node_by_node(planted, draft) == expected, (keyword, value, planted)
                refused += not expected
                accepted += expected
    assert refused > 1000 and accepted > 100


@pytest.mark.parametrize("draft", ALL_DRAFTS, ids=lambda draft: draft.name)
def test_a_verdict_from_the_cache_names_the_right_pointer(draft: Draft) -> None:
    bad = {"type": "integer", "minimum": "zero"}
    document = {"properties": {"a": bad, "b": {"items": bad}}}
    for expected in ("#/properties/a/minimum", "#/properties/a/minimum"):
        with pytest.raises(InvalidJsonSchema) as raised:
            check_against_metaschema(document, draft)
        assert str(raised.value).startswith(expected + ": 'zero' is not of type 'number'")
    del document["properties"]["a"]
    with pytest.raises(InvalidJsonSchema) as raised:
        check_against_metaschema(document, draft)
    assert str(raised.value).startswith("#/properties/b/items/minimum: ")


def test_a_node_of_many_subschemas_is_held_to_its_metaschema_in_one_small_step(monkeypatch: pytest.MonkeyPatch) -> None:
    """The metaschema's verdict on one node cannot be interrupted: its many `{}` members are
    judged as one, and a malformed member is still found under its own key."""
    judged: list[dict[str, Any]] = []
    real = metaschema._verdict
    monkeypatch.setattr(metaschema, "_verdict", lambda draft, node: judged.append(node) or real(draft, node))
    wide = {"type": "object", "properties": {f"p{i}": {"type": "string"} for i in range(1000)},
            "allOf": [{"type": "object"}, {"required": []}]}
    check_against_metaschema(wide, draft_of(wide))
    assert judged[0] == {"type": "object", "properties": {"p0": {}}, "allOf": [{}]}
    wide["properties"]["p500"] = 5
    with pytest.raises(InvalidJsonSchema, match="#/properties/p500: 5 is not of type"):
        check_against_metaschema(wide, draft_of(wide))
