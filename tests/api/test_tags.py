"""POST /subjects/{s}/versions/{v}/tags (Confluent's modifySchemaTags): a new version
derived from `{v}` with inline tags, metadata or rule set edited, registered like any other."""
from __future__ import annotations

import json
from typing import Any

import pytest

from api_client import Api, enc
from api_samples import BASE, BASE_NAME, RECORD_INT, RECORD_V1, field, record

TAGS = "confluent:tags"
ORDER = record("Order", [field("id", "long"), field("address", {
    "type": "record", "name": "Address", "fields": [field("street", "string"), field("zip", "string")]})],
    namespace="shop")


def tag(api: Api, subject: str, version: Any, body: Any) -> Any:
    return api.post(f"/subjects/{enc(subject)}/versions/{version}/tags", body)


def entity(path: str, entity_type: str, *tags: str) -> dict[str, Any]:
    return {"schemaEntity": {"entityPath": path, "entityType": entity_type}, "tags": list(tags)}


def rule(name: str, **extra: Any) -> dict[str, Any]:
    return {"name": name, "kind": "CONDITION", "mode": "WRITE", "type": "CEL", "expr": "true", **extra}


def migration(name: str) -> dict[str, Any]:
    return {"name": name, "kind": "TRANSFORM", "mode": "UPGRADE", "type": "JSONATA", "expr": "$"}


def names(rule_set: dict[str, Any], kind: str) -> list[str]:
    return [r["name"] for r in rule_set.get(kind, [])]


# ------------------------------------------------------------------ the derived version
def test_result_is_a_normal_new_version_with_the_tagged_text(api: Api) -> None:
    first = api.registered("s", ORDER)
    reply = tag(api, "s", 1, {"newVersion": 2, "tagsToAdd": [entity("shop.Order.id", "sr_field", "PII")]})
    assert reply.status == 200, reply
    body = reply.json
    assert (body["id"], body["version"]) == (first["id"] + 1, 2)
    assert json.loads(body["schema"])["fields"][0] == {"name": "id", "type": "long", TAGS: ["PII"]}
    assert body["metadata"] == {"properties": {"confluent:version": "2"}}
    latest = api.version("s", "latest").json
    assert (latest["version"], latest["id"], latest["schema"]) == (2, body["id"], body["schema"])
    assert api.get(f"/schemas/ids/{body['id']}").json["schema"] == body["schema"]
    assert api.versions("s").json == [1, 2]


# (name, base schema, request, steps to the entity in the stored text, expected tags)
TAG_EDITS = [
    ("field_tag", ORDER, {"tagsToAdd": [entity("shop.Order.id", "sr_field", "PII")]}, ("fields", 0), ["PII"]),
    ("record_tag", ORDER, {"tagsToAdd": [entity("shop.Order", "sr_record", "CONFIDENTIAL")]}, (), ["CONFIDENTIAL"]),
    ("nested_record_field_tag", ORDER, {"tagsToAdd": [entity("shop.Address.zip", "sr_field", "PII")]},
     ("fields", 1, "type", "fields", 1), ["PII"]),
    ("nested_record_tag", ORDER, {"tagsToAdd": [entity("shop.Address", "sr_record", "GEO")]},
     ("fields", 1, "type"), ["GEO"]),
    ("remove_one_of_two_tags", record("R", [field("a", "int", **{TAGS: ["PII", "GDPR"]})]),
     {"tagsToRemove": [entity("R.a", "sr_field", "GDPR")]}, ("fields", 0), ["PII"]),
    ("remove_the_last_tag", record("R", [field("a", "int")], **{TAGS: ["PII"]}),
     {"tagsToRemove": [entity("R", "sr_record", "PII")]}, (), None),
    ("add_and_remove_together", record("R", [field("a", "int", **{TAGS: ["OLD"]})]),
     {"tagsToAdd": [entity("R.a", "sr_field", "NEW")], "tagsToRemove": [entity("R.a", "sr_field", "OLD")]},
     ("fields", 0), ["NEW"]),
]


@pytest.mark.parametrize("schema, body, steps, expected", [c[1:] for c in TAG_EDITS], ids=[c[0] for c in TAG_EDITS])
def test_tag_edits_land_in_the_stored_schema(
    api: Api, schema: str, body: dict[str, Any], steps: tuple[Any, ...], expected: list[str] | None
) -> None:
    api.registered("s", schema)
    reply = tag(api, "s", "latest", body)
    assert reply.status == 200, reply
    node: Any = json.loads(api.version("s", 2).json["schema"])
    for step in steps:
        node = node[step]
    assert node.get(TAGS) == expected


def test_unknown_entity_path_is_an_invalid_schema_and_creates_nothing(api: Api) -> None:
    api.registered("s", ORDER)
    reply = tag(api, "s", 1, {"newVersion": 2, "tagsToAdd": [entity("does.not.exist", "sr_field", "PII")]})
    assert (reply.status, reply.error_code) == (422, 42201)
    assert reply.json["message"] == "No matching path 'does.not.exist' found in the schema"
    assert api.versions("s").json == [1]


def test_base_version_need_not_be_the_latest(api: Api) -> None:
    api.registered("s", RECORD_V1)
    api.registered("s", record("Rec", [field("f1", "string"), field("f2", "int", default=0)]))
    reply = tag(api, "s", 1, {"tagsToAdd": [entity("Rec.f1", "sr_field", "PII")]})
    assert reply.status == 200, reply
    assert reply.json["version"] == 3
    assert [f["name"] for f in json.loads(reply.json["schema"])["fields"]] == ["f1"]


def test_references_of_the_base_version_are_kept(api: Api) -> None:
    api.registered("base", BASE)
    refs = [{"name": BASE_NAME, "subject": "base", "version": 1}]
    api.registered("s", record("Outer", [field("base", BASE_NAME)]), references=refs)
    reply = tag(api, "s", 1, {"tagsToAdd": [entity("Outer.base", "sr_field", "PII")]})
    assert reply.status == 200, reply
    assert reply.json["references"] == refs


def test_an_edit_that_changes_nothing_answers_the_existing_version(api: Api) -> None:
    first = api.registered("s", RECORD_V1)
    reply = tag(api, "s", 1, {"tagsToAdd": [entity("Rec.f1", "sr_field")]})
    assert (reply.status, reply.json["id"], reply.json["version"]) == (200, first["id"], 1)
    assert api.versions("s").json == [1]


def test_works_in_a_named_context(api: Api) -> None:
    api.registered(":.ctx:s", RECORD_V1)
    reply = tag(api, ":.ctx:s", 1, {"newVersion": 2, "tagsToAdd": [entity("Rec", "sr_record", "T")]})
    assert reply.status == 200, reply
    assert api.version(":.ctx:s", 2).json["subject"] == ":.ctx:s"


# ------------------------------------------------------------------ newVersion
@pytest.mark.parametrize("new_version", [1, 3, 7], ids=["existing", "skips_one", "far_ahead"])
def test_new_version_other_than_latest_plus_one_is_refused(api: Api, new_version: int) -> None:
    api.registered("s", RECORD_V1)
    reply = tag(api, "s", 1, {"newVersion": new_version, "tagsToAdd": [entity("Rec", "sr_record", "T")]})
    assert (reply.status, reply.error_code) == (422, 42201)
    assert api.versions("s").json == [1]


@pytest.mark.parametrize("body", [{}, {"newVersion": None}, {"newVersion": 0}], ids=["absent", "null", "zero"])
def test_without_new_version_the_next_number_is_used_and_stamped(api: Api, body: dict[str, Any]) -> None:
    api.registered("s", RECORD_V1)
    api.registered("s", RECORD_V1, metadata={"properties": {"owner": "a"}})
    reply = tag(api, "s", 2, {**body, "tagsToAdd": [entity("Rec", "sr_record", "T")]})
    assert reply.status == 200, reply
    assert reply.json["version"] == 3
    assert reply.json["metadata"]["properties"] == {"confluent:version": "3", "owner": "a"}


# ------------------------------------------------------------------ metadata and rule sets
def test_request_metadata_replaces_the_base_versions_metadata(api: Api) -> None:
    api.registered("s", RECORD_V1, metadata={"properties": {"owner": "a"}, "sensitive": ["x"]})
    reply = tag(api, "s", 1, {"newVersion": 2, "metadata": {"properties": {"team": "b"}}})
    assert reply.status == 200, reply
    assert reply.json["metadata"] == {"properties": {"confluent:version": "2", "team": "b"}}


def test_without_metadata_the_named_versions_metadata_is_carried_not_the_latest(api: Api) -> None:
    api.registered("s", RECORD_V1, metadata={"properties": {"owner": "v1"}})
    api.registered("s", RECORD_V1, metadata={"properties": {"owner": "v2"}})
    reply = tag(api, "s", 1, {"newVersion": 3, "tagsToAdd": [entity("Rec", "sr_record", "T")]})
    assert reply.status == 200, reply
    assert reply.json["metadata"]["properties"] == {"confluent:version": "3", "owner": "v1"}


def test_rule_set_replaces_and_is_stored(api: Api) -> None:
    api.registered("s", RECORD_V1, ruleSet={"domainRules": [rule("old")]})
    reply = tag(api, "s", 1, {"newVersion": 2, "ruleSet": {"domainRules": [rule("new")]}})
    assert reply.status == 200, reply
    assert names(api.version("s", 2).json["ruleSet"], "domainRules") == ["new"]


def test_without_rule_edits_the_latest_rule_set_is_inherited(api: Api) -> None:
    api.registered("s", RECORD_V1)
    api.registered("s", RECORD_V1, ruleSet={"domainRules": [rule("latest")]})
    reply = tag(api, "s", 1, {"newVersion": 3, "tagsToAdd": [entity("Rec", "sr_record", "T")]})
    assert reply.status == 200, reply
    assert names(reply.json["ruleSet"], "domainRules") == ["latest"]


def test_rules_to_merge_and_remove_edit_the_previous_versions_rule_set(api: Api) -> None:
    """Confluent's own scenario: merged rules replace same-named ones and are appended,
    removed names go from every kind, unknown names are ignored."""
    api.registered("s", RECORD_V1)
    first = tag(api, "s", "latest", {
        "newVersion": 2,
        "rulesToMerge": {"migrationRules": [migration("m1"), migration("m2")],
                         "domainRules": [rule("r1"), rule("r2"), rule("r3")]},
        "rulesToRemove": ["r4"],
    })
    assert first.status == 200, first
    assert names(first.json["ruleSet"], "domainRules") == ["r1", "r2", "r3"]
    second = tag(api, "s", "latest", {
        "newVersion": 3,
        "rulesToMerge": {"migrationRules": [migration("m3")],
                         "domainRules": [rule("r5"), rule("r4"), rule("r2", expr="false")]},
        "rulesToRemove": ["r1", "m2"],
    })
    assert second.status == 200, second
    stored = api.version("s", 3).json["ruleSet"]
    assert names(stored, "migrationRules") == ["m1", "m3"]
    assert names(stored, "domainRules") == ["r3", "r5", "r4", "r2"]
    assert stored["domainRules"][-1]["expr"] == "false"
    assert api.version("s", 3).json["metadata"]["properties"]["confluent:version"] == "3"


def test_rules_to_remove_alone_drops_rules_from_the_latest_version(api: Api) -> None:
    api.registered("s", RECORD_V1, ruleSet={"domainRules": [rule("keep"), rule("drop")]})
    reply = tag(api, "s", 1, {"rulesToRemove": ["drop"]})
    assert reply.status == 200, reply
    assert (reply.json["version"], names(reply.json["ruleSet"], "domainRules")) == (2, ["keep"])


@pytest.mark.parametrize("body", [
    {"ruleSet": {"domainRules": [rule("a")]}, "rulesToMerge": {"domainRules": [rule("b")]}},
    {"ruleSet": {"domainRules": [rule("a")]}, "rulesToRemove": ["a"]},
    {"ruleSet": {}, "rulesToRemove": []},
], ids=["with_merge", "with_remove", "even_empty"])
def test_rule_set_with_rule_edits_is_an_invalid_rule_set(api: Api, body: dict[str, Any]) -> None:
    api.registered("s", RECORD_V1)
    reply = tag(api, "s", 1, {"newVersion": 2, **body})
    assert (reply.status, reply.error_code) == (422, 42210)
    assert reply.json["message"] == "ruleSet should be omitted if specifying rulesToMerge or rulesToRemove"


@pytest.mark.parametrize("key", ["ruleSet", "rulesToMerge"])
def test_invalid_rules_are_refused(api: Api, key: str) -> None:
    api.registered("s", RECORD_V1)
    reply = tag(api, "s", 1, {key: {"migrationRules": [{"name": "m", "type": "JSONATA", "mode": "WRITE"}]}})
    assert (reply.status, reply.error_code) == (422, 42210)
    assert api.versions("s").json == [1]


# ------------------------------------------------------------------ registration's rules
def test_compatibility_is_checked_against_the_latest_version(api: Api) -> None:
    api.set_config("s", compatibility="NONE")
    api.registered("s", RECORD_V1)
    api.registered("s", RECORD_INT)
    api.set_config("s", compatibility="BACKWARD")
    reply = tag(api, "s", 1, {"tagsToAdd": [entity("Rec", "sr_record", "T")]})
    assert reply.status == 409, reply
    assert api.versions("s").json == [1, 2]


@pytest.mark.parametrize("mode, message", [
    ("READONLY", "Subject s in context  is in read-only mode"),
    ("IMPORT", "Subject s in context  is not in read-write mode"),
])
def test_mode_must_be_read_write_even_for_an_edit_that_changes_nothing(api: Api, mode: str, message: str) -> None:
    api.registered("s", RECORD_V1)
    api.set_mode(mode, "s", force="true")
    reply = tag(api, "s", 1, {"tagsToAdd": [entity("Rec.f1", "sr_field")]})
    assert (reply.status, reply.error_code, reply.json["message"]) == (422, 42205, message)


# ------------------------------------------------------------------ the base version
# (name, subject, version, expected status, expected error code)
BASE_ERRORS = [
    ("unknown_subject", "nope", "1", 404, 40401),
    ("unknown_version", "s", "5", 404, 40402),
    ("soft_deleted_version", "s", "1", 404, 40402),
    ("malformed_version", "s", "zero", 422, 42202),
    ("version_zero", "s", "0", 422, 42202),
    ("reserved_subject_name", "__GLOBAL", "1", 422, 42208),
]


@pytest.mark.parametrize("subject, version, status, code", [c[1:] for c in BASE_ERRORS], ids=[c[0] for c in BASE_ERRORS])
def test_base_version_errors(api: Api, subject: str, version: str, status: int, code: int) -> None:
    api.registered("s", RECORD_V1)
    api.registered("s", record("Rec", [field("f1", "string"), field("f2", "int", default=0)]))
    assert api.delete_version("s", 1).status == 200
    reply = tag(api, subject, version, {"tagsToAdd": [entity("Rec", "sr_record", "T")]})
    assert (reply.status, reply.error_code) == (status, code)


# ------------------------------------------------------------------ the body
# (name, body, expected status)
BODIES = [
    ("unknown_entity_type", {"tagsToAdd": [entity("Rec", "sr_table", "T")]}, 400),
    ("upper_case_entity_type", {"tagsToAdd": [entity("Rec", "SR_RECORD", "T")]}, 400),
    ("entity_without_path", {"tagsToAdd": [{"schemaEntity": {"entityType": "sr_record"}, "tags": ["T"]}]}, 400),
    ("item_without_entity", {"tagsToAdd": [{"tags": ["T"]}]}, 400),
    ("null_item", {"tagsToRemove": [None]}, 400),
    ("tags_not_strings", {"tagsToAdd": [entity("Rec", "sr_record") | {"tags": [1]}]}, 400),
    ("new_version_not_a_number", {"newVersion": "two"}, 400),
    ("rules_to_remove_not_a_list", {"rulesToRemove": "r"}, 400),
]


@pytest.mark.parametrize("body, status", [c[1:] for c in BODIES], ids=[c[0] for c in BODIES])
def test_malformed_bodies(api: Api, body: dict[str, Any], status: int) -> None:
    api.registered("s", RECORD_V1)
    reply = tag(api, "s", 1, body)
    assert (reply.status, reply.error_code) == (status, status)


def test_missing_body_is_422(api: Api) -> None:
    api.registered("s", RECORD_V1)
    reply = api.call("POST", "/subjects/s/versions/1/tags")
    assert (reply.status, reply.error_code) == (422, 422)
