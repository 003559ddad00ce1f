"""Regular expressions in JSON Schemas (`pattern`, `patternProperties` keys) must compile as
ECMA-262 regular expressions when a schema arrives; stored schemas are read as they are."""
from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from app.formats.base import SchemaParseError
from app.formats.json_schema import JsonSchemaFormat
from app.formats.json_schema.patterns import MAX_GROUP_DEPTH, regex_error

FORMAT = JsonSchemaFormat()

# ECMA-262 (with Annex B) patterns Python's `re` refuses as written, and Java/Python extensions
# Confluent's loaders accept.
VALID = [
    "^[0-9]{5}$",
    r"(?<year>\d{4})-\k<year>",
    r"\p{L}+",
    r"[\p{Lu}\d-z]",
    r"\cJ",
    r"\u{1F600}",
    r"a\u{41}b\u{1F600}+",
    "[]",
    "[^]",
    "(?<=a+)b",
    r"\1(a)",
    r"(a\1)",
    r"\e",
    "x{99999999999}",
    "x{" + "1" * 5000 + "}",
    "[[:alpha:]]",
    r"\/",
    "a{,3}",
    r"\k<plain>",
    r"x>\k<\k<",
    "(?i)abc",
    "a*+",
    r"(?<$name>a)",
]
INVALID = {
    "([": "unterminated character set",
    "(": "missing ), unterminated subpattern",
    "a**": "multiple repeat",
    "[z-a]": "bad character range z-a",
    "a{2,1}": "min repeat greater than max repeat",
    "a{" + "9" * 30 + ",1}": "min repeat greater than max repeat",
    "\\": "bad escape (end of pattern)",
    "*a": "nothing to repeat",
    r"(?<n>a)\k<m>": r"\k<m> names no group",
    r"(?<n>a)\k<n": r"\k must name a group",
    "(?<n>a)(?<n>b)": "duplicate group name 'n'",
    "(?<1a>x)": "invalid group name '1a'",
    r"\p{": "invalid Unicode property escape",
    "(" * (MAX_GROUP_DEPTH + 1) + ")" * (MAX_GROUP_DEPTH + 1): f"groups nested more than {MAX_GROUP_DEPTH} deep",
}


@pytest.mark.parametrize("pattern", VALID)
def test_an_ecma_262_pattern_compiles(pattern: str) -> None:
    assert regex_error(pattern) is None


@pytest.mark.parametrize("pattern", list(INVALID))
def test_a_pattern_no_dialect_reads_is_refused_with_its_reason(pattern: str) -> None:
    assert regex_error(pattern) == INVALID[pattern]


def test_a_pattern_that_does_not_compile_is_refused_naming_its_pointer() -> None:
    schema = {"type": "object", "properties": {"code": {"type": "string", "pattern": "(["}}}
    with pytest.raises(SchemaParseError) as raised:
        FORMAT.parse(json.dumps(schema), {})
    assert raised.value.message == (
        'Invalid schema of type JSON, details: #/properties/code/pattern: "([" is not a valid ECMA-262 '
        "regular expression (unterminated character set)"
    )


def test_a_pattern_properties_key_that_does_not_compile_is_refused_naming_its_pointer() -> None:
    schema = {"$defs": {"tags": {"patternProperties": {"^ok$": {}, "x/(": {"type": "string"}}}}}
    with pytest.raises(SchemaParseError) as raised:
        FORMAT.parse(json.dumps(schema), {})
    assert raised.value.message == (
        'Invalid schema of type JSON, details: #/$defs/tags/patternProperties/x~1(: "x/(" is not a valid '
        "ECMA-262 regular expression (missing ), unterminated subpattern)"
    )


def test_a_long_pattern_is_quoted_in_part() -> None:
    with pytest.raises(SchemaParseError) as raised:
        FORMAT.parse(json.dumps({"pattern": "a" * 300 + "("}), {})
    assert f'"{"a" * 100}..." is not a valid' in raised.value.message


def test_a_stored_schema_with_a_broken_pattern_is_read_leniently() -> None:
    text = json.dumps({"type": "string", "pattern": "(["})
    assert FORMAT.parse(text, {}, strict=False).canonical == '{"type":"string","pattern":"(["}'


def test_a_request_parsed_leniently_still_has_its_patterns_checked() -> None:
    parsed = FORMAT.parse(json.dumps({"items": {"pattern": "a**"}}), {}, strict=False)
    with pytest.raises(SchemaParseError) as raised:
        FORMAT.check_request(parsed)
    assert raised.value.message.startswith("Invalid schema of type JSON, details: #/items/pattern: ")
    FORMAT.check_request(FORMAT.parse(json.dumps({"items": {"pattern": r"\p{L}"}}), {}, strict=False))


def test_a_pattern_key_that_is_data_is_not_a_regex() -> None:
    """`pattern` as a property name or inside `enum` is not a regular expression."""
    schema = {"properties": {"pattern": {"type": "string"}}, "enum": [{"pattern": "(["}]}
    assert FORMAT.parse(json.dumps(schema), {}).canonical


@settings(max_examples=500, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("\\()[]{}<>^$|?*+-,.:=!kpPcux0129aAZ_$ ")), max_size=30))
def test_any_text_gets_a_verdict_and_never_an_exception(pattern: str) -> None:
    error = regex_error(pattern)
    assert error is None or (isinstance(error, str) and error)
