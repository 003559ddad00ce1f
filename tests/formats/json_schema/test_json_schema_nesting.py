"""How deeply a JSON Schema may nest (app/formats/json_schema/subschemas.py, json_text.py): a
schema past a bound is a `SchemaParseError` with a clear message, never a RecursionError, and
one at the bounds parses, normalizes and checks against its metaschema with room to spare on
the stack."""
from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any, TypeVar

import pytest

from app.formats.base import SchemaParseError
from app.formats.json_schema import JsonSchemaFormat
from app.formats.json_schema.json_text import MAX_DOCUMENT_DEPTH
from app.formats.json_schema.subschemas import MAX_SCHEMA_DEPTH

JSON_FORMAT = JsonSchemaFormat()
T = TypeVar("T")
DRAFTS = {
    "draft-04": "http://json-schema.org/draft-04/schema#",
    "draft-06": "http://json-schema.org/draft-06/schema#",
    "draft-07": "http://json-schema.org/draft-07/schema#",
    "2019-09": "https://json-schema.org/draft/2019-09/schema",
    "2020-12": "https://json-schema.org/draft/2020-12/schema",
}
# One level of subschema nesting per shape; the leaf goes where `inner` is.
SHAPES: dict[str, Callable[[Any], dict[str, Any]]] = {
    "properties": lambda inner: {"type": "object", "properties": {"p": inner}},
    "items": lambda inner: {"type": "array", "items": inner},
    "anyOf": lambda inner: {"anyOf": [inner, {"type": "null"}]},
    "not": lambda inner: {"not": inner},
    "additionalProperties": lambda inner: {"additionalProperties": inner},
    "definitions": lambda inner: {"definitions": {"d": inner}},
}


def nested(shape: str, levels: int, draft: str | None = None) -> str:
    schema: Any = {"type": "string"}
    for _ in range(levels):
        schema = SHAPES[shape](schema)
    if draft is not None:
        schema["$schema"] = DRAFTS[draft]
    return json.dumps(schema)


def at_stack_depth(frames: int, call: Callable[[], T]) -> T:
    """`call()` with `frames` more frames below it, as a web stack would put there."""
    return call() if frames == 0 else at_stack_depth(frames - 1, call)


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("strict", [True, False])
def test_subschemas_nested_past_the_bound_are_refused(shape: str, strict: bool) -> None:
    with pytest.raises(SchemaParseError) as raised:
        JSON_FORMAT.parse(nested(shape, MAX_SCHEMA_DEPTH + 1), {}, strict=strict)
    assert raised.value.message == (
        f"Invalid schema of type JSON, details: Schema is nested more than {MAX_SCHEMA_DEPTH} levels deep (subschemas)"
    )


@pytest.mark.parametrize("text", [
    "[" * 5000 + "]" * 5000,
    '{"type":"string","default":' + "[" * (MAX_DOCUMENT_DEPTH + 1) + "]" * (MAX_DOCUMENT_DEPTH + 1) + "}",
    '{"not":' * 1000 + '{"type":"string"}' + "}" * 1000,
], ids=["array-5000", "default-201", "not-1000"])
def test_json_nested_past_the_document_bound_is_refused_before_decoding(text: str) -> None:
    with pytest.raises(SchemaParseError) as raised:
        JSON_FORMAT.parse(text, {})
    assert raised.value.message == (
        "Invalid schema of type JSON, details: Schema is nested more than "
        f"{MAX_DOCUMENT_DEPTH} levels deep (JSON arrays and objects)"
    )


def test_a_deep_value_in_data_keywords_is_not_a_subschema() -> None:
    levels = MAX_DOCUMENT_DEPTH - 1
    deep = {"type": "object", "default": json.loads("[" * levels + "]" * levels)}
    parsed = JSON_FORMAT.parse(json.dumps(deep), {})
    assert JSON_FORMAT.normalize(parsed).canonical == json.dumps(deep, separators=(",", ":"), sort_keys=True)


@pytest.mark.parametrize("draft", DRAFTS)
@pytest.mark.parametrize("shape", SHAPES)
def test_a_schema_at_the_bound_parses_with_400_frames_already_taken(shape: str, draft: str) -> None:
    text = nested(shape, MAX_SCHEMA_DEPTH, draft)
    parsed = at_stack_depth(400, lambda: JSON_FORMAT.parse(text, {}))
    normalized = at_stack_depth(400, lambda: JSON_FORMAT.normalize(parsed))
    assert json.loads(normalized.canonical) == json.loads(text)


def test_a_dependency_nested_past_the_document_bound_is_refused() -> None:
    deep = "[" * (MAX_DOCUMENT_DEPTH + 1) + "]" * (MAX_DOCUMENT_DEPTH + 1)
    dependency = '{"type":"string","default":' + deep + "}"
    with pytest.raises(SchemaParseError):
        JSON_FORMAT.parse('{"$ref":"dep.json"}', {"dep.json": dependency})
