"""The two hottest reads answered without Flask: `GET /schemas/ids/{id}` and
`GET /subjects/{subject}/versions/{version}` in their plain form (no query string, a
subject of unreserved characters), which every serializer and deserializer sends.

What Flask adds to such a request (a request context, routing, three hooks, a Response
object) costs about three times what the registry spends answering it from its read cache,
and these reads should cost about what a Flask hello world does (issue 12). So this WSGI
middleware, just outside Flask, recognizes the plain form and runs the steps the Flask path
runs, in its order, through the same functions: the reply's media type from `Accept`
(`negotiation.negotiate`), the route table's authorization rule for the endpoint
(`authorization.rule_for`), the registry's read, and the body the Flask handler would send
(`render.rendition`, the same cached bytes) or the error reply its error handler would give
(`render.standalone_error`; reads leave no audit row, refused or not). Anything else (a
query string, an escape or a context in the path, an `Accept` nothing satisfies, a failure
that is not the registry's own error) goes on to Flask untouched, which answers it as always.
tests/api/test_hot_reads.py holds every reply to what Flask gives for the same request.
"""
from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from typing import Any, NamedTuple

from flask import Flask

from app.api.authorization import API_BLUEPRINT, rule_for
from app.api.negotiation import negotiate
from app.api.render import cached_rendition, rendition, schema_entity, schema_string_entity, standalone_error
from app.api.requests import INT32_MAX
from app.api.telemetry import ROUTE_KEY, SUBJECT_KEY
from app.core.access import ANONYMOUS
from app.core.errors import RegistryError
from app.security.caller import PRINCIPAL_KEY

WsgiApp = Callable[[dict[str, Any], Callable[..., Any]], Iterable[bytes]]

# The plain forms only; the routes themselves (schemas.py, subjects.py) accept far more.
_SCHEMA_BY_ID = re.compile(r"/schemas/ids/([0-9]{1,10})")
_VERSION = re.compile(r"/subjects/([A-Za-z0-9._~-]+)/versions/([A-Za-z0-9-]+)")
_ID_ENDPOINT = f"{API_BLUEPRINT}.schemas.schema_by_id"
_VERSION_ENDPOINT = f"{API_BLUEPRINT}.subjects.get_version"


class _HotRead(NamedTuple):
    endpoint: str
    view_args: dict[str, str]  # as Flask's routing would name them
    media_type: str


class HotReads:
    def __init__(self, wsgi_app: WsgiApp, app: Flask):
        self.wsgi_app = wsgi_app
        self._app = app
        self._routes: dict[str, str] | None = None  # endpoint -> route template, for telemetry

    def __call__(self, environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
        hot = _plain_read(environ)
        if hot is None:
            return self.wsgi_app(environ, start_response)
        try:
            body = self._read(hot, environ.get(PRINCIPAL_KEY, ANONYMOUS))
        except RegistryError as exc:
            self._name_route(environ, hot)
            return standalone_error(environ, exc)(environ, start_response)  # type: ignore[no-any-return]
        except Exception:  # noqa: BLE001 - not the registry's own refusal: Flask's handler logs and answers it
            return self.wsgi_app(environ, start_response)
        self._name_route(environ, hot)
        start_response("200 OK", [("Content-Type", hot.media_type), ("Content-Length", str(len(body)))])
        return [body]

    def _read(self, hot: _HotRead, principal: Any) -> bytes:
        """The API blueprint's authorization hook for the endpoint, then its handler."""
        registry = self._app.extensions["registry"]
        need = rule_for(hot.endpoint).needs(hot.view_args)
        if need is not None:
            registry.authorizer.check(principal, *need)
        if hot.endpoint == _ID_ENDPOINT:
            found = registry.schema_by_id(int(hot.view_args["id_"]), principal=principal)
            return self._body(found, schema_string_entity)
        args = hot.view_args
        return self._body(registry.get_version(args["subject"], args["version"], principal=principal), schema_entity)

    def _body(self, record: Any, build: Callable[[Any], dict[str, Any]]) -> bytes:
        """The cached body, or one built in an application context (renderers read its settings)."""
        body = cached_rendition(record, build)
        if body is None:
            with self._app.app_context():
                body = rendition(record, build)
        return body

    def _name_route(self, environ: dict[str, Any], hot: _HotRead) -> None:
        """What Flask's routing tells the telemetry (telemetry.py): the route template and subject."""
        if self._routes is None:
            self._routes = {rule.endpoint: rule.rule for rule in self._app.url_map.iter_rules()}
        environ[ROUTE_KEY], environ[SUBJECT_KEY] = self._routes[hot.endpoint], hot.view_args.get("subject")


def _plain_read(environ: dict[str, Any]) -> _HotRead | None:
    if environ.get("REQUEST_METHOD") != "GET" or environ.get("QUERY_STRING"):
        return None
    path = environ.get("PATH_INFO", "")
    by_id = _SCHEMA_BY_ID.fullmatch(path)
    if by_id is not None:
        if int(by_id.group(1)) > INT32_MAX:  # the route's own 404 (not a Java Integer)
            return None
        endpoint, view_args = _ID_ENDPOINT, {"id_": by_id.group(1)}
    else:
        by_version = _VERSION.fullmatch(path)
        if by_version is None:
            return None
        endpoint, view_args = _VERSION_ENDPOINT, {"subject": by_version.group(1), "version": by_version.group(2)}
    media_type = negotiate(environ.get("HTTP_ACCEPT"))
    return None if media_type is None else _HotRead(endpoint, view_args, media_type)
