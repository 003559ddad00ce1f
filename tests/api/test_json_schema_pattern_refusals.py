"""A JSON Schema whose regular expression does not compile is 42201 naming its JSON pointer at
registration, lookup and compatibility requests, and changes nothing; a stored one (IMPORT) is
still read and compared against. On both databases."""
from __future__ import annotations

import json

from api_client import Api

JSON = "JSON"
GOOD = json.dumps({"type": "object", "properties": {"code": {"type": "string", "pattern": "^[A-Z]{3}$"}}})
BROKEN = json.dumps({"type": "object", "properties": {"code": {"type": "string", "pattern": "(["}}})
BROKEN_MESSAGE = ('Invalid schema of type JSON, details: #/properties/code/pattern: "([" is not a valid '
                  "ECMA-262 regular expression (unterminated character set)")


def test_registering_a_pattern_that_does_not_compile_is_42201_and_stores_nothing(api: Api) -> None:
    before = api.snapshot()
    reply = api.register("codes", BROKEN, schemaType=JSON)
    assert (reply.status, reply.json) == (422, {"error_code": 42201, "message": BROKEN_MESSAGE})
    assert api.snapshot() == before


def test_a_pattern_properties_key_that_does_not_compile_is_42201_naming_it(api: Api) -> None:
    schema = json.dumps({"type": "object", "patternProperties": {"^x-(": {"type": "string"}}})
    reply = api.register("codes", schema, schemaType=JSON)
    assert reply.error_code == 42201
    assert reply.json["message"].startswith(
        'Invalid schema of type JSON, details: #/patternProperties/^x-(: "^x-(" is not a valid ECMA-262')


def test_a_compatibility_check_of_a_pattern_that_does_not_compile_is_42201(api: Api) -> None:
    api.registered("codes", GOOD, schemaType=JSON)
    reply = api.post("/compatibility/subjects/codes/versions/latest", {"schema": BROKEN, "schemaType": JSON})
    assert (reply.status, reply.json) == (422, {"error_code": 42201, "message": BROKEN_MESSAGE})


def test_a_lookup_of_a_pattern_that_does_not_compile_is_42201(api: Api) -> None:
    api.registered("codes", GOOD, schemaType=JSON)
    reply = api.post("/subjects/codes", {"schema": BROKEN, "schemaType": JSON})
    assert (reply.status, reply.json) == (422, {"error_code": 42201, "message": BROKEN_MESSAGE})


def test_ecma_262_patterns_python_spells_otherwise_register_and_are_found(api: Api) -> None:
    schema = json.dumps({"type": "object", "properties": {
        "date": {"type": "string", "pattern": r"^(?<year>\d{4})-\k<year>$"},
        "name": {"type": "string", "pattern": r"^\p{Lu}\p{Ll}*$"}}})
    registered = api.registered("named", schema, schemaType=JSON)
    assert api.post("/subjects/named", {"schema": schema, "schemaType": JSON}).json["id"] == registered["id"]


def test_an_imported_schema_with_a_broken_pattern_is_read_and_checked_against(api: Api) -> None:
    """IMPORT copies schemas as they are; reading and comparing them stays lenient."""
    api.set_mode("IMPORT")
    imported = api.registered("codes", BROKEN, schemaType=JSON, id=100, version=1)
    api.set_mode("READWRITE")
    assert api.get("/schemas/ids/100").json["schema"] == imported["schema"]
    check = api.post("/compatibility/subjects/codes/versions/latest", {"schema": GOOD, "schemaType": JSON})
    assert check.status == 200, check
