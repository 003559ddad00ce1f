"""The web UI's writes in the audit trail, recorded as the REST API's are (app/api/attempts.py):
a committed change carries where it came from (address, method, path, user agent), and a
write the UI refused after authentication gets a row of its own, `denied` for a 403 (the
authorizer, or REGISTRY_UI_READONLY) and `rejected` for any other 4xx (a missing CSRF token,
an invalid schema, a rule of the registry's). The check form and the pages are reads and
are not recorded, as REST's lookups and checks are not.

Which change a POST attempts is the endpoint's; for the settings forms, the form's `what`
says whether it is the level or the mode.
"""
from __future__ import annotations

from dataclasses import replace

from flask import current_app, g, request
from werkzeug.wrappers import Response

from app.core import audit
from app.core.store.audit import Origin
from app.security.caller import current_principal
from app.api.origin import request_origin
from app.web import params
from app.web.permissions import registry

_ACTIONS = {
    "ui.new": audit.REGISTER,
    "ui.register": audit.REGISTER,
    "ui.delete_subject": audit.DELETE_SUBJECT,
    "ui.delete_version": audit.DELETE_VERSION,
}
_SETTINGS = ("ui.subject_settings", "ui.scope_settings")
_SUCCESS_STATUS = 303  # every UI write answers a redirect to the page showing its result
_ERROR_CODE = "sqlregistry_ui_error_code"


def ui_origin() -> Origin:
    """The request as the trail records it: the REST API's fields, with the UI's success status."""
    return replace(request_origin(), success_status=_SUCCESS_STATUS)


def note_error_code(code: int) -> None:
    """The registry's error code behind a refusal page, for the refusal's row."""
    setattr(g, _ERROR_CODE, code)


def record_refused_ui_write(response: Response) -> Response:
    """The blueprint's `after_request` hook: a row for a refused write, nothing otherwise."""
    status = response.status_code
    action = _attempted_change() if request.method == "POST" else None
    if action is None or not 400 <= status < 500 or status == 401:
        return response
    code = getattr(g, _ERROR_CODE, None) or (40301 if status == 403 else status)
    try:
        registry().trail.record_refusal(
            action, _scope(), status=status, error_code=code, principal=current_principal(), origin=ui_origin(),
            version=_version(), detail={"permanent": True} if params.flag("permanent") else None,
        )
    except Exception:  # noqa: BLE001 - the caller gets its refusal page whatever happens to the row
        current_app.logger.exception("Could not record a refused UI %s in the audit trail", action)
    return response


def _attempted_change() -> str | None:
    endpoint = request.endpoint or ""
    if endpoint in _SETTINGS:  # clearing is a merge the core records as a set, too
        return audit.SET_MODE if request.form.get("what") == "mode" else audit.SET_CONFIG
    return _ACTIONS.get(endpoint)


def _scope() -> str | None:
    """The subject the form acts on (qualified), a context (`:.ctx:`), or None for the global settings."""
    subject = (request.view_args or {}).get("subject")
    if subject:
        return str(subject)
    if request.endpoint == "ui.new":
        return request.form.get("subject", "").strip() or None
    if request.endpoint == "ui.scope_settings":
        return request.form.get("scope", "") or None
    return None


def _version() -> int | None:
    value = (request.view_args or {}).get("version")
    return int(value) if isinstance(value, str) and value.isdigit() and len(value) < 10 else None
