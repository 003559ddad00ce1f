"""`/policies`, `/policies/{s}`, `/policy-rules`, `/policies/{s}/check` (our extension).

The global document and a subject's or context's selection (`:.ctx:`, as for `/config`);
every write goes through the audit trail as SET_POLICY / DELETE_POLICY. Each view makes one
call to the service's `PolicyService` with the caller and, for writes, the request's origin.
"""
from __future__ import annotations

from flask import Blueprint, Response

from app.api.render import json_response, policy_check_entity
from app.api.requests import flag, read_body, read_json, schema_request
from app.api.service import registry
from app.security.caller import current_principal
from app.api.origin import request_origin

bp = Blueprint("policies", __name__)


@bp.get("/policies")
def get_policies() -> Response:
    return json_response(registry().policies.get_global(principal=current_principal()))


@bp.put("/policies")
def put_policies() -> Response:
    stored = registry().policies.put_global(read_json(), principal=current_principal(), origin=request_origin())
    return json_response(stored)


@bp.delete("/policies")
def delete_policies() -> Response:
    return json_response(registry().policies.delete_global(principal=current_principal(), origin=request_origin()))


@bp.get("/policies/<subject:subject>")
def get_selection(subject: str) -> Response:
    return json_response(registry().policies.get_selection(
        subject, default_to_global=flag("defaultToGlobal"), principal=current_principal()))


@bp.put("/policies/<subject:subject>")
def put_selection(subject: str) -> Response:
    stored = registry().policies.put_selection(
        subject, read_json(), principal=current_principal(), origin=request_origin())
    return json_response(stored)


@bp.delete("/policies/<subject:subject>")
def delete_selection(subject: str) -> Response:
    return json_response(registry().policies.delete_selection(
        subject, principal=current_principal(), origin=request_origin()))


@bp.post("/policies/<subject:subject>/check")
def check(subject: str) -> Response:
    outcome = registry().policies.check(subject, schema_request(read_body()), principal=current_principal())
    return json_response(policy_check_entity(outcome))


@bp.get("/policy-rules")
def policy_rules() -> Response:
    return json_response(registry().policies.rules())
