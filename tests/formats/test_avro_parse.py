"""Parsing, validation, canonical text, normalization and the resolved format of Avro schemas.

Expected texts and error messages are what Java Avro 1.12 (`Schema.Parser` with Confluent's
settings, `Schema.toString`) prints for the same input; they were checked against it.
"""
from __future__ import annotations

import json

import pytest

from app.formats.avro import AvroFormat
from app.formats.base import SchemaParseError

AVRO = AvroFormat()
PREFIX = "Invalid schema of type AVRO, details: "

INVALID = [
    ("bad_json", '{"type": "record",', "Invalid JSON"),
    ("trailing_comma", '{"type":"record","name":"R","fields":[],}', "Invalid JSON"),
    ("nan_literal", '{"type":"record","name":"R","fields":[{"name":"a","type":"double","default":NaN}]}', "Invalid JSON"),
    ("json_null", "null", "Schema not yet supported: null"),
    ("json_number", "5", "Schema not yet supported: 5"),
    ("empty_text", "   ", "Empty schema"),
    ("no_type", '{"name":"x"}', 'No type: {"name":"x"}'),
    ("unknown_type", '{"type":"strin"}', 'A schema "type" MUST be a primitive type'),
    ("undefined_name", '{"type":"record","name":"R","fields":[{"name":"a","type":"Missing"}]}', "Undefined schema: Missing"),
    ("undefined_in_namespace", '{"type":"record","name":"R","namespace":"n","fields":[{"name":"a","type":"M"}]}', "Undefined schema: n.M"),
    ("record_without_name", '{"type":"record","fields":[]}', 'No name in schema: {"type":"record","fields":[]}'),
    ("record_without_fields", '{"type":"record","name":"R","fields":{}}', "Record has no fields"),
    ("bad_record_name", '{"type":"record","name":"1R","fields":[]}', "Illegal initial character: 1R"),
    ("bad_namespace_part", '{"type":"record","name":"R","namespace":"a.1b","fields":[]}', 'Namespace part "1b" is invalid: Illegal initial character: 1b'),
    ("named_after_primitive", '{"type":"record","name":"int","fields":[]}', "Schemas may not be named after primitives: int"),
    ("redefined_name", '{"type":"record","name":"R","fields":[{"name":"a","type":{"type":"record","name":"R","fields":[]}}]}', "Can't redefine: R"),
    ("field_without_name", '{"type":"record","name":"R","fields":[{"type":"int"}]}', 'No field name: {"type":"int"}'),
    ("field_without_type", '{"type":"record","name":"R","fields":[{"name":"a"}]}', 'No field type: {"name":"a"}'),
    ("bad_field_name", '{"type":"record","name":"R","fields":[{"name":"a-b","type":"int"}]}', "Illegal character in: a-b"),
    ("non_ascii_field_name", '{"type":"record","name":"R","fields":[{"name":"\u00e9","type":"int"}]}', "Illegal initial character: \u00e9"),
    ("duplicate_field", '{"type":"record","name":"R","fields":[{"name":"a","type":"int"},{"name":"a","type":"long"}]}',
     "Duplicate field a in record R: a type:LONG pos:1 and a type:INT pos:0."),
    ("bad_order", '{"type":"record","name":"R","fields":[{"name":"a","type":"int","order":"up"}]}', "Field.Order.UP"),
    ("enum_without_symbols", '{"type":"enum","name":"E"}', 'Enum has no symbols: {"type":"enum","name":"E"}'),
    ("duplicate_symbol", '{"type":"enum","name":"E","symbols":["A","A"]}', "Duplicate enum symbol: A"),
    ("bad_symbol", '{"type":"enum","name":"E","symbols":["A","b-c"]}', "Illegal character in: b-c"),
    ("enum_default_not_a_symbol", '{"type":"enum","name":"E","symbols":["A"],"default":"B"}', "The Enum Default: B is not in the enum symbol set: [A]"),
    ("fixed_without_size", '{"type":"fixed","name":"F"}', 'Invalid or no size: {"type":"fixed","name":"F"}'),
    ("fixed_with_text_size", '{"type":"fixed","name":"F","size":"4"}', "Invalid or no size"),
    ("array_without_items", '{"type":"array"}', 'Array has no items type: {"type":"array"}'),
    ("map_without_values", '{"type":"map"}', 'Map has no values type: {"type":"map"}'),
    ("union_duplicate", '["null","null"]', "Duplicate in union:null"),
    ("union_two_arrays", '[{"type":"array","items":"int"},{"type":"array","items":"long"}]', "Duplicate in union:array"),
    ("nested_union", '["int",["long"]]', 'Nested union: ["int",["long"]]'),
    ("aliases_not_array", '{"type":"record","name":"R","fields":[],"aliases":"Q"}', "aliases not an array"),
    ("alias_not_string", '{"type":"record","name":"R","fields":[],"aliases":[1]}', "alias not a string: 1"),
    ("bad_alias_name", '{"type":"record","name":"R","fields":[],"aliases":["9x"]}', "Illegal initial character: 9x"),
    ("unparsable_double_default", '{"type":"record","name":"R","fields":[{"name":"a","type":"float","default":"abc"}]}', 'For input string: "abc"'),
]

INVALID_DEFAULTS = [
    ("int_from_string", '{"name":"a","type":"int","default":"x"}', 'Invalid default for field a: "x" not a "int"'),
    ("int_overflow", '{"name":"a","type":"int","default":2147483648}', "Invalid default for field a: 2147483648 not a \"int\""),
    ("boolean_from_number", '{"name":"a","type":"boolean","default":1}', 'Invalid default for field a: 1 not a "boolean"'),
    ("array_element", '{"name":"a","type":{"type":"array","items":"int"},"default":[1,"x"]}',
     'Invalid default for field a: [1,"x"] not a {"type":"array","items":"int"}'),
    ("record_missing_field", '{"name":"a","type":{"type":"record","name":"S","fields":[{"name":"x","type":"int"}]},"default":{}}',
     "Invalid default for field a: {} not a"),
    ("union_no_branch", '{"name":"a","type":["null","int"],"default":"x"}', "Invalid default for field a"),
]


@pytest.mark.parametrize("text, fragment", [c[1:] for c in INVALID], ids=[c[0] for c in INVALID])
def test_invalid_schema_is_refused_with_javas_reason(text: str, fragment: str) -> None:
    with pytest.raises(SchemaParseError) as raised:
        AVRO.parse(text, {})
    assert raised.value.message.startswith(PREFIX)
    assert fragment in raised.value.message


@pytest.mark.parametrize("text", [None, 42, b'"string"', ""])
def test_non_string_or_empty_text_is_invalid(text: object) -> None:
    with pytest.raises(SchemaParseError):
        AVRO.parse(text, {})  # type: ignore[arg-type]


@pytest.mark.parametrize("field, message", [c[1:] for c in INVALID_DEFAULTS], ids=[c[0] for c in INVALID_DEFAULTS])
def test_strict_parse_refuses_bad_default_and_lenient_parse_keeps_it(field: str, message: str) -> None:
    text = '{"type":"record","name":"R","fields":[' + field + "]}"
    with pytest.raises(SchemaParseError) as raised:
        AVRO.parse(text, {}, strict=True)
    assert message in raised.value.message
    stored = AVRO.parse(text, {}, strict=False)
    assert json.loads(stored.canonical)["fields"][0]["default"] == json.loads(field)["default"]


def test_lenient_parse_accepts_unicode_names_but_strict_does_not() -> None:
    text = '{"type":"record","name":"Caf\u00e9","fields":[{"name":"\u00fcber","type":"int"}]}'
    assert json.loads(AVRO.parse(text, {}, strict=False).canonical)["name"] == "Caf\u00e9"
    with pytest.raises(SchemaParseError):
        AVRO.parse(text, {})


CANONICAL = [
    ("primitive_string", '"string"', '"string"'),
    ("primitive_object_without_props", '{"type":"int"}', '"int"'),
    ("primitive_with_logical_type", '{"logicalType":"date","type":"int"}', '{"type":"int","logicalType":"date"}'),
    ("invalid_logical_type_kept_as_prop", '{"type":"string","logicalType":"date"}', '{"type":"string","logicalType":"date"}'),
    ("decimal", '{"scale":2,"precision":10,"type":"bytes","logicalType":"decimal"}',
     '{"type":"bytes","scale":2,"precision":10,"logicalType":"decimal"}'),
    ("top_level_union", '[ "null" , {"type":"long","logicalType":"timestamp-millis"} ]',
     '["null",{"type":"long","logicalType":"timestamp-millis"}]'),
    ("empty_union", "[]", "[]"),
    ("record_key_order", '{"fields":[{"type":"int","name":"id"}],"name":"User","type":"record"}',
     '{"type":"record","name":"User","fields":[{"name":"id","type":"int"}]}'),
    ("record_doc_props_aliases",
     '{"aliases":["Old"],"x-owner":"team","doc":"a user","type":"record","name":"User","fields":'
     '[{"x-pii":true,"aliases":["uid"],"order":"ignore","default":0,"doc":"the id","type":"int","name":"id"}]}',
     '{"type":"record","name":"User","doc":"a user","fields":[{"name":"id","type":"int","doc":"the id","default":0,'
     '"order":"ignore","aliases":["uid"],"x-pii":true}],"x-owner":"team","aliases":["Old"]}'),
    ("ascending_order_dropped", '{"type":"record","name":"R","fields":[{"name":"a","type":"int","order":"ascending"}]}',
     '{"type":"record","name":"R","fields":[{"name":"a","type":"int"}]}'),
    ("enum_key_order", '{"aliases":["Card"],"x":1,"default":"S","symbols":["S","H"],"doc":"cards","name":"Suit","type":"enum"}',
     '{"type":"enum","name":"Suit","doc":"cards","symbols":["S","H"],"default":"S","x":1,"aliases":["Card"]}'),
    ("fixed_key_order", '{"aliases":["Digest"],"x":1,"doc":"hash","size":16,"name":"MD5","type":"fixed"}',
     '{"type":"fixed","name":"MD5","doc":"hash","size":16,"x":1,"aliases":["Digest"]}'),
    ("map_and_array_props", '{"x":1,"values":{"avro.java.string":"String","type":"string"},"type":"map"}',
     '{"type":"map","values":{"type":"string","avro.java.string":"String"},"x":1}'),
    ("namespace_elided_when_inherited",
     '{"type":"record","name":"Outer","namespace":"com.acme","fields":[{"name":"inner","type":{"type":"record","name":"Inner",'
     '"namespace":"com.acme","fields":[{"name":"x","type":"int"}]}},{"name":"other","type":{"type":"enum","name":"Color",'
     '"namespace":"org.paint","symbols":["RED"]}},{"name":"again","type":"com.acme.Inner"},{"name":"color2","type":"org.paint.Color"}]}',
     '{"type":"record","name":"Outer","namespace":"com.acme","fields":[{"name":"inner","type":{"type":"record","name":"Inner",'
     '"fields":[{"name":"x","type":"int"}]}},{"name":"other","type":{"type":"enum","name":"Color","namespace":"org.paint",'
     '"symbols":["RED"]}},{"name":"again","type":"Inner"},{"name":"color2","type":"org.paint.Color"}]}'),
    ("empty_namespace_inside_namespace",
     '{"type":"record","name":"Top","namespace":"ns","fields":[{"name":"plain","type":{"type":"fixed","name":"Hash","namespace":"","size":16}}]}',
     '{"type":"record","name":"Top","namespace":"ns","fields":[{"name":"plain","type":{"type":"fixed","name":"Hash","namespace":"","size":16}}]}'),
    ("dotted_name_splits_namespace", '{"type":"record","name":"com.acme.Full","fields":[]}',
     '{"type":"record","name":"Full","namespace":"com.acme","fields":[]}'),
    ("reference_named_like_a_type_is_qualified",
     '{"type":"record","name":"R","namespace":"a.b","fields":[{"name":"x","type":{"type":"enum","name":"int","symbols":["A"]}},{"name":"y","type":"a.b.int"}]}',
     '{"type":"record","name":"R","namespace":"a.b","fields":[{"name":"x","type":{"type":"enum","name":"int","symbols":["A"]}},{"name":"y","type":"a.b.int"}]}'),
    ("recursive_record", '{"type":"record","name":"Node","fields":[{"name":"value","type":"int"},{"name":"children","type":{"type":"array","items":"Node"}}]}',
     '{"type":"record","name":"Node","fields":[{"name":"value","type":"int"},{"name":"children","type":{"type":"array","items":"Node"}}]}'),
    ("java_number_and_string_output",
     '{"type":"record","name":"R","fields":[{"name":"d","type":"double","default":"2.5"},{"name":"f","type":"float","default":100},'
     '{"name":"g","type":"double","default":1e-7},{"name":"h","type":"double","default":1E20},{"name":"s","type":"string","default":"t\\u0001\\t\u00e9"}]}',
     '{"type":"record","name":"R","fields":[{"name":"d","type":"double","default":2.5},{"name":"f","type":"float","default":100},'
     '{"name":"g","type":"double","default":1.0E-7},{"name":"h","type":"double","default":1.0E20},{"name":"s","type":"string","default":"t\\u0001\\t\u00e9"}]}'),
    ("union_default_of_any_branch", '{"type":"record","name":"R","fields":[{"name":"u","type":["null","string"],"default":"x"}]}',
     '{"type":"record","name":"R","fields":[{"name":"u","type":["null","string"],"default":"x"}]}'),
    ("error_type", '{"type":"error","name":"Oops","fields":[]}', '{"type":"error","name":"Oops","fields":[]}'),
]


@pytest.mark.parametrize("text, expected", [c[1:] for c in CANONICAL], ids=[c[0] for c in CANONICAL])
def test_canonical_text_is_javas_to_string(text: str, expected: str) -> None:
    parsed = AVRO.parse(text, {})
    assert parsed.schema_type == "AVRO"
    assert parsed.canonical == expected
    assert AVRO.parse(parsed.canonical, {}).canonical == expected


def test_whitespace_and_key_order_do_not_change_canonical_text() -> None:
    compact = '{"type":"record","name":"R","namespace":"n","fields":[{"name":"a","type":["null","int"],"default":null}]}'
    spaced = """
        { "fields" : [ { "default": null, "type" : [ "null", "int" ], "name" : "a" } ],
          "namespace": "n", "name" : "R", "type" : "record" }
    """
    assert AVRO.parse(spaced, {}).canonical == AVRO.parse(compact, {}).canonical == compact


ADDRESS = '{"type":"record","name":"Address","namespace":"com.acme","fields":[{"name":"city","type":"string"}]}'
PERSON = (
    '{"type":"record","name":"Person","namespace":"com.acme","fields":[{"name":"home","type":"Address"},'
    '{"name":"work","type":["null","com.acme.Address"],"default":null}]}'
)


def test_referenced_type_is_used_by_name_and_not_inlined() -> None:
    parsed = AVRO.parse(PERSON, {"com.acme.Address": ADDRESS})
    assert parsed.canonical == (
        '{"type":"record","name":"Person","namespace":"com.acme","fields":[{"name":"home","type":"Address"},'
        '{"name":"work","type":["null","Address"],"default":null}]}'
    )


def test_resolved_format_inlines_referenced_types() -> None:
    parsed = AVRO.parse(PERSON, {"com.acme.Address": ADDRESS})
    assert AVRO.formatted(parsed, "resolved") == AVRO.formatted(parsed, "RESOLVED") == (
        '{"type":"record","name":"Person","namespace":"com.acme","fields":[{"name":"home","type":{"type":"record",'
        '"name":"Address","fields":[{"name":"city","type":"string"}]}},{"name":"work","type":["null","Address"],"default":null}]}'
    )
    assert AVRO.formatted(parsed, "serialized") is None


def test_reference_chain_resolves_in_dependency_order() -> None:
    city = '{"type":"enum","name":"City","namespace":"geo","symbols":["PARIS"]}'
    address = '{"type":"record","name":"Address","namespace":"geo","fields":[{"name":"city","type":"City"}]}'
    parsed = AVRO.parse('{"type":"array","items":"geo.Address"}', {"geo.City": city, "geo.Address": address})
    assert parsed.canonical == '{"type":"array","items":"geo.Address"}'
    assert '"symbols":["PARIS"]' in AVRO.formatted(parsed, "resolved")


def test_missing_reference_is_an_undefined_name() -> None:
    with pytest.raises(SchemaParseError, match="Undefined schema: com.acme.Address"):
        AVRO.parse(PERSON, {})


NORMALIZE = [
    # Confluent's AvroSchemaTest#testNormalization
    ("docs_kept", '{"type":"record","name":"myrecord","doc":"hi\\"there","fields":[{"type":"string","name":"f1","doc":"bye\\"now"}]}',
     '{"type":"record","name":"myrecord","doc":"hi\\"there","fields":[{"name":"f1","type":"string","doc":"bye\\"now"}]}'),
    # Confluent's AvroSchemaTest#testNormalizationPreservesMetadataForPrimitiveTypes
    ("connect_props_kept",
     '{"connect.name": "some.scope.Envelope","fields": [{"default": null,"name": "before","type": ["null",{"connect.name": '
     '"some.scope.Value","fields": [{"name": "created_at","type": {"connect.name": "io.debezium.time.Timestamp","connect.version": 1,'
     '"type": "long"}},{"name":"normal_long","type":"long"}],"name": "Value","type": "record"}]},{"default": null,"name": "after",'
     '"type": ["null","Value"]}],"name": "Envelope","namespace": "some.scope","type": "record"}',
     '{"type":"record","name":"Envelope","namespace":"some.scope","fields":[{"name":"before","type":["null",{"type":"record",'
     '"name":"Value","fields":[{"name":"created_at","type":{"type":"long","connect.name":"io.debezium.time.Timestamp",'
     '"connect.version":1}},{"name":"normal_long","type":"long"}],"connect.name":"some.scope.Value"}],"default":null},'
     '{"name":"after","type":["null","Value"],"default":null}],"connect.name":"some.scope.Envelope"}'),
    ("props_aliases_sorted_defaults_retyped_logical_first",
     '{"type":"record","name":"R","namespace":"a","z":1,"b":{"y":1,"x":[2,1]},"aliases":["Q","c.P"],"fields":[{"name":"f",'
     '"type":"double","default":1,"aliases":["z","y"],"q":2,"p":1},{"name":"g","type":"float","default":0.1234567891},'
     '{"name":"h","type":{"type":"bytes","logicalType":"decimal","scale":2,"precision":4,"k":1}}]}',
     '{"type":"record","name":"R","namespace":"a","fields":[{"name":"f","type":"double","default":1.0,"aliases":["y","z"],'
     '"p":1,"q":2},{"name":"g","type":"float","default":0.12345679},{"name":"h","type":{"type":"bytes","logicalType":"decimal",'
     '"precision":4,"scale":2,"k":1}}],"b":{"x":[2,1],"y":1},"z":1,"aliases":["Q","c.P"]}'),
    ("empty_type_doc_dropped", '{"type":"enum","name":"E","doc":"","symbols":["A"]}', '{"type":"enum","name":"E","symbols":["A"]}'),
    ("defaults_retyped_through_unions_maps_records",
     '{"type":"record","name":"R","fields":[{"name":"b","type":"bytes","default":"\\u00ff\\u0100"},{"name":"v","type":["double","null"],'
     '"default":3},{"name":"m","type":{"type":"map","values":"float"},"default":{"z":1,"a":2.5}},{"name":"r","type":{"type":"record",'
     '"name":"S","fields":[{"name":"y","type":"long"},{"name":"x","type":"double"}]},"default":{"y":1,"x":2}},'
     '{"name":"f","type":"float","default":16777217}]}',
     '{"type":"record","name":"R","fields":[{"name":"b","type":"bytes","default":"\u00ff?"},{"name":"v","type":["double","null"],'
     '"default":3.0},{"name":"m","type":{"type":"map","values":"float"},"default":{"a":2.5,"z":1.0}},{"name":"r","type":{"type":"record",'
     '"name":"S","fields":[{"name":"y","type":"long"},{"name":"x","type":"double"}]},"default":{"x":2.0,"y":1}},'
     '{"name":"f","type":"float","default":1.6777216E7}]}'),
    ("enum_aliases_qualified_then_sorted",
     '{"type":"enum","name":"E","namespace":"n","symbols":["B","A"],"default":"A","aliases":[".X","Y","m.Z"],"doc":"d","p":[{"b":1,"a":2}]}',
     '{"type":"enum","name":"E","namespace":"n","doc":"d","symbols":["B","A"],"default":"A","p":[{"a":2,"b":1}],"aliases":["X","m.Z","Y"]}'),
    ("explicit_zero_scale_sorted_after_logical_props",
     '{"type":"fixed","name":"F","size":8,"scale":0,"logicalType":"decimal","precision":18}',
     '{"type":"fixed","name":"F","size":8,"logicalType":"decimal","precision":18,"scale":0}'),
]


@pytest.mark.parametrize("text, expected", [c[1:] for c in NORMALIZE], ids=[c[0] for c in NORMALIZE])
def test_normalize_gives_confluents_stored_text(text: str, expected: str) -> None:
    normalized = AVRO.normalize(AVRO.parse(text, {}))
    assert normalized.canonical == expected
    assert AVRO.normalize(normalized).canonical == expected


def test_normalize_equates_namespace_spellings_and_property_order() -> None:
    spellings = [
        '{"type":"record","name":"a.b.R","fields":[{"name":"e","type":{"type":"enum","name":"E","symbols":["X"]}}],"p":1,"o":2}',
        '{"type":"record","name":"R","namespace":"a.b","fields":[{"name":"e","type":{"type":"enum","name":"a.b.E","symbols":["X"]}}],"o":2,"p":1}',
    ]
    first, second = (AVRO.normalize(AVRO.parse(text, {})).canonical for text in spellings)
    assert first == second
    assert AVRO.parse(spellings[0], {}).canonical != AVRO.parse(spellings[1], {}).canonical


def test_normalize_keeps_references_by_name() -> None:
    normalized = AVRO.normalize(AVRO.parse(PERSON, {"com.acme.Address": ADDRESS}))
    assert normalized.canonical == AVRO.parse(PERSON, {"com.acme.Address": ADDRESS}).canonical
