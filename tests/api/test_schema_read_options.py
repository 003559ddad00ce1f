"""Confluent 8.x's options on the schema reads `GET /schemas/ids/{id}` and
`GET /subjects/{s}/versions/{v}` (issue 40): `findTags` answers the tagged records and fields
as `schemaTags`, and `referenceFormat=qualified` names a context's references by their
qualified subject, on SQLite and PostgreSQL."""
from __future__ import annotations

import json
from typing import Any

import pytest

from api_client import Api, enc

TAGS = "confluent:tags"
ORDER = json.dumps({"type": "record", "name": "Order", "namespace": "shop", TAGS: ["BUSINESS"], "fields": [
    {"name": "id", "type": "long"},
    {"name": "email", "type": "string", TAGS: ["PII", "CONTACT"]},
    {"name": "address", "type": {"type": "record", "name": "Address", "fields": [
        {"name": "zip", "type": "string", TAGS: ["GEO"]}]}},
]})
PERSON_JSON = json.dumps({"type": "object", TAGS: ["BUSINESS"], "properties": {
    "ssn": {"type": "string", TAGS: ["PII"]},
    "home": {"type": "object", TAGS: ["GEO"], "properties": {"zip": {"type": "string", TAGS: ["GEO"]}}},
    "aliases": {"type": "array", "items": {"type": "object", "properties": {
        "nick": {"type": "string", TAGS: ["PII"]}}}},
}})
PERSON_PROTO = """syntax = "proto3";
package acme.people;

import "confluent/meta.proto";

message Person {
  option (confluent.message_meta).tags = "BUSINESS";
  string ssn = 1 [(confluent.field_meta).tags = "PII"];
  Address home = 2;
  message Address {
    string zip = 1 [(confluent.field_meta).tags = "GEO"];
  }
}
"""
COMMON = json.dumps({"type": "record", "name": "Common", "namespace": "shop", "fields": [
    {"name": "at", "type": "long"}]})
USES_COMMON = json.dumps({"type": "record", "name": "Event", "namespace": "shop", "fields": [
    {"name": "common", "type": "shop.Common"}]})


def entity(path: str, entity_type: str, *tags: str) -> dict[str, Any]:
    return {"schemaEntity": {"entityPath": path, "entityType": entity_type}, "tags": list(tags)}


ORDER_TAGS = [
    entity("shop.Order", "sr_record", "BUSINESS"),
    entity("shop.Order.email", "sr_field", "PII", "CONTACT"),
    entity("shop.Address.zip", "sr_field", "GEO"),
]


def test_find_tags_star_lists_every_tagged_record_and_field_on_both_reads(api: Api) -> None:
    registered = api.registered("orders-value", ORDER)
    by_version = api.version("orders-value", 1, findTags="*").json
    by_id = api.get(f"/schemas/ids/{registered['id']}", findTags="*").json
    assert by_version["schemaTags"] == ORDER_TAGS
    assert by_id["schemaTags"] == ORDER_TAGS
    # the rest of each reply is what the plain read answers
    assert {k: v for k, v in by_version.items() if k != "schemaTags"} == api.version("orders-value", 1).json
    assert {k: v for k, v in by_id.items() if k != "schemaTags"} == api.get(f"/schemas/ids/{registered['id']}").json


def test_find_tags_keeps_entities_with_any_named_tag_whole(api: Api) -> None:
    api.registered("orders-value", ORDER)
    assert api.version("orders-value", "latest", findTags="PII").json["schemaTags"] == [ORDER_TAGS[1]]
    assert api.version("orders-value", "latest", findTags=["GEO", "BUSINESS"]).json["schemaTags"] == [
        ORDER_TAGS[0], ORDER_TAGS[2]]
    # Confluent's Java client sends the latest version's tags joined by commas
    assert api.version("orders-value", "latest", findTags="GEO,PII").json["schemaTags"] == ORDER_TAGS[1:]


def test_find_tags_that_match_nothing_leave_schema_tags_out(api: Api) -> None:
    registered = api.registered("orders-value", ORDER)
    assert "schemaTags" not in api.version("orders-value", 1, findTags="NOPE").json
    assert "schemaTags" not in api.get(f"/schemas/ids/{registered['id']}", findTags="").json
    assert "schemaTags" not in api.version("orders-value", 1).json


def test_json_schema_entities_are_named_as_confluents(api: Api) -> None:
    api.registered("people-value", PERSON_JSON, schemaType="JSON")
    assert api.version("people-value", 1, findTags="*").json["schemaTags"] == [
        entity("object", "sr_record", "BUSINESS"),
        entity("object.ssn", "sr_field", "PII"),
        entity("object.home", "sr_field", "GEO"),
        entity("object.home.object.zip", "sr_field", "GEO"),
        entity("object.aliases.array.object.nick", "sr_field", "PII"),
    ]


def test_protobuf_messages_and_fields_are_named_without_the_package(api: Api) -> None:
    api.registered("people-proto", PERSON_PROTO, schemaType="PROTOBUF")
    assert api.version("people-proto", 1, findTags="*").json["schemaTags"] == [
        entity("Person", "sr_record", "BUSINESS"),
        entity("Person.ssn", "sr_field", "PII"),
        entity("Person.Address.zip", "sr_field", "GEO"),
    ]


def test_reference_format_qualified_names_a_contexts_references_in_it(api: Api) -> None:
    api.registered(":.team:common", COMMON)
    api.registered(":.team:shared", COMMON)
    refs = [{"name": "shop.Common", "subject": "common", "version": 1}]
    event = api.registered(":.team:events-value", USES_COMMON, references=refs)
    plain = api.version(":.team:events-value", 1).json
    assert plain["references"] == refs
    qualified = [{"name": "shop.Common", "subject": ":.team:common", "version": 1}]
    assert api.version(":.team:events-value", 1, referenceFormat="qualified").json["references"] == qualified
    assert api.get(f"/schemas/ids/{event['id']}", subject=":.team:events-value",
                   referenceFormat="qualified").json["references"] == qualified
    # any other value changes nothing, as in Confluent
    assert api.version(":.team:events-value", 1, referenceFormat="other").json == plain


def test_reference_format_qualified_leaves_default_context_references_as_stored(api: Api) -> None:
    api.registered("common", COMMON)
    refs = [{"name": "shop.Common", "subject": "common", "version": 1}]
    api.registered("events-value", USES_COMMON, references=refs)
    assert api.version("events-value", 1, referenceFormat="qualified").json["references"] == refs


@pytest.mark.parametrize("path", ["/subjects/{s}/versions/1", "/schemas/ids/{id}"])
def test_find_tags_on_a_read_the_caller_may_not_make_still_fails_as_the_read_does(api: Api, path: str) -> None:
    reply = api.get(path.format(s=enc("missing-value"), id=999), findTags="*")
    assert reply.status == 404 and reply.error_code in (40401, 40403)
