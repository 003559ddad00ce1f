"""Refused write attempts in the audit trail, recorded where every API error is rendered
(errors.py), so no handler has to remember to.

A write endpoint's 403 is `denied`, its other 4xx (409 incompatible, 422 invalid, 404 no
such subject, ...) are `rejected`; 401s are not recorded (the authentication layer logs
them), nor are reads, lookups and compatibility checks. Which endpoints are writes, and
which action each attempts, is the route table's knowledge (authorization.py). A write
method that matched no endpoint (a routing 404 or 405) is recorded as `UNKNOWN_OPERATION`.
Refusals made before Flask routes the request (a body over the size limit, a context name
with a colon) come here too, through `errors.refusal_before_routing`. The row gets a
transaction of its own: the refused change was rolled back, the record of its attempt is not.
"""
from __future__ import annotations

import json
from typing import Any

from flask import Response, current_app, request

from app.api.authorization import WRITE_METHODS, rule_for
from app.api.paths import normalized_context
from app.api.service import registry
from app.core import audit
from app.core.errors import RegistryError
from app.security.caller import current_principal
from app.api.origin import request_origin

_FLAGS = ("permanent", "force", "recursive")


def record_refused_write(response: Response, *, scoped: bool = True) -> None:
    """Record `response` (an error reply to a request of the API's) when it refuses a write
    after authentication. `scoped` False: the path's context name was refused, so the row
    names no context or subject (its path still shows what was sent); nor does the row of a
    request no endpoint matched."""
    status = response.status_code
    action = attempted_change()
    if action is None or not 400 <= status < 500 or status == 401:
        return
    scoped = scoped and request.endpoint is not None  # an unrouted request names no subject
    try:
        error_code = json.loads(response.get_data())["error_code"]
        registry().trail.record_refusal(
            action, _scope() if scoped else None, status=status, error_code=error_code,
            principal=current_principal(), origin=request_origin(), version=_version(), detail=_flags(),
            scoped=scoped,
        )
    except Exception:  # noqa: BLE001 - the caller gets its refusal whatever happens to the row
        current_app.logger.exception("Could not record a refused %s in the audit trail", action)


def attempted_change() -> str | None:
    """The audit action the request attempts: its endpoint's, or UNKNOWN_OPERATION for a
    write method no endpoint matched; None for reads, lookups and checks."""
    endpoint = request.endpoint
    if endpoint is None:
        return audit.UNKNOWN_OPERATION if request.method in WRITE_METHODS else None
    return rule_for(endpoint).audited


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
