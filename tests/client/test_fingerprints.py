"""Parsing Canonical Form and the Avro specification's three fingerprint algorithms.

The CRC-64-AVRO cases are the test vectors the Avro project ships for every implementation
(`share/test/data/schema-tests.txt`: input, canonical form, fingerprint as a signed Java long).
MD5 and SHA-256 are the Avro specification's digests of the same canonical text; they are
checked against hashlib directly and against the Apache `avro` library's and fastavro's own
fingerprints.
"""
from __future__ import annotations

import hashlib
import json

import avro.schema
import fastavro.schema
import pytest

from app.fingerprinting.canonical import CanonicalFormError, parsing_canonical_form
from app.fingerprinting.fingerprint import (
    CRC64,
    MD5,
    SHA256,
    Fingerprint,
    FingerprintError,
    crc64_avro,
    fingerprint_of_form,
    schema_fingerprint,
)

# (input, canonical form, CRC-64-AVRO as a signed long or None where the test data gives none)
SPEC_VECTORS = [
    ('"null"', '"null"', 7195948357588979594),
    ('{"type":"null"}', '"null"', None),
    ('"boolean"', '"boolean"', -6970731678124411036),
    ('{"type":"boolean"}', '"boolean"', None),
    ('"int"', '"int"', 8247732601305521295),
    ('{"type":"int"}', '"int"', None),
    ('"long"', '"long"', -3434872931120570953),
    ('{"type":"long"}', '"long"', None),
    ('"float"', '"float"', 5583340709985441680),
    ('{"type":"float"}', '"float"', None),
    ('"double"', '"double"', -8181574048448539266),
    ('{"type":"double"}', '"double"', None),
    ('"bytes"', '"bytes"', 5746618253357095269),
    ('{"type":"bytes"}', '"bytes"', None),
    ('"string"', '"string"', -8142146995180207161),
    ('{"type":"string"}', '"string"', None),
    ("[  ]", "[]", -1241056759729112623),
    ('[ "int"  ]', '["int"]', -5232228896498058493),
    ('[ "int" , {"type":"boolean"} ]', '["int","boolean"]', 5392556393470105090),
    ('{"fields":[], "type":"record", "name":"foo"}', '{"name":"foo","type":"record","fields":[]}',
     -4824392279771201922),
    ('{"fields":[], "type":"record", "name":"foo", "namespace":"x.y"}',
     '{"name":"x.y.foo","type":"record","fields":[]}', 5916914534497305771),
    ('{"fields":[], "type":"record", "name":"a.b.foo", "namespace":"x.y"}',
     '{"name":"a.b.foo","type":"record","fields":[]}', -4616218487480524110),
    ('{"fields":[], "type":"record", "name":"foo", "doc":"Useful info"}',
     '{"name":"foo","type":"record","fields":[]}', -4824392279771201922),
    ('{"fields":[], "type":"record", "name":"foo", "aliases":["foo","bar"]}',
     '{"name":"foo","type":"record","fields":[]}', -4824392279771201922),
    ('{"fields":[], "type":"record", "name":"foo", "doc":"foo", "aliases":["foo","bar"]}',
     '{"name":"foo","type":"record","fields":[]}', -4824392279771201922),
    ('{"fields":[{"type":{"type":"boolean"}, "name":"f1"}], "type":"record", "name":"foo"}',
     '{"name":"foo","type":"record","fields":[{"name":"f1","type":"boolean"}]}', 7843277075252814651),
    ('{ "fields":[{"type":"boolean", "aliases":[], "name":"f1", "default":"true"},\n'
     '            {"order":"descending","name":"f2","doc":"Hello","type":"int"}],\n'
     '  "type":"record", "name":"foo"\n}',
     '{"name":"foo","type":"record","fields":[{"name":"f1","type":"boolean"},{"name":"f2","type":"int"}]}',
     -4860222112080293046),
    ('{"type":"enum", "name":"foo", "symbols":["A1"]}', '{"name":"foo","type":"enum","symbols":["A1"]}',
     -6342190197741309591),
    ('{"namespace":"x.y.z", "type":"enum", "name":"foo", "doc":"foo bar", "symbols":["A1", "A2"]}',
     '{"name":"x.y.z.foo","type":"enum","symbols":["A1","A2"]}', -4448647247586288245),
    ('{"name":"foo","type":"fixed","size":15}', '{"name":"foo","type":"fixed","size":15}', 1756455273707447556),
    ('{"namespace":"x.y.z", "type":"fixed", "name":"foo", "doc":"foo bar", "size":32}',
     '{"name":"x.y.z.foo","type":"fixed","size":32}', -3064184465700546786),
    ('{ "items":{"type":"null"}, "type":"array"}', '{"type":"array","items":"null"}', -589620603366471059),
    ('{ "values":"string", "type":"map"}', '{"type":"map","values":"string"}', -8732877298790414990),
    ('{"name":"PigValue","type":"record",\n'
     ' "fields":[{"name":"value", "type":["null", "int", "long", "PigValue"]}]}',
     '{"name":"PigValue","type":"record","fields":[{"name":"value","type":["null","int","long","PigValue"]}]}',
     -1759257747318642341),
]


@pytest.mark.parametrize("text, canonical, expected", SPEC_VECTORS,
                         ids=[f"spec-{i:03d}" for i in range(len(SPEC_VECTORS))])
def test_canonical_form_and_crc64_match_the_avro_test_vectors(text, canonical, expected):
    assert parsing_canonical_form(text) == canonical
    if expected is not None:
        assert schema_fingerprint(text).signed == expected


def test_crc64_avro_of_int_is_the_specs_value_little_endian():
    found = schema_fingerprint('"int"', algorithm=CRC64)
    assert found.signed == 8247732601305521295
    assert found.hex == "8f5c393f1ad57572"  # 0x7275d51a3f395c8f, least significant byte first


def test_crc64_of_no_bytes_is_the_specs_empty_value():
    assert crc64_avro(b"") == 0xC15D213AA4D7A795


def test_md5_and_sha256_of_int_are_the_digests_of_its_canonical_form():
    assert schema_fingerprint('"int"', algorithm=MD5).hex == "ef524ea1b91e73173d938ade36c1db32"
    assert schema_fingerprint('"int"', algorithm=SHA256).hex == (
        "3f2b87a9fe7cc9b13835598c3981cd45e3e355309e5090aa0933d7becb6fba45"
    )


# Schemas beyond the test data: logical types, nested namespaces, references back and forth.
OUTER = {"type": "record", "name": "Outer", "namespace": "a.b", "doc": "d", "fields": [
    {"name": "inner", "type": {"type": "record", "name": "Inner", "fields": [
        {"name": "x", "type": "long", "default": 0},
    ]}},
    {"name": "again", "type": "Inner"},
    {"name": "elsewhere", "type": {"type": "record", "name": "c.Other", "fields": [
        {"name": "back", "type": ["null", "a.b.Inner"]},
        {"name": "local", "type": {"type": "enum", "name": "Color", "symbols": ["R", "G"], "default": "R"}},
    ]}},
    {"name": "color", "type": "c.Color"},
    {"name": "m", "type": {"type": "map", "values": {"type": "fixed", "name": "Hash", "size": 16,
                                                     "aliases": ["Digest"]}}},
]}
# [STRINGS]: escapes become the characters they stand for (\u0055 is "U").
ESCAPED = ('{"type": "record", "name": "\\u0055ni", "doc": "caf\u00e9 \u2603", '
           '"fields": [{"name": "s", "type": "string"}]}')
# Where the Apache Python library departs from Java (it keeps logical-type annotations and reads
# an empty namespace as "inherit"), fastavro, which follows Java, is the only oracle.
JAVA_ONLY = [
    {"type": "int", "logicalType": "date"},
    {"type": "bytes", "logicalType": "decimal", "precision": 9, "scale": 2},
    dict(OUTER, name="Annotated", fields=OUTER["fields"] + [
        {"name": "ts", "type": {"type": "long", "logicalType": "timestamp-millis"}},
        {"name": "blank", "type": {"type": "record", "name": "NoSpace", "namespace": "", "fields": []}},
    ]),
]


@pytest.mark.parametrize("text", [json.dumps(OUTER), ESCAPED], ids=["nested-namespaces", "escapes"])
def test_canonical_form_and_all_fingerprints_agree_with_avro_and_fastavro(text):
    form = parsing_canonical_form(text)
    assert form == fastavro.schema.to_parsing_canonical_form(fastavro.schema.parse_schema(json.loads(text)))
    reference = avro.schema.parse(text)
    assert form == reference.canonical_form
    assert schema_fingerprint(text, algorithm=CRC64).digest == reference.fingerprint("CRC-64-AVRO")
    for algorithm in (MD5, SHA256):
        digest = schema_fingerprint(text, algorithm=algorithm).digest
        assert digest == hashlib.new(algorithm, form.encode()).digest() == reference.fingerprint(algorithm)


@pytest.mark.parametrize("schema", JAVA_ONLY, ids=["date", "decimal", "annotated-record"])
def test_logical_types_and_empty_namespaces_reduce_as_in_java(schema):
    form = parsing_canonical_form(json.dumps(schema))
    assert form == fastavro.schema.to_parsing_canonical_form(fastavro.schema.parse_schema(schema))
    assert "logicalType" not in form and "namespace" not in form
    for algorithm in (CRC64, MD5, SHA256):
        fastavro_name = {CRC64: "CRC-64-AVRO", MD5: "md5", SHA256: "sha256"}[algorithm]
        expected = fastavro.schema.fingerprint(form, fastavro_name)
        assert fingerprint_of_form(form, algorithm).hex == expected


def test_referenced_types_are_inlined_where_first_used_as_in_the_resolved_schema():
    customer = {"type": "record", "name": "Customer", "namespace": "com.example",
                "fields": [{"name": "id", "type": "long"}]}
    order = {"type": "record", "name": "Order", "namespace": "com.example",
             "fields": [{"name": "buyer", "type": "Customer"}, {"name": "seller", "type": "com.example.Customer"}]}
    resolved = dict(order, fields=[{"name": "buyer", "type": customer}, {"name": "seller", "type": "Customer"}])
    assert parsing_canonical_form(json.dumps(order), [json.dumps(customer)]) == parsing_canonical_form(
        json.dumps(resolved)
    )


@pytest.mark.parametrize("text", ['"Nope"', '{"type":"record","fields":[]}', '{"type":"fixed","name":"F"}', "{"])
def test_schemas_without_a_canonical_form_are_refused(text):
    with pytest.raises(CanonicalFormError):
        parsing_canonical_form(text)


def test_fingerprint_hex_round_trips_and_bad_hex_or_algorithm_is_refused():
    found = schema_fingerprint('"string"', algorithm=SHA256)
    assert Fingerprint.from_hex(SHA256, found.hex.upper()) == found
    assert fingerprint_of_form('"string"', SHA256) == found
    for algorithm, text in [("crc64", "abc"), ("crc64", "zz" * 8), ("md5", "00" * 8), ("sha1", "00" * 20)]:
        with pytest.raises(FingerprintError):
            Fingerprint.from_hex(algorithm, text)
