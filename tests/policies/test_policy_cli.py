"""`sqlregistry check` with policies: offline (`--policy-file`, TOML or JSON), online
(`POST /policies/{s}/check` on a live server), and a property test that the offline engine,
the check endpoint and registration's refusal agree on generated schemas."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from policy_api import Api, api  # noqa: F401 - the fixture
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from policy_samples import COMPLIANT, NON_COMPLIANT, STRICT_SET, text, with_fields

from app.cli import check as ci
from app.cli.policy_check import offline_outcomes
from app.policies.engine import refusal_message
from app.policies.rule import Violation

TOML = """
default = ["events"]
[sets.events]
rules = [
  { rule = "doc-required", params = { on = ["record", "field"] } },
  { rule = "name-pattern", params = { field = "snake_case" } },
  { rule = "forbidden-types", severity = "warning", params = { types = ["float"] } },
]
[sets.db]
rules = [{ rule = "forbidden-changes", params = { changes = ["FIELD_REMOVED", "FIELD_TYPE_CHANGED"] } }]
"""
DOCUMENT = {"sets": {"events": STRICT_SET, "db": {"rules": [
    {"rule": "forbidden-changes", "params": {"changes": ["FIELD_REMOVED", "FIELD_TYPE_CHANGED"]}}]}},
    "default": ["events"]}


@pytest.fixture
def write(tmp_path: Path):
    def make(name: str, content: str) -> str:
        path = tmp_path / name
        path.write_text(content)
        return str(path)
    return make


def test_offline_prints_each_violation_and_exits_1(write, capsys) -> None:
    policy, bad, good = write("p.toml", TOML), write("bad.avsc", NON_COMPLIANT), write("good.avsc", COMPLIANT)
    assert ci.check_main([bad, good, "--policy-file", policy]) == 1
    assert capsys.readouterr().out.splitlines() == [
        f'{bad}:/fields/1: [doc-required] field "amount" has no doc',
        f'{bad}:/fields/3: [name-pattern] field "Amount" does not match snake_case',
        f'warning: {bad}:/fields/2/type: [forbidden-types] type "float" at "com.acme.R.price" is forbidden',
        f'warning: {good}:/fields/1/type: [forbidden-types] type "float" at "com.acme.R.price" is forbidden',
    ]


def test_offline_protobuf_file_prints_line_and_column_and_nothing_on_stderr(write, capfd) -> None:
    proto = write("order.proto", 'syntax = "proto3";\nimport "google/protobuf/timestamp.proto";\n'
                  '// An order.\nmessage Order {\n  int64 Id = 1;\n  // Price\n  float price = 2;\n}\n')
    assert ci.check_main([proto, "--policy-file", write("p.toml", TOML)]) == 1
    out, err = capfd.readouterr()
    assert out.splitlines() == [
        f'{proto}:5:3: [doc-required] field "Id" has no doc',
        f'{proto}:5:3: [name-pattern] field "Id" does not match snake_case',
        f'warning: {proto}:7:3: [forbidden-types] type "float" at "Order.price" is forbidden',
    ]
    assert err == ""  # protoc's warning about the unused import is not passed on


def test_offline_warnings_alone_exit_0_and_json_equals_toml(write, capsys) -> None:
    good = write("good.avsc", COMPLIANT)
    assert ci.check_main([good, "--policy-file", write("p.toml", TOML), "--format", "json"]) == 0
    from_toml = capsys.readouterr().out
    assert ci.check_main([good, "--policy-file", write("p.json", json.dumps(DOCUMENT)), "--format", "json"]) == 0
    assert capsys.readouterr().out == from_toml
    assert json.loads(from_toml)["checked"] == ["doc-required", "name-pattern", "forbidden-types"]


def test_offline_previous_feeds_forbidden_changes(write, capsys) -> None:
    old = write("old.avsc", with_fields({"name": "a", "type": "int"}, {"name": "b", "type": "int"}))
    new = write("new.avsc", with_fields({"name": "a", "type": "long"}))
    assert ci.check_main([new, "--policy-file", write("p.toml", TOML), "--set", "db", "--previous", old]) == 1
    assert capsys.readouterr().out.splitlines() == [
        f'{new}:/fields/0: [forbidden-changes] field "a" changed type from int to long',
        f'{old}:/fields/1: [forbidden-changes] field "b" was removed',
    ]


@pytest.mark.parametrize(("policy", "schema", "extra", "error"), [
    ("[sets.a]\nrules = [{ rule = \"acme.nope\" }]", COMPLIANT, [], 'set "a" rules[0]: unknown rule "acme.nope"'),
    ("not = [toml", COMPLIANT, [], "cannot read policy file"),
    (TOML, '{"type": "record"}', [], "invalid schema: Invalid schema of type AVRO"),
    (TOML, COMPLIANT, ["--set", "nope"], '--set names an unknown set "nope"'),
])
def test_offline_problems_exit_2_with_one_line(write, capsys, policy, schema, extra, error) -> None:
    assert ci.check_main([write("s.avsc", schema), "--policy-file", write("p.toml", policy), *extra]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and len(captured.err.splitlines()) == 1
    assert captured.err.startswith("error: ") and error in captured.err


def test_online_check_reports_the_subjects_policy(live_server, write, unique_subject, monkeypatch, capsys) -> None:
    import urllib.request

    subject = unique_subject()
    monkeypatch.setenv("REGISTRY_URL", live_server)
    monkeypatch.delenv("REGISTRY_AUTH", raising=False)
    body = json.dumps({"use": [], "rules": STRICT_SET["rules"]}).encode()
    put = urllib.request.Request(f"{live_server}/policies/{subject}", body, method="PUT",
                                 headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(put) as reply:
        assert reply.status == 200
    try:
        bad = write("bad.avsc", NON_COMPLIANT)
        assert ci.check_main([bad, "--subject", subject, "--new-subject"]) == 1
        out = capsys.readouterr().out.splitlines()
        assert out[:3] == [
            f'{bad}:/fields/1: [doc-required] field "amount" has no doc',
            f'{bad}:/fields/3: [name-pattern] field "Amount" does not match snake_case',
            f'warning: {bad}:/fields/2/type: [forbidden-types] type "float" at "com.acme.R.price" is forbidden',
        ]
        assert ci.check_main([write("good.avsc", COMPLIANT), "--subject", subject, "--new-subject"]) == 0
        capsys.readouterr()

        # --format json: one JSON line per file, the endpoint's structure plus the compatibility verdict.
        assert ci.check_main([bad, "--subject", subject, "--new-subject", "--format", "json"]) == 1
        (line,) = capsys.readouterr().out.splitlines()
        reported = json.loads(line)
        assert reported["file"] == bad and reported["compatible"] is True and reported["level"]
        assert [(v["rule"], v["location"]) for v in reported["violations"]][:2] == [
            ("doc-required", "/fields/1"), ("name-pattern", "/fields/3")]
    finally:
        urllib.request.urlopen(urllib.request.Request(f"{live_server}/policies/{subject}", method="DELETE")).close()


# ---------------------------------------------------------------- online = offline
NAMES = ["id", "amount", "Amount", "userName", "ship_to", "x1", "total_sum", "Bad"]
TYPES = ["int", "long", "string", "float", "double", "bytes", {"type": "long", "logicalType": "timestamp-millis"}]


@st.composite
def avro_records(draw: Any, depth: int = 0, names: Any = None) -> dict[str, Any]:
    names = names if names is not None else iter(range(10_000))
    count = draw(st.integers(min_value=1, max_value=5))
    fields = []
    for field_name in draw(st.lists(st.sampled_from(NAMES), min_size=count, max_size=count, unique=True)):
        kind = draw(st.sampled_from(["plain", "plain", "union", "array", "map", "record", "enum"]))
        if kind == "record" and depth < 2:
            field_type: Any = draw(avro_records(depth + 1, names))
        elif kind == "enum":
            field_type = {"type": "enum", "name": f"E{next(names)}", "symbols": draw(
                st.lists(st.sampled_from(["A", "b", "C_D"]), min_size=1, max_size=3, unique=True))}
        elif kind == "union":
            field_type = ["null", draw(st.sampled_from(TYPES))]
        elif kind in ("array", "map"):
            inner = draw(avro_records(depth + 1, names)) if depth < 2 else draw(st.sampled_from(TYPES))
            field_type = {"type": kind, "items" if kind == "array" else "values": inner}
        else:
            field_type = draw(st.sampled_from(TYPES))
        field: dict[str, Any] = {"name": field_name, "type": field_type}
        if draw(st.booleans()):
            field["doc"] = "documented"
        fields.append(field)
    record: dict[str, Any] = {"type": "record", "name": f"R{next(names)}", "fields": fields}
    if draw(st.booleans()):
        record["doc"] = "a record"
    if depth == 0:
        record["namespace"] = draw(st.sampled_from(["com.acme", "com.other"]))
    return record


PROPERTY_DOCUMENT = {"sets": {"all": {"rules": [
    {"rule": "doc-required", "params": {"on": ["record", "field", "enum"]}},
    {"rule": "name-pattern", "params": {"field": "snake_case", "enumSymbol": "UPPER_SNAKE_CASE"}},
    {"rule": "namespace-prefix", "params": {"prefixes": ["com.acme"]}},
    {"rule": "forbidden-types", "severity": "warning", "params": {"types": ["float", "map"]}},
    {"rule": "max-size", "params": {"fields": 8, "depth": 2}},
]}}, "default": ["all"]}


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(record=avro_records())
def test_offline_engine_check_endpoint_and_registration_agree(api: Api, tmp_path: Path, record: dict[str, Any]) -> None:
    assert api.put("/policies", PROPERTY_DOCUMENT).status == 200
    schema = text(record)
    policy = tmp_path / "p.json"
    policy.write_text(json.dumps(PROPERTY_DOCUMENT))
    offline = offline_outcomes(policy, [], [(Path("s.avsc"), "AVRO", schema)], None, "gen-value")[0]
    online = api.post("/policies/gen-value/check", {"schema": schema}).json
    assert online == offline
    errors = [Violation(v["rule"], v["message"], v["location"]) for v in offline["violations"] if v["severity"] == "error"]
    reply = api.register("gen-value", schema)
    if errors:
        assert reply.json == {"error_code": 42201, "message": refusal_message("gen-value", errors)}
    else:
        assert reply.status == 200
        api.delete_subject("gen-value")
        api.delete_subject("gen-value", permanent="true")


def test_offline_a_violation_of_the_whole_schema_names_the_file_alone(write, capsys) -> None:
    policy = write("p.toml", 'default = ["small"]\n[sets.small]\nrules = [{ rule = "max-size", params = { bytes = 10 } }]\n')
    bad = write("big.avsc", COMPLIANT)
    assert ci.check_main([bad, "--policy-file", policy]) == 1
    (line,) = capsys.readouterr().out.splitlines()
    assert line.startswith(f"{bad}: [max-size] schema is ")
