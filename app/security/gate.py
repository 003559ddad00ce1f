"""The front door on the Flask app: every request but the open ones is authenticated before
anything else looks at it (media types, parameters, routing errors), so a caller without
valid credentials learns nothing, not even which paths exist.

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
from typing import Any

from flask import Flask, Response, current_app, g, request

from app.api.negotiation import V1_JSON
from app.security.authenticate import Authenticator
from app.security.errors import Unauthenticated

log = logging.getLogger(__name__)

UNAUTHORIZED_BODY = b'{"error_code":401,"message":"Unauthorized"}'
# Served without credentials: the root (load balancers probe it), health probes, metrics
# scrapes and the API contract.
OPEN_PREFIXES = ("/health/",)
OPEN_PATHS = frozenset({"/metrics", "/openapi.json"})


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
    response = current_app.response_class(UNAUTHORIZED_BODY, status=401, content_type=V1_JSON)
    for challenge in challenges:
        response.headers.add("WWW-Authenticate", challenge)
    return response


def install(app: Flask, authenticator: Authenticator) -> None:
    """Authenticate every request of `app` that is not open; the caller lands on `g.principal`."""
    refusals = _RefusalLog()
    app.extensions["authenticator"] = authenticator

    def authenticate_request() -> Response | None:
        environ: dict[str, Any] = request.environ
        method, path = environ.get("REQUEST_METHOD", ""), environ.get("PATH_INFO", "")
        if is_open(method, path):
            return None
        try:
            g.principal = authenticator.authenticate(environ)
        except Unauthenticated as exc:
            refusals.refused(method, path, environ.get("REMOTE_ADDR") or "-", exc.reason)
            return unauthorized(authenticator.methods().challenges(exc.token_presented))
        return None

    # First among the app's hooks: before media types and parameters are looked at.
    app.before_request_funcs.setdefault(None, []).insert(0, authenticate_request)
