"""The hottest requests answered without Flask: `GET /schemas/ids/{id}`,
`GET /subjects/{subject}/versions/{version}` and the re-registration of a schema the subject
already holds (`POST /subjects/{subject}/versions`), in their plain form (no query string, a
subject of unreserved characters), which every serializer and deserializer sends.

What Flask adds to such a request (a request context, routing, three hooks, a Response
object) costs several times what the registry spends answering it from its read cache, and
these requests should cost about what a Flask hello world does. So this WSGI
middleware, just outside Flask, recognizes the plain form and runs the steps the Flask path
runs, in its order, through the same functions: the media types (`negotiation`), the route
table's authorization rule for the endpoint (`authorization.rule_for`), the body's JSON
(`requests.json_document`, `requests.schema_request`), the registry's call, and the body the
Flask handler would send (`render.rendition`, the same cached bytes) or, for a read, the
error reply its error handler would give (`render.standalone_error`; reads leave no audit
row). A registration is only answered here when the registry's read cache already holds its
answer (`RegistryService.registered_already`, nothing written, nothing that can fail); any
other registration, and anything else (a query string, an escape or a context in the path,
an unacceptable media type, a failure that is not the registry's own error), goes on to Flask
untouched, its body put back as it came, and Flask answers it as always.
tests/api/test_hot_reads.py holds every reply to what Flask gives for the same request.
"""
from __future__ import annotations

import io
import re
from collections.abc import Callable, Iterable
from typing import Any, NamedTuple

from flask import Flask
from werkzeug.http import parse_options_header

from app.api.authorization import API_BLUEPRINT, rule_for
from app.api.negotiation import consumed, negotiate
from app.api.render import (
    cached_rendition,
    registered_entity,
    rendition,
    schema_entity,
    schema_string_entity,
    standalone_error,
)
from app.api.requests import INT32_MAX, json_document, schema_request
from app.api.telemetry import ROUTE_KEY, SUBJECT_KEY
from app.core.access import ANONYMOUS
from app.core.errors import RegistryError
from app.security.caller import PRINCIPAL_KEY

WsgiApp = Callable[[dict[str, Any], Callable[..., Any]], Iterable[bytes]]

# The plain forms only; the routes themselves (schemas.py, subjects.py) accept far more.
_SCHEMA_BY_ID = re.compile(r"/schemas/ids/([0-9]{1,10})")
_VERSION = re.compile(r"/subjects/([A-Za-z0-9._~-]+)/versions/([A-Za-z0-9-]+)")
_VERSIONS = re.compile(r"/subjects/([A-Za-z0-9._~-]+)/versions")
_ID_ENDPOINT = f"{API_BLUEPRINT}.schemas.schema_by_id"
_VERSION_ENDPOINT = f"{API_BLUEPRINT}.subjects.get_version"
_REGISTER_ENDPOINT = f"{API_BLUEPRINT}.subjects.register"


class _Hot(NamedTuple):
    endpoint: str
    view_args: dict[str, str]  # as Flask's routing would name them
    media_type: str


class HotReads:
    def __init__(self, wsgi_app: WsgiApp, app: Flask):
        self.wsgi_app = wsgi_app
        self._app = app
        self._routes: dict[str, str] | None = None  # endpoint -> route template, for telemetry

    def __call__(self, environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
        hot = _plain_request(environ)
        if hot is None:
            return self.wsgi_app(environ, start_response)
        try:
            if hot.endpoint == _REGISTER_ENDPOINT:
                body = self._registered_already(hot, environ)
                if body is None:
                    return self.wsgi_app(environ, start_response)
            else:
                body = self._read(hot, environ.get(PRINCIPAL_KEY, ANONYMOUS))
        except RegistryError as exc:  # a read's refusal (a registration's never gets here)
            self._name_route(environ, hot)
            return standalone_error(environ, exc)(environ, start_response)  # type: ignore[no-any-return]
        except Exception:  # noqa: BLE001 - not the registry's own refusal: Flask's handler logs and answers it
            return self.wsgi_app(environ, start_response)
        self._name_route(environ, hot)
        start_response("200 OK", [("Content-Type", hot.media_type), ("Content-Length", str(len(body)))])
        return [body]

    def _read(self, hot: _Hot, principal: Any) -> bytes:
        """The API blueprint's authorization hook for the endpoint, then its handler."""
        registry = self._authorized(hot, principal)
        if hot.endpoint == _ID_ENDPOINT:
            found = registry.schema_by_id(int(hot.view_args["id_"]), principal=principal)
            return self._body(found, schema_string_entity)
        args = hot.view_args
        return self._body(registry.get_version(args["subject"], args["version"], principal=principal), schema_entity)

    def _registered_already(self, hot: _Hot, environ: dict[str, Any]) -> bytes | None:
        """The reply to a re-registration the read cache holds, or None with the body put back
        for Flask. Any refusal on the way is left to Flask too (it audits refused writes)."""
        data = _take_body(environ)
        if data is None:
            return None
        try:
            document = json_document(data)
            if not isinstance(document, dict):
                return None
            principal = environ.get(PRINCIPAL_KEY, ANONYMOUS)
            registry = self._authorized(hot, principal)
            done = registry.registered_already(hot.view_args["subject"], schema_request(document), principal=principal)
        except Exception:  # noqa: BLE001 - Flask gives the refusal its reply and audit row
            return None
        return None if done is None else self._body(done, registered_entity)

    def _authorized(self, hot: _Hot, principal: Any) -> Any:
        """The registry, once the route table's rule for the endpoint lets the caller in."""
        registry = self._app.extensions["registry"]
        need = rule_for(hot.endpoint).needs(hot.view_args, _no_flags)
        if need is not None:
            registry.authorizer.check(principal, *need)
        return registry

    def _body(self, record: Any, build: Callable[[Any], dict[str, Any]]) -> bytes:
        """The cached body, or one built in an application context (renderers read its settings)."""
        body = cached_rendition(record, build)
        if body is None:
            with self._app.app_context():
                body = rendition(record, build)
        return body

    def _name_route(self, environ: dict[str, Any], hot: _Hot) -> None:
        """What Flask's routing tells the telemetry (telemetry.py): the route template and subject."""
        if self._routes is None:
            self._routes = {rule.endpoint: rule.rule for rule in self._app.url_map.iter_rules()}
        environ[ROUTE_KEY], environ[SUBJECT_KEY] = self._routes[hot.endpoint], hot.view_args.get("subject")


def _no_flags(name: str) -> bool:
    return False  # a plain request has no query string


def _plain_request(environ: dict[str, Any]) -> _Hot | None:
    if environ.get("QUERY_STRING"):
        return None
    method, path = environ.get("REQUEST_METHOD"), environ.get("PATH_INFO", "")
    if method == "GET":
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
    elif method == "POST":
        registering = _VERSIONS.fullmatch(path)
        if registering is None or not consumed(parse_options_header(environ.get("CONTENT_TYPE", ""))[0].lower()):
            return None
        endpoint, view_args = _REGISTER_ENDPOINT, {"subject": registering.group(1)}
    else:
        return None
    media_type = negotiate(environ.get("HTTP_ACCEPT"))
    return None if media_type is None else _Hot(endpoint, view_args, media_type)


def _take_body(environ: dict[str, Any]) -> bytes | None:
    """The body of known length, with an identical stream put back for Flask; None (and the
    stream left as it was) when its length is not a plain number."""
    length = environ.get("CONTENT_LENGTH", "")
    if not length.isdigit():
        return None
    stream = environ["wsgi.input"]
    try:
        data = stream.read(int(length))
    except Exception as exc:  # noqa: BLE001 - the server's reader refused the framing: Flask reports it
        environ["wsgi.input"] = _Failing(exc)
        return None
    environ["wsgi.input"] = io.BytesIO(data)
    return data


class _Failing(io.RawIOBase):
    """A body stream whose reads fail as the first one did."""

    def __init__(self, exc: Exception):
        super().__init__()
        self._exc = exc

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        raise self._exc
