"""A request string that holds NUL or a lone surrogate (from a `\\u0000` or `\\ud800` JSON
escape, in a value or a key, at any depth) is refused with 400/400 naming where it is, at
every endpoint that reads a body, before anything is stored: no version, config, mode or
policy, and every reader keeps working (on both databases)."""
from __future__ import annotations

import json

import pytest

from api_client import Api
from api_samples import RECORD_V1, RECORD_V2

SURROGATE = "\\ud800"  # as JSON text: the escape itself
NUL = "\\u0000"


def schema_bodies(bad: str) -> list[tuple[str, str]]:
    """(where, raw JSON body) for a registration-shaped body with `bad` in one place."""
    schema = json.dumps(RECORD_V2)
    return [
        ("schema", '{"schema": "{\\"type\\": \\"string\\", \\"doc\\": \\"%s\\"}"}' % bad),
        ("schemaType", '{"schema": %s, "schemaType": "AVRO%s"}' % (schema, bad)),
        ("references[0].name", '{"schema": %s, "references": [{"name": "n%s", "subject": "s", "version": 1}]}'
         % (schema, bad)),
        ("references[0].subject", '{"schema": %s, "references": [{"name": "n", "subject": "s%s", "version": 1}]}'
         % (schema, bad)),
        ("metadata.properties.k", '{"schema": %s, "metadata": {"properties": {"k": "v%s"}}}' % (schema, bad)),
        ("metadata.properties", '{"schema": %s, "metadata": {"properties": {"k%s": "v"}}}' % (schema, bad)),
        ("metadata.tags.t[0]", '{"schema": %s, "metadata": {"tags": {"t": ["PII%s"]}}}' % (schema, bad)),
        ("ruleSet.domainRules[0].name",
         '{"schema": %s, "ruleSet": {"domainRules": [{"name": "r%s", "kind": "CONDITION"}]}}' % (schema, bad)),
        ("an unknown field's key", '{"schema": %s, "extra%s": 1}' % (schema, bad)),
    ]


WRITE_ENDPOINTS = [
    ("POST", "/subjects/s/versions"),                          # register
    ("POST", "/subjects/other/versions"),                      # register a new subject
    ("POST", "/subjects/s"),                                   # lookup
    ("POST", "/compatibility/subjects/s/versions/latest"),     # compatibility
    ("POST", "/policies/s/check"),                             # policy check
]

CONFIG_BODIES = [
    ('{"compatibility": "FULL%s"}', "compatibility"),
    ('{"alias": "a%s"}', "alias"),
    ('{"compatibilityGroup": "%s"}', "compatibilityGroup"),
    ('{"defaultMetadata": {"properties": {"k": "%s"}}}', "defaultMetadata.properties.k"),
    ('{"overrideRuleSet": {"domainRules": [{"name": "%s"}]}}', "overrideRuleSet.domainRules[0].name"),
    ('{"compatibilityPolicy": "%s"}', "compatibilityPolicy"),
]


def unchanged_state(api: Api) -> dict[str, object]:
    """What a refused request must leave as it was."""
    return {
        "subjects": api.get("/subjects").json,
        "versions": api.get("/subjects/s/versions").json,
        "config": api.get("/config/s").json,
        "global": api.get("/config").json,
        "mode": api.get("/mode/s").json,
        "policies": api.get("/policies").json,
        "successes": [e for e in api.get("/audit", limit=1000).json if e["outcome"] == "success"],
    }


@pytest.fixture
def seeded(api: Api) -> Api:
    api.registered("s", RECORD_V1)
    return api


def assert_refused(reply, where: str | None = None) -> None:
    assert reply.status == 400 and reply.error_code == 400, reply
    assert reply.json["message"].startswith("Invalid ")
    if where is not None:
        assert f"'{where}" in reply.json["message"], reply


@pytest.mark.parametrize("bad", [SURROGATE, NUL], ids=["lone-surrogate", "nul"])
@pytest.mark.parametrize("method,path", WRITE_ENDPOINTS, ids=[p for _, p in WRITE_ENDPOINTS])
def test_schema_bodies_with_unstorable_strings_are_refused_and_change_nothing(
    seeded: Api, method: str, path: str, bad: str
) -> None:
    before = unchanged_state(seeded)
    for where, raw in schema_bodies(bad):
        reply = seeded.call(method, path, raw=raw)
        assert_refused(reply, None if " " in where else where)
    assert unchanged_state(seeded) == before
    assert seeded.get("/audit").status == 200


@pytest.mark.parametrize("bad", [SURROGATE, NUL], ids=["lone-surrogate", "nul"])
@pytest.mark.parametrize("target", ["/config/s", "/config", "/contexts/ctx/config/s"])
def test_config_bodies_with_unstorable_strings_are_refused_and_change_nothing(
    seeded: Api, target: str, bad: str
) -> None:
    before = unchanged_state(seeded)
    for body, where in CONFIG_BODIES:
        assert_refused(seeded.call("PUT", target, raw=body % bad), where)
    assert unchanged_state(seeded) == before
    # The reads that failed for everyone once such a config was stored still answer.
    assert seeded.get("/config/s").status in (200, 404)
    assert seeded.get("/schemas", aliases="true").status == 200


@pytest.mark.parametrize("bad", [SURROGATE, NUL], ids=["lone-surrogate", "nul"])
def test_mode_policy_and_tag_bodies_with_unstorable_strings_are_refused(seeded: Api, bad: str) -> None:
    before = unchanged_state(seeded)
    assert_refused(seeded.call("PUT", "/mode/s", raw='{"mode": "READONLY%s"}' % bad), "mode")
    assert_refused(seeded.call("PUT", "/policies", raw='{"sets": {"a%s": []}}' % bad), "sets")
    assert_refused(seeded.call("PUT", "/policies/s", raw='{"use": ["x%s"]}' % bad), "use[0]")
    assert_refused(seeded.call("PUT", "/policies", raw='"%s"' % bad), "(the body)")
    tags = {"tagsToAdd": [{"schemaEntity": {"entityPath": "Rec.f1", "entityType": "sr_field"}, "tags": ["PII"]}]}
    raw = json.dumps(tags).replace('"PII"', '"PII%s"' % bad)
    assert_refused(seeded.call("POST", "/subjects/s/versions/1/tags", raw=raw), "tagsToAdd[0].tags[0]")
    assert unchanged_state(seeded) == before


def test_a_nul_reference_name_is_refused_before_the_database_sees_it(seeded: Api) -> None:
    """On PostgreSQL the reference row's text used to fail the insert with a 500."""
    raw = '{"schema": %s, "references": [{"name": "a%sb", "subject": "s", "version": 1}]}' % (
        json.dumps(RECORD_V2), NUL)
    assert_refused(seeded.call("POST", "/subjects/t/versions", raw=raw), "references[0].name")
    assert seeded.get("/subjects/t/versions").error_code == 40401


def test_surrogate_pairs_and_escapes_spelled_in_schema_text_stay_accepted(seeded: Api) -> None:
    """A pair of escapes is one valid character; `\\u0000` and `\\ud800` written as escapes
    inside the schema's text are six characters each, stored as written."""
    emoji = '{"schema": "{\\"type\\": \\"string\\", \\"doc\\": \\"\\ud83d\\ude00\\"}"}'
    assert seeded.call("POST", "/subjects/e/versions", raw=emoji).status == 200
    for escape in ("\\\\u0000", "\\\\ud800"):
        doc = ('{"schema": "{\\"type\\": \\"record\\", \\"name\\": \\"R\\", \\"fields\\": [], '
               '\\"doc\\": \\"a%sb\\"}"}' % escape)
        reply = seeded.call("POST", "/subjects/escaped/versions", raw=doc)
        assert reply.status == 200, reply
        stored = seeded.get(f"/schemas/ids/{reply.json['id']}")
        assert stored.status == 200 and json.loads(stored.json["schema"])["doc"] == "a" + json.loads(
            '"%s"' % escape.replace("\\\\", "\\")) + "b"


def test_the_hot_reregistration_path_refuses_like_flask(seeded: Api) -> None:
    """A plain re-registration body goes through the hot layer first; it hands the refusal to
    Flask, whose reply is the same as for any other path."""
    raw = '{"schema": %s, "metadata": {"properties": {"k": "%s"}}}' % (json.dumps(RECORD_V1), SURROGATE)
    assert_refused(seeded.call("POST", "/subjects/s/versions", raw=raw), "metadata.properties.k")
    assert seeded.get("/subjects/s/versions").json == [1]


PATH_WRITES = [
    ("POST", "/subjects/{s}/versions", {"schema": RECORD_V1}),
    ("POST", "/subjects/{s}/versions/1/tags", {"tagsToAdd": []}),
    ("PUT", "/config/{s}", {"compatibility": "NONE"}),
    ("PUT", "/mode/{s}", {"mode": "READONLY"}),
    ("PUT", "/policies/{s}", {"use": []}),
    ("POST", "/contexts/{s}/subjects/x/versions", {"schema": RECORD_V1}),
]


@pytest.mark.parametrize("segment", ["a%00b", ":.c%00:"], ids=["nul", "nul-context"])
@pytest.mark.parametrize("method,path,body", PATH_WRITES, ids=[p for _, p, _ in PATH_WRITES])
def test_path_values_that_cannot_be_stored_are_refused_on_every_write(
    seeded: Api, method: str, path: str, body: dict[str, object], segment: str
) -> None:
    """Subjects and contexts in the path are the other request strings a write stores: NUL is
    a control character (42208, as Confluent refuses them). Bytes that are not UTF-8, which
    would decode to lone surrogates, are 42208 too (tests/api/test_subject_encoding.py)."""
    before = unchanged_state(seeded)
    reply = seeded.call(method, path.format(s=segment), body)
    assert reply.status == 422 and reply.error_code == 42208, reply
    assert unchanged_state(seeded) == before


@pytest.mark.parametrize("schema_type,text", [
    ("AVRO", '{"type": "\\ud800"}'),
    ("AVRO", '{"type": "record", "name": "\\ud800", "fields": []}'),
    ("JSON", '{"type": "\\ud800"}'),
], ids=["avro-type", "avro-name", "json-type"])
def test_a_refusal_quoting_an_escaped_lone_surrogate_is_sent_escaped(seeded: Api, schema_type: str, text: str) -> None:
    """The schema's text may spell a lone surrogate as an escape; a format's refusal that quotes
    the decoded name is the usual 42201 (its message escaped), not a reply that fails to encode."""
    reply = seeded.register("bad-names", text, schemaType=schema_type)
    assert reply.status == 422 and reply.error_code in (42201, 42202), reply
    assert seeded.get("/subjects/bad-names/versions").error_code == 40401
