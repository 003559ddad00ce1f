"""Per-request telemetry: the latency histogram behind `GET /metrics`, and the route and
subject the JSON access log (app/server/access_log.py) reports.

A WSGI middleware around the whole app rather than Flask hooks: it costs one closure and
one batched histogram observation per request (Flask's before/after hooks cost several
times that through their context-local proxies), and it sees every request, health probes,
`/metrics` and unrouted paths included. Requests are labelled by route template
(`/subjects/<subject:subject>/versions`), never by path, which would give every subject its
own time series; paths no route matched share the label `unmatched`. Every label comes
from a closed set, so no client can grow the scrape: a method outside HTTP's standard ones
(anything may be sent, credentials or not) is counted as `other`, and statuses are the
app's own.

Flask drops its request object from the environ when the request ends, so `RoutedRequest`
keeps a second reference under its own key, which the middleware replaces by the route and
subject once the app has answered (so no reference cycle outlives the request).
"""
from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from typing import Any

from flask import Blueprint, Flask, Request, Response

UNMATCHED = "unmatched"
OTHER_METHOD = "other"
KNOWN_METHODS = frozenset({"GET", "HEAD", "POST", "PUT", "DELETE", "PATCH", "OPTIONS", "CONNECT", "TRACE"})
# WSGI environ keys: the routed request while the app runs, then what the access log reads.
_REQUEST_KEY = "sqlregistry.request"
ROUTE_KEY = "sqlregistry.route"
SUBJECT_KEY = "sqlregistry.subject"

bp = Blueprint("metrics", __name__)

WsgiApp = Callable[[dict[str, Any], Callable[..., Any]], Iterable[bytes]]


@bp.get("/metrics")
def scrape() -> Response:
    from app import metrics

    return Response(metrics.exposition(), content_type=metrics.TEXT_CONTENT_TYPE)


class RoutedRequest(Request):
    """Flask's request, findable in the environ after Flask has let go of it."""

    def __init__(self, environ: dict[str, Any], populate_request: bool = True, shallow: bool = False):
        super().__init__(environ, populate_request, shallow)
        environ[_REQUEST_KEY] = self


class TimedRequests:
    """WSGI middleware: names each request's route and subject in the environ and, with
    `timer`, observes its latency (until the app returned its body, which is already in
    memory) under (method, route template, status)."""

    def __init__(self, wsgi_app: WsgiApp, timer: Any | None):
        self.wsgi_app = wsgi_app
        self.timer = timer

    def __call__(self, environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
        started = time.perf_counter()
        status = ""

        def record_status(code: str, headers: list[tuple[str, str]], exc_info: Any = None) -> Any:
            nonlocal status
            status = code
            return start_response(code, headers, exc_info)

        body = self.wsgi_app(environ, record_status)
        request = environ.pop(_REQUEST_KEY, None)
        if request is not None:
            rule = request.url_rule
            route = environ[ROUTE_KEY] = rule.rule if rule is not None else None
            if request.view_args:
                environ[SUBJECT_KEY] = request.view_args.get("subject")
        else:  # answered without Flask (hot_reads.py names the route), or refused before it
            route = environ.get(ROUTE_KEY)
        if self.timer is not None:
            method = environ.get("REQUEST_METHOD", "")
            self.timer.observe(
                method if method in KNOWN_METHODS else OTHER_METHOD, route or UNMATCHED, int(status[:3] or 0),
                time.perf_counter() - started,
            )
        return body


def instrument(app: Flask, *, count: bool) -> None:
    """Name every request's route for the access log; with `count`, also time every
    request into the metrics and serve `/metrics`."""
    app.request_class = RoutedRequest
    timer = None
    if count:
        from app import metrics  # prometheus-client only when metrics are on

        timer = metrics.RequestTimer()
        app.register_blueprint(bp)
    app.wsgi_app = TimedRequests(app.wsgi_app, timer)  # type: ignore[method-assign]
