"""The stored text of a JSON Schema and its `normalize=true` form: what Confluent's
Jackson mapper prints, so that the same schema gets the same bytes (and id) on both registries."""
from __future__ import annotations

import json

import pytest

from app.formats.json_schema import JsonSchemaFormat
from app.formats.json_schema.json_text import JsonFloat, loads

JSON_FORMAT = JsonSchemaFormat()


def canonical(text: str) -> str:
    return JSON_FORMAT.parse(text, {}).canonical


def normalized(text: str) -> str:
    return JSON_FORMAT.normalize(JSON_FORMAT.parse(text, {})).canonical


# (text as sent, text stored)
CANONICAL = [
    ('{ "type" : "object",\n  "properties": {"b": {}, "a": {}} }', '{"type":"object","properties":{"b":{},"a":{}}}'),
    ('{"title": "x", "type": "string", "title": "y"}', '{"title":"y","type":"string"}'),  # last value, first place
    ('{"minimum": 1.50, "maximum": 10}', '{"minimum":1.50,"maximum":10}'),  # exact decimals
    ('{"maximum": 1e5, "minimum": 2.5E-3}', '{"maximum":1E+5,"minimum":0.0025}'),  # BigDecimal.toString
    ('{"maximum": 0.0000001}', '{"maximum":1E-7}'),
    ('{"minimum": -0.0, "maximum": -0}', '{"minimum":0.0,"maximum":0}'),  # a decimal zero has no sign
    ('{"maximum": 1E400}', '{"maximum":1E+400}'),  # beyond a double, kept exactly
    ('{"maximum": 123456789012345678901234567890}', '{"maximum":123456789012345678901234567890}'),
    ('{"const": NaN, "default": -Infinity}', '{"const":"NaN","default":"-Infinity"}'),
    ('{"description": "tab\\t quote\\" \\u0001 \\u001f slash\\/ é 😀"}',
     '{"description":"tab\\t quote\\" \\u0001 \\u001F slash/ é 😀"}'),
    ('{"description": "\\ud800"}', '{"description":"\\uD800"}'),  # an unpaired surrogate stays escaped
    ("true", "true"),
    (" false ", "false"),
]


@pytest.mark.parametrize("text, stored", CANONICAL)
def test_the_stored_text_is_jacksons_compact_json_in_the_order_given(text: str, stored: str) -> None:
    assert canonical(text) == stored


def test_the_stored_text_parses_back_to_itself() -> None:
    for text, stored in CANONICAL:
        assert canonical(stored) == stored


def test_numbers_with_a_fraction_are_floats_that_remember_their_spelling() -> None:
    document = loads('{"minimum": 1.50, "maximum": 7, "multipleOf": 1e-2}')
    assert isinstance(document["minimum"], JsonFloat) and document["minimum"] == 1.5
    assert document["minimum"].literal == "1.50"
    assert type(document["maximum"]) is int
    assert document["multipleOf"] * 100 == 1.0  # arithmetic is a float's


# (text as sent, normalized text)
NORMALIZED = [
    ('{"type": "object", "properties": {"b": {"type": "string"}, "a": {"type": "integer"}}, "required": ["b", "a"]}',
     '{"properties":{"a":{"type":"integer"},"b":{"type":"string"}},"required":["b","a"],"type":"object"}'),
    ('{"enum": [{"z": 1, "y": 2}, 3], "default": {"d": [{"b": 1, "a": 2}], "c": 0}}',  # data objects too
     '{"default":{"c":0,"d":[{"a":2,"b":1}]},"enum":[{"y":2,"z":1},3]}'),
    ('{"\\uffff": 1, "😀": 2, "a": 3}', '{"a":3,"😀":2,"\uffff":1}'),  # Java's UTF-16 order
    ('{"minimum": 1.50, "maximum": 1e5}', '{"maximum":1E+5,"minimum":1.50}'),
    ("true", "true"),
]


@pytest.mark.parametrize("text, expected", NORMALIZED)
def test_normalize_sorts_the_keys_of_every_object(text: str, expected: str) -> None:
    assert normalized(text) == expected


@pytest.mark.parametrize("text", [text for text, _ in NORMALIZED + CANONICAL])
def test_normalizing_twice_changes_nothing(text: str) -> None:
    once = JSON_FORMAT.normalize(JSON_FORMAT.parse(text, {}))
    assert JSON_FORMAT.normalize(once).canonical == once.canonical
    assert canonical(once.canonical) == once.canonical


def test_texts_differing_in_key_order_normalize_to_one_text() -> None:
    first = json.dumps({"type": "object", "properties": {"x": {"type": "string", "maxLength": 3}}})
    second = json.dumps({"properties": {"x": {"maxLength": 3, "type": "string"}}, "type": "object"})
    assert canonical(first) != canonical(second)
    assert normalized(first) == normalized(second)


def test_the_normalized_schema_still_resolves_its_refs() -> None:
    text = '{"properties": {"a": {"$ref": "#/definitions/x"}}, "definitions": {"x": {"type": "string"}}}'
    native = JSON_FORMAT.normalize(JSON_FORMAT.parse(text, {})).native
    assert list(native.document) == ["definitions", "properties"]
    assert native.resolver().lookup("#/definitions/x").contents == {"type": "string"}
