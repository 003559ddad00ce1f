"""The one place where failures become `{"error_code": N, "message": "..."}` (spec §1.2, §4).

Three kinds of failure reach it:
* `RegistryError`s from the core and from request parsing carry their own status and code;
* Werkzeug's HTTP exceptions (routing 404/405, and anything Flask raises itself) use the
  HTTP status as the code, with Jersey's "HTTP <status> <reason>" wording, so no HTML page
  ever leaves the server;
* anything else is a bug: it is logged with its traceback and answered 500/500 with a
  generic message, so internals never leak into a reply.
"""
from __future__ import annotations

from flask import Flask, Response, current_app, request
from werkzeug.exceptions import HTTPException, RequestEntityTooLarge
from werkzeug.routing import RequestRedirect

from app.api.render import json_response
from app.core.errors import RegistryError


def error_response(status: int, error_code: int, message: str) -> Response:
    return json_response({"error_code": error_code, "message": message}, status=status)


def _registry_error(exc: RegistryError) -> Response:
    # The core has already put the configured code on `IncompatibleSchema` (40901, or 409 for 7.x).
    return error_response(exc.http_status, exc.error_code, exc.message)


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


def _unexpected(exc: Exception) -> Response:
    current_app.logger.exception("Unhandled error on %s %s", request.method, request.path)
    return error_response(500, 500, "Internal Server Error")


def register_error_handlers(app: Flask) -> None:
    app.register_error_handler(RegistryError, _registry_error)
    app.register_error_handler(HTTPException, _http_error)
    app.register_error_handler(Exception, _unexpected)
