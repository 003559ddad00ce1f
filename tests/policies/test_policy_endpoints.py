"""`/policies`, `/policies/{s}`, `/policy-rules` and `/policies/{s}/check` on both databases:
storage round trips, every 42250 case, 40450, resolution, audit rows."""
from __future__ import annotations

from typing import Any

import pytest
from policy_api import Api, api  # noqa: F401 - the fixture
from policy_samples import COMPLIANT, NON_COMPLIANT, STRICT_SET

from app.policies.changes import CHANGES


def put_global(api: Api, **sets: Any) -> dict[str, Any]:
    default = sets.pop("default", [])
    reply = api.put("/policies", {"sets": sets, "default": default})
    assert reply.status == 200, reply
    return reply.json


def test_global_document_is_empty_until_stored(api: Api) -> None:
    assert api.get("/policies").json == {"sets": {}, "default": []}


def test_put_returns_what_was_stored_and_delete_returns_it(api: Api) -> None:
    stored = put_global(api, events=STRICT_SET, none={"rules": []}, default=["events"])
    assert stored["default"] == ["events"]
    assert stored["sets"]["events"]["rules"][0] == {
        "rule": "doc-required", "severity": "error", "params": {"on": ["record", "field"]}}
    assert stored["sets"]["none"] == {"rules": []}
    assert api.get("/policies").json == stored
    assert api.delete("/policies").json == stored
    assert api.get("/policies").json == {"sets": {}, "default": []}


INVALID_GLOBAL = [
    (["events"], "the policy document must be a JSON object"),
    ({"sets": {}, "extra": 1}, 'the policy document has an unknown key "extra"'),
    ({"sets": []}, "sets must be a JSON object of named sets"),
    ({"sets": {"a": {"rules": [], "x": 1}}}, 'set "a" has an unknown key "x"'),
    ({"sets": {"a": {"rules": {}}}}, 'set "a" rules must be a list of rules'),
    ({"sets": {"a": {"rules": [{"rule": "doc-required", "when": 1}]}}}, 'set "a" rules[0] has an unknown key "when"'),
    ({"sets": {"a": {"rules": [{"params": {}}]}}}, 'set "a" rules[0] needs a "rule" name'),
    ({"sets": {"a": {"rules": [{"rule": "acme.nope"}]}}}, 'set "a" rules[0]: unknown rule "acme.nope"'),
    ({"sets": {"a": {"rules": [{"rule": "doc-required", "severity": "fatal"}]}}},
     "set \"a\" rules[0]: severity must be \"error\" or \"warning\", not 'fatal'"),
    ({"sets": {"a": {"rules": [{"rule": "doc-required", "params": {"on": ["table"]}}]}}},
     'set "a" rules[0]: params of "doc-required" are invalid at on/0: \'table\' is not one of'),
    ({"sets": {"a": {"rules": [{"rule": "required-fields"}]}}},
     'set "a" rules[0]: params of "required-fields" are invalid: \'fields\' is a required property'),
    ({"sets": {"a": {"rules": [{"rule": "name-pattern", "params": {"field": "[a-"}}]}}},
     'set "a" rules[0]: name-pattern: field pattern "[a-" does not compile'),
    ({"sets": {"a": {"rules": [{"rule": "forbidden-changes", "params": {"changes": ["FIELD_EATEN"]}}]}}},
     'set "a" rules[0]: params of "forbidden-changes" are invalid at changes/0'),
    ({"sets": {"a": {"rules": []}}, "default": ["b"]}, 'default names an unknown set "b"'),
    ({"sets": {"a": {"rules": []}}, "default": "a"}, "default must be a list of set names"),
]


@pytest.mark.parametrize(("document", "message"), INVALID_GLOBAL, ids=[m[:40] for _, m in INVALID_GLOBAL])
def test_invalid_global_document_is_42250_naming_the_problem(api: Api, document: Any, message: str) -> None:
    reply = api.put("/policies", document)
    assert (reply.status, reply.error_code) == (422, 42250), reply
    assert reply.json["message"].startswith(message)
    assert api.get("/policies").json == {"sets": {}, "default": []}  # nothing stored


def test_malformed_json_is_400(api: Api) -> None:
    reply = api.call("PUT", "/policies", raw="{not json")
    assert (reply.status, reply.error_code) == (400, 400)


INVALID_SELECTION = [
    ({"use": ["missing"]}, 'use names an unknown set "missing"'),
    ({"use": "events"}, "use must be a list of set names"),
    ({"use": [], "sets": {}}, 'the policy selection has an unknown key "sets"'),
    ({"rules": [{"rule": "max-size", "params": {"bytes": -1}}]}, 'rules[0]: params of "max-size" are invalid at bytes'),
    ("events", "the policy selection must be a JSON object"),
]


@pytest.mark.parametrize(("document", "message"), INVALID_SELECTION, ids=[m[:40] for _, m in INVALID_SELECTION])
def test_invalid_selection_is_42250(api: Api, document: Any, message: str) -> None:
    put_global(api, events=STRICT_SET)
    reply = api.put("/policies/orders-value", document)
    assert (reply.status, reply.error_code) == (422, 42250), reply
    assert reply.json["message"].startswith(message)
    assert api.get("/policies/orders-value").error_code == 40450


def test_removing_a_set_in_use_is_refused_listing_the_users(api: Api) -> None:
    put_global(api, events=STRICT_SET, db={"rules": []})
    api.put("/policies/orders-value", {"use": ["events"]})
    api.put("/policies/:.ops:", {"use": ["events", "db"]})
    reply = api.put("/policies", {"sets": {"db": {"rules": []}}})
    assert (reply.status, reply.error_code) == (422, 42250)
    assert reply.json["message"] == 'set "events" is still used by orders-value, :.ops:'
    assert api.delete("/policies").error_code == 42250
    api.delete("/policies/orders-value")
    api.delete("/policies/:.ops:")
    assert api.put("/policies", {"sets": {"db": {"rules": []}}}).status == 200


def test_selection_round_trip_and_40450(api: Api) -> None:
    assert api.get("/policies/orders-value").error_code == 40450
    assert api.delete("/policies/orders-value").error_code == 40450
    put_global(api, events=STRICT_SET)
    stored = api.put("/policies/orders-value", {"use": ["events"]}).json
    assert stored == {"use": ["events"], "rules": []}
    assert api.get("/policies/orders-value").json == stored
    assert api.delete("/policies/orders-value").json == stored
    assert api.get("/policies/orders-value").error_code == 40450


def test_resolution_goes_subject_then_context_then_global(api: Api) -> None:
    put_global(api, events=STRICT_SET, db={"rules": [{"rule": "max-size", "params": {"fields": 5}}]},
               none={"rules": []}, default=["events"])
    effective = api.get("/policies/:.ops:orders-value", defaultToGlobal="true").json
    assert effective["source"] == "global" and effective["use"] == ["events"]
    assert [(r["rule"], r["set"]) for r in effective["rules"]] == [
        ("doc-required", "events"), ("name-pattern", "events"), ("forbidden-types", "events")]
    api.put("/policies/:.ops:", {"use": ["db"]})
    effective = api.get("/policies/:.ops:orders-value", defaultToGlobal="true").json
    assert (effective["source"], effective["use"]) == ("context", ["db"])
    assert api.get("/policies/orders-value", defaultToGlobal="true").json["source"] == "global"
    api.put("/policies/:.ops:orders-value", {"use": ["none"], "rules": [{"rule": "doc-required"}]})
    effective = api.get("/policies/:.ops:orders-value", defaultToGlobal="true").json
    assert (effective["source"], effective["use"]) == ("subject", ["none"])
    assert effective["rules"] == [{"rule": "doc-required", "severity": "error", "params": {}, "set": None}]


def test_policy_rules_lists_the_builtins(api: Api) -> None:
    listed = {r["name"]: r for r in api.get("/policy-rules").json}
    builtin = {"doc-required", "name-pattern", "required-fields", "forbidden-changes", "max-size",
               "namespace-prefix", "forbidden-types"}
    assert builtin <= set(listed)
    without_json = {"namespace-prefix"}  # JSON Schema has no namespaces
    for name in builtin:
        assert listed[name]["source"] == "builtin"
        assert listed[name]["formats"] == (["AVRO", "PROTOBUF"] if name in without_json else ["AVRO", "JSON", "PROTOBUF"])
        assert listed[name]["description"] and listed[name]["params"]["type"] == "object"
    assert listed["forbidden-changes"]["params"]["properties"]["changes"]["items"]["enum"] == list(CHANGES)


def test_check_reports_structure_and_writes_nothing(api: Api) -> None:
    put_global(api, events=STRICT_SET, default=["events"])
    reply = api.post("/policies/orders-value/check", {"schema": NON_COMPLIANT})
    assert reply.status == 200, reply
    assert reply.json == {
        "violations": [
            {"rule": "doc-required", "set": "events", "severity": "error", "location": "/fields/1",
             "path": "com.acme.R.amount", "message": 'field "amount" has no doc'},
            {"rule": "name-pattern", "set": "events", "severity": "error", "location": "/fields/3",
             "path": "com.acme.R.Amount", "message": 'field "Amount" does not match snake_case'},
            {"rule": "forbidden-types", "set": "events", "severity": "warning", "location": "/fields/2/type",
             "path": "com.acme.R.price", "message": 'type "float" at "com.acme.R.price" is forbidden'},
        ],
        "checked": ["doc-required", "name-pattern", "forbidden-types"],
        "skipped": [],
    }
    assert api.get("/subjects").json == []


def test_check_of_an_invalid_schema_is_42201(api: Api) -> None:
    reply = api.post("/policies/orders-value/check", {"schema": '{"type": "record"}'})
    assert (reply.status, reply.error_code) == (422, 42201)


def test_check_skips_rules_a_format_does_not_support(api: Api) -> None:
    put_global(api, db={"rules": [{"rule": "namespace-prefix", "params": {"prefixes": ["com.acme"]}}]}, default=["db"])
    reply = api.post("/policies/j-value/check", {"schemaType": "JSON", "schema": '{"type": "object"}'})
    assert reply.status == 200, reply
    assert reply.json == {"violations": [], "checked": [],
                          "skipped": [{"rule": "namespace-prefix", "reason": "does not support JSON"}]}


def test_check_of_a_protobuf_schema_locates_violations_by_line_and_column(api: Api) -> None:
    put_global(api, events=STRICT_SET, default=["events"])
    proto = ('syntax = "proto3";\npackage com.acme;\n\n// An order.\nmessage Order {\n  // Key\n  int64 id = 1;\n'
             '  int32 Amount = 2;\n  // Price\n  float price = 3;\n}\n')
    reply = api.post("/policies/p-value/check", {"schemaType": "PROTOBUF", "schema": proto})
    assert reply.status == 200, reply
    assert reply.json == {
        "violations": [
            {"rule": "doc-required", "set": "events", "severity": "error", "location": "8:3",
             "path": "com.acme.Order.Amount", "message": 'field "Amount" has no doc'},
            {"rule": "name-pattern", "set": "events", "severity": "error", "location": "8:3",
             "path": "com.acme.Order.Amount", "message": 'field "Amount" does not match snake_case'},
            {"rule": "forbidden-types", "set": "events", "severity": "warning", "location": "10:3",
             "path": "com.acme.Order.price", "message": 'type "float" at "com.acme.Order.price" is forbidden'},
        ],
        "checked": ["doc-required", "name-pattern", "forbidden-types"],
        "skipped": [],
    }


def test_policy_writes_are_audited(api: Api) -> None:
    put_global(api, events=STRICT_SET)
    api.put("/policies/orders-value", {"use": ["events"]})
    api.delete("/policies/orders-value")
    api.put("/policies", {"sets": {}, "default": ["x"]})  # refused: recorded as rejected
    rows = api.get("/audit").json
    found = [(r["action"], r.get("subject"), r["outcome"]) for r in reversed(rows)]
    assert found == [("SET_POLICY", None, "success"), ("SET_POLICY", "orders-value", "success"),
                     ("DELETE_POLICY", "orders-value", "success"), ("SET_POLICY", None, "rejected")]
    assert rows[1]["detail"] == {"old": {"use": ["events"], "rules": []}}


def test_compliant_schema_checks_clean(api: Api) -> None:
    put_global(api, events=STRICT_SET, default=["events"])
    body = api.post("/policies/orders-value/check", {"schema": COMPLIANT}).json
    assert [v["severity"] for v in body["violations"]] == ["warning"]


def test_check_resolves_references_and_checks_only_the_proposed_types(api: Api) -> None:
    put_global(api, events=STRICT_SET, default=["events"])
    base = '{"type":"record","name":"Base","namespace":"x","fields":[{"name":"BadName","type":"int"}]}'
    api.put("/policies/base", {"use": []})
    api.registered("base", base)
    outer = '{"type":"record","name":"Outer","namespace":"x","doc":"d","fields":[{"name":"b","type":"x.Base","doc":"d"}]}'
    reply = api.post("/policies/outer/check", {
        "schema": outer, "references": [{"name": "x.Base", "subject": "base", "version": 1}]})
    assert reply.status == 200 and reply.json["violations"] == []


@pytest.mark.parametrize("method", ["GET", "PUT", "DELETE"])
def test_invalid_subject_is_42208(api: Api, method: str) -> None:
    reply = api.call(method, "/policies/bad%01name", {"use": []} if method == "PUT" else None)
    assert (reply.status, reply.error_code) == (422, 42208), reply
