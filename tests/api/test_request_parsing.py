"""Bodies and parameters: 400 / 404 / 422 and the lenient parts."""
from __future__ import annotations

import json

import pytest

from api_client import Api
from api_samples import RECORD_V1

BODY_ENDPOINTS = [
    ("POST", "/subjects/s/versions"),
    ("POST", "/subjects/s"),
    ("POST", "/compatibility/subjects/s/versions"),
    ("POST", "/compatibility/subjects/s/versions/latest"),
    ("PUT", "/config"),
    ("PUT", "/config/s"),
    ("PUT", "/mode"),
    ("PUT", "/mode/s"),
]


@pytest.mark.parametrize("method, path", BODY_ENDPOINTS)
@pytest.mark.parametrize("raw", ["", "   ", "null"], ids=["empty", "blank", "null"])
def test_missing_body_is_422(api: Api, method: str, path: str, raw: str) -> None:
    reply = api.call(method, path, raw=raw)
    assert (reply.status, reply.error_code) == (422, 422), reply


@pytest.mark.parametrize("method, path", BODY_ENDPOINTS)
@pytest.mark.parametrize("raw", ['{"schema": ', "{'schema': 1}", "not json", '{"a": NaN}', b"\xff\xfe\x00"],
                         ids=["truncated", "single-quotes", "bare-word", "nan", "bad-bytes"])
def test_invalid_json_is_400_with_the_parser_text(api: Api, method: str, path: str, raw: str | bytes) -> None:
    reply = api.call(method, path, raw=raw)
    assert (reply.status, reply.error_code) == (400, 400), reply
    assert reply.json["message"]


@pytest.mark.parametrize("body", [
    [1, 2], "a string", 5, True,
    {"schema": 5},
    {"schema": {"type": "string"}},
    {"schemaType": 1},
    {"references": "x"},
    {"references": [1]},
    {"references": [{"name": "n", "subject": "s", "version": "abc"}]},
    {"references": [{"name": 5, "subject": "s", "version": 1}]},
    {"version": "abc"},
    {"version": True},
    {"version": 1.5},
    {"version": 2**31},
    {"id": "x"},
    {"metadata": "x"},
    {"metadata": {"properties": {"k": 1}}},
    {"metadata": {"tags": {"f": "PII"}}},
    {"metadata": {"sensitive": "k"}},
    {"ruleSet": []},
    {"ruleSet": {"domainRules": {"name": "r"}}},
    {"ruleSet": {"domainRules": [{"name": "r", "disabled": "no"}]}},
], ids=repr)
def test_json_type_mismatch_is_400(api: Api, body: object) -> None:
    reply = api.call("POST", "/subjects/s/versions", raw=json.dumps(body))
    assert (reply.status, reply.error_code) == (400, 400), reply
    assert api.get("/subjects").json == []


@pytest.mark.parametrize("body", [
    {"schema": RECORD_V1, "version": "1"},
    {"schema": RECORD_V1, "version": 1.0},
    {"schema": RECORD_V1, "schemaType": None, "references": None, "metadata": None, "ruleSet": None},
    {"schema": RECORD_V1, "unknown": {"nested": [1]}},
], ids=["numeric-string", "integral-float", "explicit-nulls", "unknown-property"])
def test_lenient_body_values_are_accepted(api: Api, body: dict) -> None:
    assert api.post("/subjects/s/versions", body).status == 200


@pytest.mark.parametrize("path", [
    "/subjects?offset=abc", "/subjects?limit=1.5", "/schemas?limit=ten", "/contexts?offset=x",
    "/subjects/s/versions?offset=%20x", "/schemas/ids/1/subjects?limit=99999999999",
    "/subjects/s/versions/1/referencedby?offset=-",
])
def test_integer_parameter_that_does_not_parse_is_404(api: Api, path: str) -> None:
    api.registered("s", RECORD_V1)
    response = api.client.get(path)
    body = response.get_json(force=True)
    assert (response.status_code, body["error_code"]) == (404, 404)


# Confluent's `{id}` and `limit`/`offset` are Java `Integer`/`int` parameters: a value that
# does not parse (out of 32 bits included) is Jersey's ParamException, status 404, which
# rest-utils maps to error_code 404 with the exception's "HTTP 404 Not Found".
@pytest.mark.parametrize("path", [
    "/schemas/ids/2147483648", "/schemas/ids/-2147483649", "/schemas/ids/abc", "/schemas/ids/1.0",
    "/schemas/ids/2147483648/schema", "/schemas/ids/99999999999/subjects", "/schemas/ids/x/versions",
    "/subjects?limit=abc", "/subjects?offset=2147483648", "/schemas/ids/1/versions?limit=abc",
])
def test_a_java_integer_parameter_out_of_range_or_not_a_number_is_jerseys_404(api: Api, path: str) -> None:
    api.registered("s", RECORD_V1)
    reply = api.call("GET", path)
    assert (reply.status, reply.json) == (404, {"error_code": 404, "message": "HTTP 404 Not Found"})


def test_the_largest_int32_id_is_looked_up_not_refused(api: Api) -> None:
    assert api.get("/schemas/ids/2147483647").error_code == 40403


def test_an_id_is_judged_after_the_media_types_as_jersey_does(api: Api) -> None:
    """Jersey matches `/schemas/ids/{id}` for any segment and parses the id only when it
    calls the method, so a wrong method or `Accept` is reported first."""
    assert api.call("GET", "/schemas/ids/abc", headers={"Accept": "text/html"}).error_code == 406
    assert api.call("DELETE", "/schemas/ids/2147483648").error_code == 405


@pytest.mark.parametrize("value, deleted_visible", [
    ("true", True), ("True", True), ("TRUE", True), ("tRuE", True),
    ("false", False), ("False", False), ("1", False), ("yes", False), ("", False),
])
def test_boolean_parameters_are_true_only_for_true_in_any_case(api: Api, value: str, deleted_visible: bool) -> None:
    api.registered("s", RECORD_V1)
    api.delete_subject("s")
    assert (api.get("/subjects", deleted=value).json == ["s"]) is deleted_visible


def test_bodies_are_read_whatever_the_charset_parameter(api: Api) -> None:
    reply = api.call("POST", "/subjects/s/versions", {"schema": RECORD_V1},
                     headers={"Content-Type": "application/json; charset=ISO-8859-1"})
    assert reply.status == 200


SCHEMA_ENDPOINTS = [
    ("POST", "/subjects/s/versions"),
    ("POST", "/compatibility/subjects/s/versions"),
    ("POST", "/policies/s/check"),
]
ENVELOPE = '{"schema": "<the schema as a string>"}'


@pytest.mark.parametrize("method, path", SCHEMA_ENDPOINTS)
@pytest.mark.parametrize("body, message", [
    (json.loads(RECORD_V1),
     f'Empty schema: the request body looks like a schema itself (keys "type", "name", "fields"); send it as a '
     f'string: {ENVELOPE}, with "schemaType" for JSON or PROTOBUF'),
    ({"shema": RECORD_V1},
     f'Empty schema: the request body has no "schema" (keys "shema"); it must be {ENVELOPE}'),
    ({"schema": "  "}, f'Empty schema: "schema" is empty; the request body must be {ENVELOPE}'),
    ({}, f"Empty schema: the request body must be {ENVELOPE}"),
], ids=["raw-avsc", "misspelt-key", "blank-schema", "empty-object"])
def test_a_body_without_a_schema_shows_the_envelope_and_the_keys_sent(
    api: Api, method: str, path: str, body: dict, message: str
) -> None:
    reply = api.call(method, path, raw=json.dumps(body))
    assert (reply.status, reply.error_code, reply.json["message"]) == (422, 42201, message)


def test_the_keys_shown_are_bounded(api: Api) -> None:
    body = {f"key{i}-{'x' * 60}": i for i in range(30)}
    message = api.call("POST", "/subjects/s/versions", raw=json.dumps(body)).json["message"]
    assert message.count('"key') == 10 and "and 20 more" in message
    assert f'"key0-{"x" * 35}"' in message and "x" * 36 not in message
