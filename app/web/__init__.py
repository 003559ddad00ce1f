"""The browser UI under `/ui/`: server-rendered pages over `RegistryService`, thin like app/api.

`register_web(app)` mounts the one blueprint and the app-level hook that puts the security
headers on every `/ui` answer. Under `/ui/` every answer is HTML, errors included; the REST
API's hooks and JSON error handlers belong to the `api` blueprint and never see these
requests (and `GET /` stays the API's `{}`).
"""
from __future__ import annotations

import json
import logging
import uuid

from flask import Flask, current_app, redirect, render_template, request, url_for
from markupsafe import Markup
from flask.typing import ResponseReturnValue
from werkzeug.exceptions import HTTPException, MethodNotAllowed, NotFound
from werkzeug.wrappers import Response

from app.api.errors import answer_unrouted_errors
from app.core.errors import Forbidden, RegistryError, WorkBudgetSpent
from app.core.storable_text import shown
from app.web import browse, subject_pages, write_pages  # noqa: F401  (their routes join the blueprint)
from app.web.attempts import note_error_code, record_refused_ui_write
from app.web.blueprint import bp
from app.web.errors import PageError
from app.web.permissions import may, read_only
from app.web.protection import FIELD, UI_PREFIX, check_csrf, check_text, csrf_token, secure_headers
from app.web.reads import utc
from app.web.template_code import TEMPLATE_CODE

log = logging.getLogger(__name__)

BUDGET_SPENT = "This took longer than the registry allows one request; nothing was changed."
NOTICES = {
    "registered": "The schema was registered.",
    "deleted": "Deleted.",
    "settings": "The setting was saved.",
}


def register_web(app: Flask) -> None:
    app.add_url_rule("/ui", "ui_root", lambda: redirect(url_for("ui.index"), 308), strict_slashes=True)
    app.register_blueprint(bp, url_prefix="/ui")
    app.jinja_env.finalize = printable
    app.jinja_env.bytecode_cache = TEMPLATE_CODE
    app.after_request(secure_headers)
    # A wrong method on a UI route matches no rule, so the blueprint's handler never sees it.
    answer_unrouted_errors(app, UI_PREFIX.strip("/"), error_page)


@bp.app_template_global()
def notice() -> str:
    return NOTICES.get(request.args.get("done", ""), "")


@bp.app_context_processor  # app-wide: error pages for unrouted `/ui` requests render outside the blueprint
def page_helpers() -> dict[str, object]:
    return {"ui_read_only": read_only()}


SHOWN_AT_MOST = 100
"""How many rows or reasons a diff or check page lists of one list before a line counting the
rest: two schemas with thousands of differences still make a small page."""

# Globals, so the macros (imported without the page's context) reach them too.
bp.add_app_template_global(SHOWN_AT_MOST, "shown_at_most")
bp.add_app_template_global(csrf_token)
bp.add_app_template_global(may)
bp.add_app_template_global(utc)
bp.add_app_template_global(FIELD, "csrf_field")


def printable(value: object) -> object:
    """Every `{{ ... }}` value on its way into a page: a string stored by an older version
    with NUL or a lone surrogate (which UTF-8 cannot encode, so the page could not be sent)
    is shown with those escaped (`\\ud800`); anything else is untouched."""
    if isinstance(value, str):
        text = shown(value)
        if text is not value:
            return Markup(text) if isinstance(value, Markup) else text
    return value


@bp.app_template_filter("as_json")
def as_json(value: object) -> str:
    """A value as JSON text, escaped by the template like any other string (unlike `tojson`,
    which writes `<` as `\\u003c` for script blocks and would show users that instead of `<`)."""
    return json.dumps(value, ensure_ascii=False, sort_keys=True)


bp.before_request(check_text)
bp.before_request(check_csrf)
bp.after_request(record_refused_ui_write)


@bp.route("/<path:rest>", methods=["GET", "POST"])
def unknown(rest: str) -> Response:
    """No page here: 404, unless a page lives at this path and answers the other method
    (a GET of a POST-only action, a POST to a page): 405, naming the methods it answers.
    Other methods match no rule at all and reach the same page through `error_page`."""
    adapter = current_app.create_url_adapter(request)
    assert adapter is not None
    for method in ("GET", "POST"):
        if method == request.method:
            continue
        try:
            rule, _ = adapter.match(method=method, return_rule=True)
        except HTTPException:
            continue
        if rule.endpoint != request.endpoint and rule.methods:
            raise MethodNotAllowed(valid_methods=sorted(rule.methods))
    raise NotFound()


@bp.errorhandler(Exception)
def error_page(exc: Exception) -> ResponseReturnValue:
    if isinstance(exc, PageError):
        return render_template(exc.template, message=exc.message, **exc.context), exc.status
    if isinstance(exc, Forbidden):
        return render_template("error.html", message="You are not allowed to do this; nothing was changed."), 403
    if isinstance(exc, HTTPException):
        code = exc.code or 500
        message = {404: "No page here.", 405: "This page does not answer that method."}.get(code, f"{code} {exc.name}")
        # Werkzeug's own headers (`Allow` on a 405), not its content type.
        headers = [(name, value) for name, value in exc.get_headers() if name.lower() != "content-type"]
        return render_template("error.html", message=message), code, headers
    if isinstance(exc, WorkBudgetSpent):  # the server's limit, not the schema's fault: try later
        return render_template("error.html", message=BUDGET_SPENT), 503
    if isinstance(exc, RegistryError) and exc.http_status < 500:
        note_error_code(exc.error_code)
        return render_template("refused.html", error=exc, back=url_for("ui.index")), exc.http_status
    request_id = uuid.uuid4().hex[:12]
    log.exception("UI request %s failed: %s %s", request_id, request.method, request.path)
    return render_template("error.html", message="Something went wrong on our side.", request_id=request_id), 500
