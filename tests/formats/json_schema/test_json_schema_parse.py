"""Parsing JSON Schemas (app/formats/json_schema): the draft `$schema` chooses, the metaschema
check and how its refusals name the keyword and the JSON pointer, and what a stored schema
(parsed again, not strictly) gets away with."""
from __future__ import annotations

import json

import pytest

from app.formats.base import SchemaParseError
from app.formats.json_schema import JsonSchemaFormat
from app.formats.json_schema.drafts import DRAFT_4, DRAFT_6, DRAFT_7, DRAFT_2019_09, DRAFT_2020_12, Draft, draft_of
from app.formats.json_schema.model import JsonNative
from app.formats.json_schema.subschemas import keyword_of

JSON_FORMAT = JsonSchemaFormat()
REFUSAL = "Invalid schema of type JSON, details: "


def refusal(schema: object, strict: bool = True) -> str:
    with pytest.raises(SchemaParseError) as raised:
        JSON_FORMAT.parse(schema if isinstance(schema, str) else json.dumps(schema), {}, strict=strict)
    assert raised.value.message.startswith(REFUSAL)
    return raised.value.message[len(REFUSAL):]


@pytest.mark.parametrize("uri, draft", [
    ("http://json-schema.org/draft-04/schema#", DRAFT_4),
    ("https://json-schema.org/draft-04/schema", DRAFT_4),
    ("http://json-schema.org/schema#", DRAFT_4),
    ("http://json-schema.org/draft-06/schema#", DRAFT_6),
    ("https://json-schema.org/draft-06/schema#", DRAFT_6),
    ("http://json-schema.org/draft-07/schema#", DRAFT_7),
    ("https://json-schema.org/draft-07/schema", DRAFT_7),
    ("https://json-schema.org/draft/2019-09/schema", DRAFT_2019_09),
    ("http://json-schema.org/draft/2019-09/schema#", DRAFT_2019_09),
    ("https://json-schema.org/draft/2020-12/schema", DRAFT_2020_12),
    ("http://json-schema.org/draft/2020-12/schema", DRAFT_2020_12),
    ("https://example.com/my-dialect", DRAFT_7),
    ("http://json-schema.org/draft-07/schema##", DRAFT_7),
    (None, DRAFT_7),
])
def test_the_draft_is_the_one_schema_names_as_confluent_spells_them(uri: str | None, draft: Draft) -> None:
    document = {"type": "string"} if uri is None else {"$schema": uri, "type": "string"}
    assert draft_of(document) is draft
    native = JSON_FORMAT.parse(json.dumps(document), {}).native
    assert isinstance(native, JsonNative) and native.specification is draft.specification


def test_boolean_schemas_are_draft_7() -> None:
    assert draft_of(True) is DRAFT_7
    assert JSON_FORMAT.parse("false", {}).native.document is False


# (draft URI, schema, accepted): keywords whose form changed between drafts
DRAFT_RULES = [
    ("http://json-schema.org/draft-04/schema#", {"minimum": 0, "exclusiveMinimum": True}, True),
    ("http://json-schema.org/draft-07/schema#", {"minimum": 0, "exclusiveMinimum": True}, False),
    ("http://json-schema.org/draft-07/schema#", {"exclusiveMinimum": 0}, True),
    ("http://json-schema.org/draft-04/schema#", {"exclusiveMinimum": 0}, False),
    ("http://json-schema.org/draft-04/schema#", {"required": []}, False),  # draft 4: at least one name
    ("http://json-schema.org/draft-06/schema#", {"required": []}, True),
    ("https://json-schema.org/draft/2020-12/schema", {"prefixItems": [{"type": "string"}]}, True),
    ("https://json-schema.org/draft/2020-12/schema", {"prefixItems": {"type": "string"}}, False),
    ("https://json-schema.org/draft/2020-12/schema", {"$defs": {"a": 1}}, False),
    ("http://json-schema.org/draft-07/schema#", {"$defs": {"a": 1}}, True),  # not a draft-7 keyword
    ("https://json-schema.org/draft/2019-09/schema", {"dependentRequired": {"a": ["b"]}}, True),
    ("https://json-schema.org/draft/2019-09/schema", {"dependentRequired": {"a": "b"}}, False),
    ("https://json-schema.org/draft/2019-09/schema", {"$anchor": "not an anchor!"}, False),
]


@pytest.mark.parametrize("uri, schema, accepted", DRAFT_RULES)
def test_each_draft_is_held_to_its_own_metaschema(uri: str, schema: dict, accepted: bool) -> None:
    text = json.dumps({"$schema": uri, **schema})
    if accepted:
        assert JSON_FORMAT.parse(text, {}).canonical == json.dumps(json.loads(text), separators=(",", ":"))
    else:
        refusal(text)


# (schema, the detail of the refusal): the pointer of the bad value, the metaschema's complaint
# and the keyword the value belongs to
METASCHEMA_ERRORS = [
    ({"type": "object", "properties": {"age": {"minimum": "zero"}}},
     "#/properties/age/minimum: 'zero' is not of type 'number' (keyword 'minimum')"),
    ({"type": "strin"}, "#/type: 'strin' is not valid under any of the given schemas (keyword 'type')"),
    ({"required": ["a", 1]}, "#/required/1: 1 is not of type 'string' (keyword 'required')"),
    ({"properties": {"a": 5}}, "#/properties/a: 5 is not of type 'object', 'boolean' (keyword 'properties')"),
    ({"items": [{"type": "string"}, {"maxLength": -1}]},
     "#/items/1/maxLength: -1 is less than the minimum of 0 (keyword 'maxLength')"),
    ({"items": {"minItems": 1.5}}, "#/items/minItems: 1.5 is not of type 'integer' (keyword 'minItems')"),
    ({"definitions": {"a/b": {"type": 5}}},
     "#/definitions/a~1b/type: 5 is not valid under any of the given schemas (keyword 'type')"),
    ({"anyOf": []}, "#/anyOf: [] should be non-empty (keyword 'anyOf')"),
    ({"allOf": [{"not": {"multipleOf": 0}}]},
     "#/allOf/0/not/multipleOf: 0 is less than or equal to the minimum of 0 (keyword 'multipleOf')"),
    ({"dependencies": {"a": [1]}},
     "#/dependencies/a/0: 1 is not of type 'string' (keyword 'dependencies')"),
    ({"$id": 5}, "#/$id: 5 is not of type 'string' (keyword '$id')"),
]


@pytest.mark.parametrize("schema, detail", METASCHEMA_ERRORS)
def test_a_metaschema_error_names_the_pointer_and_the_keyword(schema: dict, detail: str) -> None:
    assert refusal(schema) == detail


@pytest.mark.parametrize("path, keyword", [
    ([], None),
    (["type"], "type"),
    (["properties", "type"], "properties"),  # a property called "type"
    (["properties", "type", "minimum"], "minimum"),
    (["items", "maxItems"], "maxItems"),
    (["items", 0, "maxItems"], "maxItems"),
    (["allOf", 2], "allOf"),
    (["enum", 0, "type"], "enum"),  # data inside enum, not a schema
    (["dependencies", "a", 0], "dependencies"),
    (["x-custom", "minimum"], "x-custom"),  # unknown keywords hold data
])
def test_the_keyword_of_a_path_skips_names_indexes_and_data(path: list, keyword: str | None) -> None:
    assert keyword_of(path) == keyword


@pytest.mark.parametrize("text, detail", [
    ("[1, 2]", "Invalid JSON schema: expected an object or boolean at the root, found ARRAY"),
    ('"string"', "Invalid JSON schema: expected an object or boolean at the root, found STRING"),
    ("5", "Invalid JSON schema: expected an object or boolean at the root, found NUMBER"),
    ("null", "Invalid JSON schema: expected an object or boolean at the root, found NULL"),
    ('{"type": ', "Invalid JSON schema: Expecting value: line 1 column 10 (char 9)"),
    ('{"type": "string"} x', "Invalid JSON schema: Extra data: line 1 column 20 (char 19)"),
])
def test_a_text_that_is_no_schema_document_is_refused(text: str, detail: str) -> None:
    assert refusal(text) == detail


def test_unknown_keywords_and_format_values_are_accepted_as_confluent_does() -> None:
    schema = {"type": "string", "format": "no-such-format", "x-owner": {"team": "payments"}, "connect.index": 1}
    assert json.loads(JSON_FORMAT.parse(json.dumps(schema), {}).canonical) == schema


def test_a_stored_schema_is_read_again_without_the_metaschema_check() -> None:
    """A schema that entered without validation (IMPORT mode, validateNewSchemas=false) must
    stay readable; only a document whose subschemas cannot be indexed is refused."""
    lax = {"type": "object", "properties": {"age": {"minimum": "zero"}}}
    assert json.loads(JSON_FORMAT.parse(json.dumps(lax), {}, strict=False).canonical) == lax
    assert refusal(lax) == "#/properties/age/minimum: 'zero' is not of type 'number' (keyword 'minimum')"
    assert refusal({"definitions": {"a": 5}, "$id": 5}, strict=False).startswith(
        "Invalid JSON schema: cannot index its subschemas")


def test_the_top_level_fields_are_the_root_properties() -> None:
    def names(schema: object) -> set[str]:
        return JSON_FORMAT.field_names(JSON_FORMAT.parse(json.dumps(schema), {}))

    assert names({"type": "object", "properties": {"a": {}, "b": {"properties": {"c": {}}}}}) == {"a", "b"}
    assert names({"type": "array", "items": {"properties": {"a": {}}}}) == set()
    assert names(True) == set()


def test_a_json_schema_has_no_formatted_renderings() -> None:
    parsed = JSON_FORMAT.parse('{"type":"string"}', {})
    assert JSON_FORMAT.formatted(parsed, "resolved") is None
    assert JSON_FORMAT.formatted(parsed, "serialized") is None
