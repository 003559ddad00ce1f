"""The front door on the Flask app: every request but the open ones is authenticated before
anything else looks at it (body size, context names, routing, media types, parameters), so
a caller without valid credentials learns nothing, not even which paths exist, and every
refusal that comes later knows whom it refused (the audit trail records it).

It is WSGI middleware, outside the API's own middleware and Flask: a request pays for one
dictionary write, not for a Flask hook and its context-local proxies; the caller lands in
the environ (app/security/caller.py).

A refused caller gets exactly what Confluent's registry sends: 401 with the body
`{"error_code":401,"message":"Unauthorized"}` in the registry media type, plus one
`WWW-Authenticate` challenge per scheme the file enables. Why it was refused goes to the
server log only (at most a few lines a second per worker, so a scanner cannot flood the
log); credentials never do.
"""
from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Iterable
from typing import Any

from flask import Flask
from werkzeug.wrappers import Response

from app.api.negotiation import V1_JSON
from app.security.authenticate import Authenticator
from app.security.caller import PRINCIPAL_KEY
from app.security.errors import Unauthenticated

WSGIApp = Callable[[dict[str, Any], Callable[..., Any]], Iterable[bytes]]

log = logging.getLogger(__name__)

UNAUTHORIZED_BODY = b'{"error_code":401,"message":"Unauthorized"}'
# Served without credentials: the root (load balancers probe it), health probes, metrics
# scrapes and the API contract.
OPEN_PREFIXES = ("/health/",)
OPEN_PATHS = frozenset({"/metrics", "/openapi.json"})
# What an open path starts with: the one test every other request pays for.
_MAYBE_OPEN = ("/health/", "/metrics", "/openapi.json")


def is_open(method: str, path: str) -> bool:
    if path == "/":
        return method in ("GET", "HEAD")
    return path.rstrip("/") in OPEN_PATHS or path.startswith(OPEN_PREFIXES)


class _RefusalLog:
    """At most `burst` refusal lines per `seconds` in this worker; the rest are counted and
    summed up in the next window's first line."""

    def __init__(self, burst: int = 10, seconds: float = 10.0) -> None:
        self._burst = burst
        self._seconds = seconds
        self._window = 0.0
        self._logged = 0
        self._suppressed = 0
        self._lock = threading.Lock()

    def refused(self, method: str, path: str, address: str, reason: str) -> None:
        now = time.monotonic()
        with self._lock:
            if now >= self._window + self._seconds:
                if self._suppressed:
                    log.warning("401: %d more refusals not logged in the last %.0f s", self._suppressed,
                                self._seconds)
                self._window, self._logged, self._suppressed = now, 0, 0
            if self._logged >= self._burst:
                self._suppressed += 1
                return
            self._logged += 1
        log.warning("401 %s %r from %s: %s", method[:20], path[:200], address, reason)


def unauthorized(challenges: list[str]) -> Response:
    response = Response(UNAUTHORIZED_BODY, status=401, content_type=V1_JSON)
    for challenge in challenges:
        response.headers.add("WWW-Authenticate", challenge)
    return response


class AuthenticationGate:
    """WSGI middleware: authenticate every request that is not open, or answer 401."""

    def __init__(self, wsgi_app: WSGIApp, authenticator: Authenticator) -> None:
        self.wsgi_app = wsgi_app
        self.authenticator = authenticator
        self._refusals = _RefusalLog()

    def __call__(self, environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
        path = environ.get("PATH_INFO", "")
        candidate = path == "/" or path.startswith(_MAYBE_OPEN)  # an API request stops at this test
        if not (candidate and is_open(environ.get("REQUEST_METHOD", ""), path)):
            try:
                environ[PRINCIPAL_KEY] = self.authenticator.authenticate(environ)
            except Unauthenticated as exc:
                method = environ.get("REQUEST_METHOD", "")
                self._refusals.refused(method, path, environ.get("REMOTE_ADDR") or "-", exc.reason)
                challenges = self.authenticator.methods().challenges(exc.token_presented)
                return unauthorized(challenges)(environ, start_response)
        return self.wsgi_app(environ, start_response)


def install(app: Flask, authenticator: Authenticator) -> None:
    """Authenticate every request of `app` that is not open. Call it after the API's own
    middleware is in place (so the gate is in front of it) and before the telemetry's (so
    401s are timed and logged like any other reply)."""
    app.extensions["authenticator"] = authenticator
    app.wsgi_app = AuthenticationGate(app.wsgi_app, authenticator)  # type: ignore[method-assign]
