"""The search index and the browser's listings, on SQLite and PostgreSQL: filled once per
content at registration, backfilled by migration 0006 (and refreshed by 0008), queried by indexed statements whose
number does not depend on the page size."""
from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

import pytest
from sqlalchemy import text
from support.migrations import database_at, registry_at_head

from app.core.access import Action, Principal
from app.core.errors import Forbidden
from app.core.registry import RegistryService
from app.core.types import SchemaRequest
from support.statements import counted


def order(*extra: dict[str, Any], name: str = "Order") -> str:
    fields = [
        {"name": "orderId", "type": "long", "doc": "The order's <id>"},
        {"name": "address", "type": {"type": "record", "name": "Address", "fields": [
            {"name": "city", "type": "string"}, {"name": "zip", "type": "string", "default": ""},
        ]}},
        *extra,
    ]
    return json.dumps({"type": "record", "name": name, "namespace": "com.acme", "fields": fields})


def register(service: RegistryService, subject: str, schema: str, schema_type: str = "AVRO") -> int:
    return service.register(subject, SchemaRequest(schema=schema, schema_type=schema_type)).version


def index_rows(service: RegistryService) -> list[tuple[Any, ...]]:
    with service.storage.engine.connect() as conn:  # type: ignore[attr-defined]
        return conn.execute(text("SELECT schema_pk, kind, name_lower, path FROM schema_fields ORDER BY 1, 2, 4")).all()


def test_registration_indexes_fields_and_types_once_per_content(service: RegistryService) -> None:
    register(service, "orders-value", order())
    first = index_rows(service)
    register(service, "copy-value", order())  # the same content under another subject

    assert index_rows(service) == first
    assert {(kind, path) for _, kind, _, path in first} == {
        ("field", "orderId"), ("field", "address"), ("field", "address.city"), ("field", "address.zip"),
        ("type", "com.acme.Order"), ("type", "com.acme.Address"),
    }
    found = service.browse.search("ORDERID")
    assert [(h.subject, h.path, h.type_label, h.doc) for h in found.fields.items] == [
        ("copy-value", "orderId", "long", "The order's <id>"), ("orders-value", "orderId", "long", "The order's <id>"),
    ]


def test_search_matches_names_exactly_or_by_prefix_in_the_latest_live_version(service: RegistryService) -> None:
    register(service, "orders-value", order())
    register(service, "orders-value", order({"name": "cityCode", "type": "int", "default": 0}))
    register(service, "old-value", order({"name": "citizen", "type": "string", "default": ""}))
    register(service, "old-value", order())

    latest = service.browse.search("city")
    every = service.browse.search("city", all_versions=True)

    # Exact names first; old-value's `citizen` is only in its older version.
    assert [(h.subject, h.version, h.path) for h in latest.fields.items] == [
        ("old-value", 2, "address.city"), ("orders-value", 2, "address.city"), ("orders-value", 2, "cityCode"),
    ]
    assert every.fields.total == 5  # address.city in all four versions, and cityCode
    assert service.browse.search("citi").fields.total == 0
    assert [(h.subject, h.version, h.path) for h in service.browse.search("citi", all_versions=True).fields.items] == [
        ("old-value", 1, "citizen")
    ]
    assert [h.path for h in service.browse.search("addr").types.items] == ["com.acme.Address", "com.acme.Address"]
    assert service.browse.search("orders").subjects.total == 1
    assert service.browse.search("").fields.total == 0


def test_search_covers_json_schema_and_protobuf(service: RegistryService) -> None:
    register(service, "json-value", json.dumps({
        "type": "object", "properties": {"shipTo": {"type": "object", "properties": {"city": {"type": "string"}}}},
        "anyOf": [{"properties": {"city": {"type": "string"}}, "required": ["city"]}],
        "definitions": {"Money": {"type": "object"}},
    }), "JSON")
    register(service, "proto-value", 'syntax = "proto3";\npackage acme;\nmessage Shipment {\n  string city = 1;\n}\n',
             "PROTOBUF")

    fields = service.browse.search("city").fields.items
    types = service.browse.search("s").types.items

    assert {(h.subject, h.path) for h in fields} == {
        ("json-value", "shipTo.city"), ("json-value", "anyOf[0].city"), ("proto-value", "Shipment.city")}
    assert {(h.subject, h.path, h.type_label) for h in types} == {("proto-value", "acme.Shipment", "message")}
    assert [(h.path, h.type_label) for h in service.browse.search("money").types.items] == [("Money", "definition")]


def test_hard_deleted_content_leaves_the_index(service: RegistryService) -> None:
    register(service, "gone-value", order(name="Gone"))
    service.delete_subject("gone-value")
    assert service.browse.search("gone").types.total == 0  # soft-deleted: hidden
    service.delete_subject("gone-value", permanent=True)

    assert index_rows(service) == []


def test_subject_list_filters_sorts_and_pages(service: RegistryService) -> None:
    register(service, "a-orders", order())
    register(service, "b-payments", json.dumps({"type": "object"}), "JSON")
    register(service, ":.staging:c-orders", order())
    register(service, "d-deleted", order())
    service.delete_subject("d-deleted")
    service.update_config("b-payments", {"compatibility": "NONE"})
    service.update_config(":.staging:", {"compatibility": "FULL"})
    service.update_mode("a-orders", "READONLY")

    def names(**filters: Any) -> list[str]:
        return [item.subject for item in service.browse.browse_subjects(**filters).items]

    assert names() == ["a-orders", "b-payments", ":.staging:c-orders"]
    assert names(deleted=True) == ["a-orders", "b-payments", "d-deleted", ":.staging:c-orders"]
    assert names(q="ORDERS") == ["a-orders", ":.staging:c-orders"]
    assert names(context=".staging") == [":.staging:c-orders"]
    assert names(schema_type="JSON") == ["b-payments"]
    assert names(own=True) == ["b-payments"]  # its own config; a-orders sets only its own mode
    assert names(overriding=True) == ["a-orders", "b-payments"]  # its own mode, its own config
    assert names(level="FULL") == [":.staging:c-orders"]
    assert names(level="BACKWARD") == ["a-orders"]
    assert names(sort="updated") == [":.staging:c-orders", "b-payments", "a-orders"]
    assert names(page=2, per_page=2) == [":.staging:c-orders"]
    assert service.browse.browse_subjects(page=2, per_page=2).total == 3
    assert service.browse.browse_subjects(context=".nowhere").unknown_context

    listed = {item.subject: item for item in service.browse.browse_subjects(deleted=True).items}
    assert (listed["b-payments"].compatibility.value, listed["b-payments"].compatibility.source) == ("NONE", "subject")
    assert (listed[":.staging:c-orders"].compatibility.source, listed["a-orders"].mode.value) == ("context", "READONLY")
    assert listed["d-deleted"].deleted and listed["d-deleted"].latest_version == 1
    assert (listed["a-orders"].schema_type, listed["a-orders"].latest_id, listed["a-orders"].versions) == ("AVRO", 1, 1)


def test_list_and_search_cost_the_same_statements_at_any_page_size(service: RegistryService) -> None:
    for n in range(120):
        register(service, f"s{n:03d}-value", order({"name": f"f{n}", "type": "int", "default": 0}))
    engine = service.storage.engine  # type: ignore[attr-defined]

    costs = {}
    for per_page in (50, 500):
        with counted(engine) as listing:
            listed = service.browse.browse_subjects(per_page=per_page, sort="updated")
        with counted(engine) as searching:
            found = service.browse.search("f", per_page=per_page)
        costs[per_page] = (len(listing), len(searching))
        assert len(listed.items) == min(per_page, 120) and listed.total == 120
        assert len(found.fields.items) == min(per_page, 120) and found.fields.total == 120

    assert costs[50] == costs[500]
    assert costs[50][0] <= 4 and costs[50][1] <= 12


class HideSecrets:
    """An authorizer that hides every subject whose name starts with "secret"."""

    def check(self, principal: Principal, action: Action, subject: str) -> None:
        if subject.startswith("secret"):
            raise Forbidden(f"{principal.name} may not {action.value} {subject}")

    def filter(self, principal: Principal, subjects: Iterable[str]) -> list[str]:
        return [s for s in subjects if not s.startswith("secret")]

    def check_context_admin(self, principal: Principal, context: str) -> None:
        if "secret" in context:
            raise Forbidden.for_context_admin(context)

    def read_scope(self, principal: Principal) -> Principal:
        return principal


def test_unreadable_subjects_are_absent_from_lists_search_and_counts(service: RegistryService) -> None:
    for subject in ("open-a", "secret-b", "open-c"):
        register(service, subject, order())
    restricted = RegistryService(service.storage, service.formats, service.settings, authorizer=HideSecrets())

    listed = restricted.browse.browse_subjects(per_page=1, page=2)
    assert ([i.subject for i in listed.items], listed.total) == (["open-c"], 2)
    found = restricted.browse.search("city")
    assert {h.subject for h in found.fields.items} == {"open-a", "open-c"} and found.fields.total == 2
    assert restricted.browse.search("secret").subjects.total == 0
    assert restricted.browse.registry_summary().subjects == 2
    with pytest.raises(Forbidden):
        restricted.browse.diff("secret-b")


def test_migration_0006_indexes_schemas_stored_before_it(empty_database_url: str) -> None:
    with database_at(empty_database_url, "0005") as conn:
        conn.execute(text("INSERT INTO subjects (context, name) VALUES ('.', 'legacy-value')"))
        conn.execute(text(
            "INSERT INTO schemas (context, id, hash, schema_type, schema_text, text_hash) "
            "VALUES ('.', 7, :h, 'AVRO', :t, 'x')"
        ), {"h": "0" * 32, "t": order(name="Legacy")})
        conn.execute(text(
            "INSERT INTO subject_versions (subject_id, version, schema_pk, deleted, created_at) "
            "SELECT s.id, 1, c.pk, false, 0 FROM subjects s, schemas c"
        ))

    with registry_at_head(empty_database_url) as service:
        assert [(h.subject, h.schema_id, h.path) for h in service.browse.search("zip").fields.items] == [
            ("legacy-value", 7, "address.zip")
        ]
        assert [h.path for h in service.browse.search("legacy").types.items] == ["com.acme.Legacy"]


def test_migration_0008_reindexes_json_schema_and_protobuf_content(empty_database_url: str) -> None:
    payment = json.dumps({"properties": {"pay": {"oneOf": [
        {"type": "object", "properties": {"iban": {"type": "string"}}}, {"type": "null"}]}}})
    with database_at(empty_database_url, "0007") as conn:
        conn.execute(text(
            "INSERT INTO subjects (context, name, latest_version) VALUES ('.', 'pay-value', 1), ('.', 'legacy-value', 1)"
        ))
        for schema_id, schema_type, schema in ((1, "JSON", payment), (2, "AVRO", order(name="Legacy"))):
            conn.execute(text(
                "INSERT INTO schemas (context, id, hash, schema_type, schema_text, text_hash) "
                "VALUES ('.', :id, :h, :st, :t, 'x')"
            ), {"id": schema_id, "h": str(schema_id) * 32, "st": schema_type, "t": schema})
        conn.execute(text(
            "INSERT INTO subject_versions (subject_id, version, schema_pk, deleted, created_at) "
            "SELECT s.id, 1, c.pk, false, 0 FROM subjects s JOIN schemas c "
            "ON (s.name = 'pay-value') = (c.schema_type = 'JSON')"
        ))
        # The rows an older outline stored: the JSON content's member properties missing, a
        # stale row in their place; the Avro content's rows are kept as they are.
        conn.execute(text(
            "INSERT INTO schema_fields (schema_pk, position, kind, name_lower, name, path, type_label) "
            "SELECT c.pk, 0, 'field', n, n, n, 'string' FROM schemas c, "
            "(SELECT 'stale' AS n UNION ALL SELECT 'kept') names "
            "WHERE (c.schema_type = 'JSON') = (n = 'stale')"
        ))

    with registry_at_head(empty_database_url) as service:
        found = service.browse.search("iban").fields.items
        assert [(h.subject, h.path) for h in found] == [("pay-value", "pay.oneOf[0].iban")]
        assert service.browse.search("stale").fields.total == 0
        assert [h.subject for h in service.browse.search("kept").fields.items] == ["legacy-value"]


def test_names_match_case_insensitively_beyond_ascii_and_wildcards_are_literal(service: RegistryService) -> None:
    register(service, "a_b", json.dumps({"type": "object", "properties": {"Ämter": {"type": "string"}}}), "JSON")
    register(service, "axb", order())

    assert [h.path for h in service.browse.search("äM").fields.items] == ["Ämter"]
    assert [i.subject for i in service.browse.browse_subjects(q="A_B").items] == ["a_b"]
    assert [i.subject for i in service.browse.browse_subjects(q="%").items] == []
