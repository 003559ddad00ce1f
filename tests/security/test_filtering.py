"""What a restricted caller sees of the lists and of schemas fetched by id: only what it may
read, pagination applied after filtering; a schema id none of whose holders (soft-deleted
ones count) it may read is, to it, unknown (404/40403, the unknown id's very reply)."""
from __future__ import annotations

import json

import pytest

from app.core.registry import RegistryService
from app.core.types import SchemaRequest
from support.guarded import CALLERS, GuardedRegistry

OPS = CALLERS["ops"]


def record(name: str, *fields: str) -> str:
    return json.dumps({"type": "record", "name": name, "fields": [
        {"name": f, "type": "string", "default": ""} for f in fields]})


def register(service: RegistryService, subject: str, schema: str, **fields) -> int:
    return service.register(subject, SchemaRequest(schema=schema, **fields), principal=OPS).id


@pytest.fixture
def mixed(guarded: GuardedRegistry) -> GuardedRegistry:
    """`reader` may read `payments.*` in `.` and `.staging`; around them, subjects it may not
    read in the same contexts and in `.prod`, and one soft-deleted subject it may read."""
    service = guarded.service
    for subject in ("payments.a", "payments.b", "payments.c", "orders", "shared.x"):
        register(service, subject, record("A", subject.replace(".", "_")))
    register(service, "payments.gone", record("A", "gone"))
    service.delete_subject("payments.gone", principal=OPS)
    register(service, ":.staging:payments.s", record("S", "s"))
    register(service, ":.staging:internal", record("S", "i"))
    register(service, ":.prod:payments.p", record("P", "p"))
    register(service, ":.hidden:internal", record("H", "h"))
    return guarded


# ---------------------------------------------------------------- GET /subjects
@pytest.mark.parametrize(("query", "expected"), [
    ("", [":.staging:payments.s", "payments.a", "payments.b", "payments.c"]),
    ("subjectPrefix=payments.", ["payments.a", "payments.b", "payments.c"]),
    ("subjectPrefix=:.staging:", [":.staging:payments.s"]),
    ("subjectPrefix=:.prod:", []),
    ("subjectPrefix=:*:", [":.staging:payments.s", "payments.a", "payments.b", "payments.c"]),
    ("deleted=true", [":.staging:payments.s", "payments.a", "payments.b", "payments.c", "payments.gone"]),
    ("deletedOnly=true", ["payments.gone"]),
    ("offset=1&limit=2", ["payments.a", "payments.b"]),
    ("offset=3", ["payments.c"]),
])
def test_subjects_lists_only_what_the_caller_may_read(mixed: GuardedRegistry, query: str, expected) -> None:
    assert mixed.as_("reader").get("/subjects", query).json == expected


def test_subjects_of_a_context_through_the_path_form_are_filtered(mixed: GuardedRegistry) -> None:
    assert mixed.as_("reader").get("/contexts/.staging/subjects").json == [":.staging:payments.s"]
    assert mixed.as_("nobody").get("/contexts/.staging/subjects").json == []
    assert mixed.as_("ops").get("/contexts/.staging/subjects").json == [":.staging:internal", ":.staging:payments.s"]


def test_a_caller_with_no_grant_sees_an_empty_registry(mixed: GuardedRegistry) -> None:
    nobody = mixed.as_("nobody")
    assert nobody.get("/subjects").json == []
    assert nobody.get("/schemas").json == []
    assert nobody.get("/contexts").json == ["."]


# ---------------------------------------------------------------- GET /schemas
def test_schemas_lists_only_readable_subject_versions_paged_after_filtering(mixed: GuardedRegistry) -> None:
    reader = mixed.as_("reader")
    listed = [(item["subject"], item["version"]) for item in reader.get("/schemas").json]
    assert listed == [("payments.a", 1), ("payments.b", 1), ("payments.c", 1)]
    assert [i["subject"] for i in reader.get("/schemas", "subjectPrefix=:*:").json] == [
        ":.staging:payments.s", "payments.a", "payments.b", "payments.c"]
    assert [i["subject"] for i in reader.get("/schemas", "deleted=true").json][-1] == "payments.gone"
    assert [i["subject"] for i in reader.get("/schemas", "offset=1&limit=2").json] == ["payments.b", "payments.c"]
    assert [i["subject"] for i in reader.get("/schemas", "subjectPrefix=:.prod:").json] == []


def test_schemas_lists_alias_names_only_when_readable(mixed: GuardedRegistry) -> None:
    mixed.service.update_config("orders-alias", {"alias": "payments.a"}, principal=OPS)
    mixed.service.update_config("payments.alias", {"alias": "payments.a"}, principal=OPS)
    def aliases(caller: str) -> list[str] | None:
        items = mixed.as_(caller).get("/schemas", "aliases=true").json
        return next(i.get("aliases") for i in items if i["subject"] == "payments.a")

    assert aliases("reader") == ["payments.alias"]
    assert aliases("ops") == ["orders-alias", "payments.alias"]


# ---------------------------------------------------------------- GET /contexts
def test_contexts_lists_the_default_and_those_holding_a_readable_subject(mixed: GuardedRegistry) -> None:
    assert mixed.as_("reader").get("/contexts").json == [".", ".staging"]
    assert mixed.as_("ops").get("/contexts").json == [".", ".hidden", ".prod", ".staging"]
    assert mixed.as_("reader").get("/contexts", "offset=1").json == [".staging"]


def test_a_context_whose_readable_subject_is_soft_deleted_is_still_listed(guarded: GuardedRegistry) -> None:
    register(guarded.service, ":.old:payments.x", record("X", "x"))
    guarded.service.delete_subject(":.old:payments.x", principal=OPS)
    assert guarded.as_("everywhere").get("/contexts").json == [".", ".old"]
    assert guarded.as_("reader").get("/contexts").json == ["."]


# ---------------------------------------------------------------- referencedby
def test_referencedby_lists_only_readable_referrers(guarded: GuardedRegistry) -> None:
    service = guarded.service
    register(service, "payments.base", record("Base", "b"))
    outer = json.dumps({"type": "record", "name": "Outer", "fields": [{"name": "base", "type": "Base"}]})
    refs = [{"name": "Base", "subject": "payments.base", "version": 1}]
    visible = register(service, "payments.outer", outer, references=refs)
    hidden = register(service, "orders-outer", json.dumps({**json.loads(outer), "name": "Hidden"}), references=refs)
    assert guarded.as_("ops").get("/subjects/payments.base/versions/1/referencedby").json == sorted([visible, hidden])
    assert guarded.as_("reader").get("/subjects/payments.base/versions/1/referencedby").json == [visible]


# ---------------------------------------------------------------- schemas by id
def test_an_id_held_only_by_unreadable_subjects_is_unknown(mixed: GuardedRegistry) -> None:
    hidden = register(mixed.service, "orders", record("A", "orders"))
    reader = mixed.as_("reader")
    unknown = reader.get("/schemas/ids/99999")
    for path in (f"/schemas/ids/{hidden}", f"/schemas/ids/{hidden}/schema",
                 f"/schemas/ids/{hidden}/subjects", f"/schemas/ids/{hidden}/versions"):
        reply = reader.get(path)
        assert (reply.status, reply.json["error_code"]) == (404, 40403), (path, reply)
    assert reader.get(f"/schemas/ids/{hidden}").json == {
        **unknown.json, "message": unknown.json["message"].replace("99999", str(hidden))}
    assert mixed.as_("ops").get(f"/schemas/ids/{hidden}").status == 200


def test_a_soft_deleted_readable_holder_makes_an_id_readable(mixed: GuardedRegistry) -> None:
    shared = register(mixed.service, "orders", record("A", "gone"))  # the schema payments.gone holds
    reply = mixed.as_("reader").get(f"/schemas/ids/{shared}")
    assert reply.status == 200 and json.loads(reply.json["schema"])["fields"][0]["name"] == "gone"
    assert mixed.as_("reader").get(f"/schemas/ids/{shared}/subjects").json == []
    assert mixed.as_("reader").get(f"/schemas/ids/{shared}/subjects", "deleted=true").json == ["payments.gone"]
    assert mixed.as_("ops").get(f"/schemas/ids/{shared}/subjects", "deleted=true").json == ["orders", "payments.gone"]


def test_id_listings_show_only_readable_holders(mixed: GuardedRegistry) -> None:
    shared = register(mixed.service, "orders", record("A", "payments_a"))  # also held by payments.a
    register(mixed.service, "payments.copy", record("A", "payments_a"))
    reader = mixed.as_("reader")
    assert reader.get(f"/schemas/ids/{shared}/subjects").json == ["payments.a", "payments.copy"]
    assert reader.get(f"/schemas/ids/{shared}/versions").json == [
        {"subject": "payments.a", "version": 1}, {"subject": "payments.copy", "version": 1}]
    assert reader.get(f"/schemas/ids/{shared}/subjects", "offset=1").json == ["payments.copy"]
    assert reader.get(f"/schemas/ids/{shared}").json["subject"] == "payments.a"
    assert mixed.as_("ops").get(f"/schemas/ids/{shared}").json["subject"] == "orders"
    assert mixed.as_("ops").get(f"/schemas/ids/{shared}/subjects").json == ["orders", "payments.a", "payments.copy"]


def test_ids_of_other_contexts_follow_that_contexts_holders(mixed: GuardedRegistry) -> None:
    service = mixed.service
    staging_id = service.schema_by_id(1, subject=":.staging:", principal=OPS).schema.id
    prod_id = service.schema_by_id(1, subject=":.prod:", principal=OPS).schema.id
    reader = mixed.as_("reader")
    assert reader.get(f"/contexts/.staging/schemas/ids/{staging_id}").status == 200
    assert reader.get(f"/schemas/ids/{staging_id}", "subject=:.staging:payments.s").status == 200
    hidden = reader.get(f"/contexts/.prod/schemas/ids/{prod_id}")
    assert (hidden.status, hidden.json["error_code"]) == (404, 40403)
    assert reader.get(f"/contexts/.prod/schemas/ids/{prod_id}/versions").status == 404
    assert mixed.as_("ops").get(f"/contexts/.prod/schemas/ids/{prod_id}").status == 200
    assert reader.get(f"/schemas/ids/{prod_id}", "subject=:.prod:payments.p").status == 404
    assert mixed.as_("everywhere").get(f"/schemas/ids/{prod_id}", "subject=:.prod:payments.p").status == 200


def test_a_guid_is_readable_through_a_readable_holder_only(mixed: GuardedRegistry) -> None:
    service = mixed.service
    readable = service.schema_by_id(register(service, "payments.g", record("G", "g")), principal=OPS).schema.guid
    hidden = service.schema_by_id(register(service, "orders-g", record("G", "h")), principal=OPS).schema.guid
    reader = mixed.as_("reader")
    assert reader.get(f"/schemas/guids/{readable}").status == 200
    assert [e["context"] for e in reader.get(f"/schemas/guids/{readable}/ids").json] == ["."]
    refused = reader.get(f"/schemas/guids/{hidden}")
    assert (refused.status, refused.json["error_code"]) == (404, 40403)
    assert reader.get(f"/schemas/guids/{hidden}/ids").json == []
    assert mixed.as_("ops").get(f"/schemas/guids/{hidden}").status == 200


def test_a_global_reader_shares_the_unfiltered_answers(mixed: GuardedRegistry) -> None:
    everything = mixed.as_("ops").get("/subjects").json
    assert everything == [
        ":.hidden:internal", ":.prod:payments.p", ":.staging:internal", ":.staging:payments.s",
        "orders", "payments.a", "payments.b", "payments.c", "shared.x",
    ]


# ---------------------------------------------------------------- cached replies
def test_a_cached_reply_is_served_only_to_callers_who_may_read_it(mixed: GuardedRegistry) -> None:
    """The hot reads are cached per read scope: alternating callers each keep their answer."""
    hidden = register(mixed.service, "orders", record("A", "orders"))
    readable = register(mixed.service, "payments.d", record("A", "payments_d"))
    for _ in range(3):
        assert mixed.as_("ops").get(f"/schemas/ids/{hidden}").status == 200
        assert mixed.as_("reader").get(f"/schemas/ids/{hidden}").status == 404
        assert mixed.as_("nobody").get(f"/schemas/ids/{readable}").status == 404
        assert mixed.as_("reader").get(f"/schemas/ids/{readable}").status == 200
        assert mixed.as_("reader").get("/subjects/payments.d/versions/1").status == 200
        assert mixed.as_("nobody").get("/subjects/payments.d/versions/1").status == 403


def test_a_reply_cached_for_a_caller_is_not_served_after_its_grant_is_revoked(settings) -> None:
    from support.grants import auth_file, grant
    from support.guarded import GuardedRegistry, guarded_app

    files = [auth_file(grant("user:reader", "read", "prefix:payments."), grant("user:ops", "admin", scope="global"))]
    app = guarded_app(settings, lambda: files[-1])
    guarded = GuardedRegistry(app)
    try:
        schema_id = register(guarded.service, "payments.a", record("A", "a"))
        for _ in range(2):
            assert guarded.as_("reader").get(f"/schemas/ids/{schema_id}").status == 200
            assert guarded.as_("reader").get("/subjects/payments.a/versions/1").status == 200
        files.append(auth_file(grant("user:reader", "read", "prefix:shared.")))
        assert guarded.as_("reader").get(f"/schemas/ids/{schema_id}").status == 404
        assert guarded.as_("reader").get("/subjects/payments.a/versions/1").status == 403
    finally:
        app.extensions["registry"].storage.close()
