"""Refused write attempts in the audit trail, recorded where every API error is rendered
(errors.py), so no handler has to remember to.

A write endpoint's 403 is `denied`, its other 4xx (409 incompatible, 422 invalid, 404 no
such subject, ...) are `rejected`; 401s are not recorded (the authentication layer logs
them), nor are reads, lookups and compatibility checks. The row gets a transaction of its
own: the refused change was rolled back, the record of its attempt is not.
"""
from __future__ import annotations

import json
from typing import Any

from flask import Response, current_app, request

from app.api.paths import normalized_context
from app.api.service import registry
from app.core import audit
from app.core.errors import RegistryError
from app.security.caller import current_principal
from app.security.origin import request_origin

# Endpoint -> the action it attempts (the tags endpoint registers a version).
_WRITE_ACTIONS = {
    "api.subjects.register": audit.REGISTER,
    "api.tags.modify_tags": audit.REGISTER,
    "api.subjects.delete_version": audit.DELETE_VERSION,
    "api.subjects.delete_subject": audit.DELETE_SUBJECT,
    "api.config.put_config": audit.SET_CONFIG,
    "api.config.delete_config": audit.DELETE_CONFIG,
    "api.mode.put_mode": audit.SET_MODE,
    "api.mode.delete_mode": audit.DELETE_MODE,
    "api.contexts.delete_context": audit.DELETE_CONTEXT,
    "api.policies.put_policies": audit.SET_POLICY,
    "api.policies.put_selection": audit.SET_POLICY,
    "api.policies.delete_policies": audit.DELETE_POLICY,
    "api.policies.delete_selection": audit.DELETE_POLICY,
}
_FLAGS = ("permanent", "force", "recursive")


def record_refused_write(response: Response) -> None:
    """Record `response` (an error reply) when it refuses a write after authentication."""
    status = response.status_code
    action = _WRITE_ACTIONS.get(request.endpoint or "")
    if action is None or not 400 <= status < 500 or status == 401:
        return
    try:
        error_code = json.loads(response.get_data())["error_code"]
        registry().trail.record_refusal(
            action, _scope(), status=status, error_code=error_code, principal=current_principal(),
            origin=request_origin(), version=_version(), detail=_flags(),
        )
    except Exception:  # noqa: BLE001 - the caller gets its refusal whatever happens to the row
        current_app.logger.exception("Could not record a refused %s in the audit trail", action)


def _scope() -> str | None:
    """The subject (qualified), the context (`:.ctx:`), or None for the global settings."""
    args = request.view_args or {}
    if args.get("subject"):
        return str(args["subject"])
    if args.get("context"):
        try:
            return f":{normalized_context(str(args['context']))}:"
        except RegistryError:
            return None
    return None


def _version() -> int | None:
    value = (request.view_args or {}).get("version")
    return int(value) if isinstance(value, str) and value.isdigit() and len(value) < 10 else None


def _flags() -> dict[str, Any] | None:
    return {name: True for name in _FLAGS if request.args.get(name, "").lower() == "true"} or None
