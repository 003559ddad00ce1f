"""`/policies`, `/policies/{s}`, `/policy-rules`, `/policies/{s}/check` (issue 21, our extension).

The global document and a subject's or context's selection (`:.ctx:`, as for `/config`);
every write goes through the audit trail as SET_POLICY / DELETE_POLICY.
"""
from __future__ import annotations

from flask import Blueprint, Response

from app.api.render import json_response, policy_check_entity
from app.api.requests import flag, read_body, read_json, schema_request
from app.api.service import registry
from app.security.caller import current_principal
from app.security.origin import request_origin

bp = Blueprint("policies", __name__)


def _guard_and_audit():  # type: ignore[no-untyped-def]
    service, principal = registry(), current_principal()
    return {"guard": service.guard(principal), "audit": service.audit(principal, request_origin())}


@bp.get("/policies")
def get_policies() -> Response:
    service = registry()
    return json_response(service.policies.get_global(service.guard(current_principal())))


@bp.put("/policies")
def put_policies() -> Response:
    return json_response(registry().policies.put_global(read_json(), **_guard_and_audit()))


@bp.delete("/policies")
def delete_policies() -> Response:
    return json_response(registry().policies.delete_global(**_guard_and_audit()))


@bp.get("/policies/<subject:subject>")
def get_selection(subject: str) -> Response:
    service = registry()
    return json_response(service.policies.get_selection(
        subject, flag("defaultToGlobal"), service.guard(current_principal())))


@bp.put("/policies/<subject:subject>")
def put_selection(subject: str) -> Response:
    return json_response(registry().policies.put_selection(subject, read_json(), **_guard_and_audit()))


@bp.delete("/policies/<subject:subject>")
def delete_selection(subject: str) -> Response:
    return json_response(registry().policies.delete_selection(subject, **_guard_and_audit()))


@bp.post("/policies/<subject:subject>/check")
def check(subject: str) -> Response:
    service = registry()
    outcome = service.policies.check(subject, schema_request(read_body()), service.guard(current_principal()))
    return json_response(policy_check_entity(outcome))


@bp.get("/policy-rules")
def policy_rules() -> Response:
    return json_response(registry().policies.catalogue.listing())
