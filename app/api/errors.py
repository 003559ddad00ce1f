"""The one place where failures become Confluent's error body, `{"error_code": N, "message": "..."}`.

Three kinds of failure reach it:
* `RegistryError`s from the core and from request parsing carry their own status and code;
* Werkzeug's HTTP exceptions (routing 404/405, and anything Flask raises itself) use the
  HTTP status as the code, with Jersey's "HTTP <status> <reason>" wording, so no HTML page
  ever leaves the API;
* anything else is a bug: it is logged with its traceback and answered 500/500 with a
  generic message, so internals never leak into a reply.

A refused write attempt (403, other 4xx) is recorded in the audit trail on its way out
(attempts.py).

`json_error` is the API blueprint's handler. Flask asks blueprint handlers only about
requests routed to one of the blueprint's endpoints, so a URL that matches no rule (a
routing 404, or a 405, whose request has no endpoint) and failures before routing reach the
app instead: `unrouted_error` answers those in JSON as well, except under a first path
segment that a route outside the API lives in (`/ui/...`, `/metrics`): those are answered by
the handler that part of the site registered (`answer_unrouted_errors`: the UI's HTML error
page), else by Flask's own replies.

Two refusals are made by WSGI middleware before Flask sees the request (after
authentication): a body over the size limit (limits.py) and a context name with a colon
(paths.py). `refusal_before_routing` answers them with the same body and, for a request of
the API's, records the refused write in the trail like any other.
"""
from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from flask import Flask, Response, current_app, request
from flask.typing import ResponseReturnValue
from werkzeug.exceptions import HTTPException, RequestEntityTooLarge
from werkzeug.routing import RequestRedirect

from app.api.attempts import record_refused_write
from app.api.authorization import API_BLUEPRINT
from app.api.paths import API_ROOTS, Refuse, first_segment
from app.api.render import error_response, standalone_error
from app.core.errors import RegistryError


def json_error(exc: Exception) -> Response | HTTPException:
    reply = _reply(exc)
    if isinstance(reply, Response):
        record_refused_write(reply)  # a refused write attempt gets its audit row here, once
    return reply


def _reply(exc: Exception) -> Response | HTTPException:
    if isinstance(exc, RegistryError):
        # The core has already put the configured code on `IncompatibleSchema` (40901, or 409 for 7.x).
        return error_response(exc.http_status, exc.error_code, exc.message)
    if isinstance(exc, HTTPException):
        return _http_error(exc)
    current_app.logger.exception("Unhandled error on %s %s", request.method, request.path)
    return error_response(500, 500, "Internal Server Error")


def _http_error(exc: HTTPException) -> Response | HTTPException:
    if isinstance(exc, RequestRedirect):  # not expected (strict slashes are off), but never an error body
        return exc
    if isinstance(exc, RequestEntityTooLarge):
        return error_response(422, 42209, "Schema too large")
    status = exc.code or 500
    response = error_response(status, status, f"HTTP {status} {exc.name}")
    if exc.response is None:
        # Keep headers Werkzeug attaches to the exception, e.g. `Allow` on 405.
        for name, value in exc.get_headers():
            if name.lower() != "content-type":
                response.headers[name] = value
    return response


# Extension key: first path segment -> the handler that answers unrouted failures there.
_OWN_ERROR_PAGES = "unrouted_error_pages"


def answer_unrouted_errors(app: Flask, segment: str, handler: Callable[[Exception], ResponseReturnValue]) -> None:
    """Lets the part of the site under `/<segment>/` answer its unrouted failures itself (the
    UI's HTML page for a wrong method on one of its routes), as its blueprint's own handler
    answers the routed ones. The API's paths stay the API's whatever is registered."""
    app.extensions.setdefault(_OWN_ERROR_PAGES, {})[segment] = handler


def unrouted_error(exc: Exception) -> ResponseReturnValue | HTTPException:
    """The app-level handler: JSON for the API's paths; for the others, the handler their
    part of the site registered, else Flask's defaults."""
    if _belongs_to_api(request.path):
        return json_error(exc)
    own = current_app.extensions.get(_OWN_ERROR_PAGES, {}).get(first_segment(request.path))
    if own is not None:
        return own(exc)
    if isinstance(exc, HTTPException):
        return exc
    raise exc  # Flask logs it and answers its own 500 (or propagates it when testing)


def _belongs_to_api(path: str) -> bool:
    """True unless a route outside the API lives under the path's first segment.

    Unknown paths such as `/nowhere` stay the API's, as every path is Confluent's; the
    API's own roots can never be claimed by another part of the site.
    """
    first = first_segment(path)
    if first in API_ROOTS:
        return True
    return not any(
        not rule.endpoint.startswith(API_BLUEPRINT + ".") and first_segment(rule.rule) == first
        for rule in current_app.url_map.iter_rules()
    )


def refusal_before_routing(app: Flask) -> Refuse:
    """How the API's middleware refuses a request: the error body, and (for a request of the
    API's) its row in the audit trail. Only refused requests pay for the request context
    pushed here, which routes the path so the row knows the endpoint that was meant."""

    def refuse(
        environ: dict[str, Any], start_response: Callable[..., Any], error: RegistryError, *, scoped: bool = True
    ) -> Iterable[bytes]:
        response = standalone_error(environ, error)
        with app.request_context(environ):
            if request.endpoint is not None or _belongs_to_api(request.path):
                record_refused_write(response, scoped=scoped)
        return response(environ, start_response)

    return refuse
