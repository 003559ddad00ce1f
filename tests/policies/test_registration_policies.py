"""Policies at registration (both databases): the refusal's exact message, what skips the
step (re-registration, IMPORT, force, opt-out), warnings, and failing closed."""
from __future__ import annotations

import json

from policy_api import Api, api  # noqa: F401 - the fixture
from policy_samples import COMPLIANT, NON_COMPLIANT, STRICT_SET, with_fields

SUBJECT = "orders-value"
REFUSAL = (
    'Schema has 2 policy violations for subject "orders-value": '
    '[doc-required /fields/1] field "amount" has no doc; '
    '[name-pattern /fields/3] field "Amount" does not match snake_case'
)


def strict_default(api: Api) -> None:
    reply = api.put("/policies", {"sets": {"events": STRICT_SET, "none": {"rules": []}}, "default": ["events"]})
    assert reply.status == 200, reply


def test_errors_block_with_the_pinned_message_and_nothing_else(api: Api) -> None:
    strict_default(api)
    before = api.snapshot()
    reply = api.register(SUBJECT, NON_COMPLIANT)
    assert reply.status == 422
    assert reply.json == {"error_code": 42201, "message": REFUSAL}
    assert api.snapshot() == before


def test_a_single_violation_reads_singular(api: Api) -> None:
    strict_default(api)
    reply = api.register(SUBJECT, with_fields({"name": "id", "type": "long"}))
    assert reply.json == {"error_code": 42201, "message": (
        'Schema has 1 policy violation for subject "orders-value": [doc-required /fields/0] field "id" has no doc')}


def test_a_protobuf_refusal_locates_each_violation_by_line_and_column(api: Api) -> None:
    strict_default(api)
    proto = 'syntax = "proto3";\n// An order.\nmessage Order {\n  int64 Id = 1;\n  // Fine\n  string fine = 2;\n}\n'
    before = api.snapshot()
    reply = api.register("p-value", proto, schemaType="PROTOBUF")
    assert reply.json == {"error_code": 42201, "message": (
        'Schema has 2 policy violations for subject "p-value": [doc-required 4:3] field "Id" has no doc; '
        '[name-pattern 4:3] field "Id" does not match snake_case')}
    assert api.snapshot() == before
    assert "id" in api.registered("p-value", proto.replace("  int64 Id", "  // Key\n  int64 id"), schemaType="PROTOBUF")


def test_warnings_never_block(api: Api) -> None:
    strict_default(api)
    assert "id" in api.registered(SUBJECT, COMPLIANT)  # its float is a warning


def test_existing_non_compliant_schema_re_registers(api: Api) -> None:
    first = api.registered(SUBJECT, NON_COMPLIANT)
    strict_default(api)
    assert api.registered(SUBJECT, NON_COMPLIANT)["id"] == first["id"]
    assert api.register("other-value", NON_COMPLIANT).error_code == 42201  # new under the policy


def test_import_mode_skips_policies(api: Api) -> None:
    strict_default(api)
    api.set_mode("IMPORT", SUBJECT)
    reply = api.register(SUBJECT, NON_COMPLIANT, id=7, version=1)
    assert reply.status == 200 and reply.json["id"] == 7


def test_force_skips_policies_and_the_audit_row_names_what_it_skipped(api: Api) -> None:
    strict_default(api)
    reply = api.register(SUBJECT, NON_COMPLIANT, params={"force": "true"})
    assert reply.status == 200, reply
    row = api.get("/audit", action="REGISTER").json[0]
    assert row["detail"] == {"force": True, "skippedPolicyViolations": [
        '[doc-required /fields/1] field "amount" has no doc',
        '[name-pattern /fields/3] field "Amount" does not match snake_case']}


def test_opt_out_with_empty_use(api: Api) -> None:
    strict_default(api)
    api.put(f"/policies/{SUBJECT}", {"use": []})
    assert api.register(SUBJECT, NON_COMPLIANT).status == 200
    assert api.register("other-value", NON_COMPLIANT).status == 422


def test_context_selection_applies_to_its_subjects(api: Api) -> None:
    api.put("/policies", {"sets": {"events": STRICT_SET}})
    assert api.register(":.ops:orders", NON_COMPLIANT).status == 200  # no default, no selection
    api.put("/policies/:.ops:", {"use": ["events"]})
    reply = api.register(":.ops:orders2", NON_COMPLIANT)
    assert reply.error_code == 42201 and 'for subject ":.ops:orders2"' in reply.json["message"]
    assert api.register("orders2", NON_COMPLIANT).status == 200  # default context: no policy


def test_forbidden_change_names_the_older_version(api: Api) -> None:
    v1 = with_fields({"name": "id", "type": "int"}, {"name": "note", "type": "string", "default": ""})
    api.registered(SUBJECT, v1)
    api.put("/policies", {"sets": {"db": {"rules": [
        {"rule": "forbidden-changes", "params": {"changes": ["FIELD_TYPE_CHANGED", "FIELD_REMOVED"]}}]}},
        "default": ["db"]})
    v2 = with_fields({"name": "id", "type": "long"})
    reply = api.register(SUBJECT, v2)
    assert reply.json == {"error_code": 42201, "message": (
        'Schema has 2 policy violations for subject "orders-value": '
        '[forbidden-changes /fields/0] field "id" changed type from int to long; '
        '[forbidden-changes /fields/1] field "note" was removed')}
    check = api.post(f"/policies/{SUBJECT}/check", {"schema": v2}).json["violations"]
    assert [(v["location"], v.get("version")) for v in check] == [("/fields/0", None), ("/fields/1", 1)]


def test_uninstalled_rule_fails_closed(api: Api, service) -> None:
    strict_default(api)
    with service.storage.write() as store:  # as if the plugin that provided it was uninstalled
        store.set_policy_document("", "", {"sets": {"x": {"rules": [{"rule": "acme.gone", "severity": "warning"}]}},
                                           "default": ["x"]})
    reply = api.register(SUBJECT, COMPLIANT)
    assert reply.json == {"error_code": 42201, "message": (
        'Schema has 1 policy violation for subject "orders-value": [policy-engine] rule "acme.gone" is not installed')}


def test_lookup_and_compatibility_never_run_policies(api: Api) -> None:
    api.registered(SUBJECT, NON_COMPLIANT)
    strict_default(api)
    assert api.post(f"/subjects/{SUBJECT}", {"schema": NON_COMPLIANT}).status == 200
    other = NON_COMPLIANT.replace('"Amount"', '"Amount2"')
    reply = api.post(f"/compatibility/subjects/{SUBJECT}/versions/latest", {"schema": other})
    assert (reply.status, reply.json) == (200, {"is_compatible": False})  # the level decides, not the policy
    assert api.post(f"/compatibility/subjects/{SUBJECT}/versions/latest", {"schema": NON_COMPLIANT}).json == {
        "is_compatible": True}
    assert json.loads(api.version(SUBJECT, 1).json["schema"])["fields"][3]["name"] == "Amount"


def test_force_past_an_incompatible_change_names_it_in_the_audit_row(api: Api) -> None:
    api.registered(SUBJECT, with_fields({"name": "id", "type": "string"}))
    incompatible = with_fields({"name": "id", "type": "int"})
    assert api.register(SUBJECT, incompatible).status == 409
    assert api.register(SUBJECT, incompatible, params={"force": "true"}).status == 200
    detail = api.get("/audit", action="REGISTER").json[0]["detail"]
    assert detail["force"] is True and "skippedPolicyViolations" not in detail
    assert len(detail["skippedIncompatibilities"]) >= 1
    assert "TYPE_MISMATCH" in detail["skippedIncompatibilities"][0]
