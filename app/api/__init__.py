"""The HTTP layer: parse, validate, call one `RegistryService` method, shape the reply.

`register_api(app)` wires everything onto the Flask app the factory built: raw-path routing
(so `%2F` inside a subject survives), trailing slashes without redirects, and one parent
`api` blueprint holding the area blueprints. The API's media type checks (415/406), its
path parameter checks and its JSON error handlers belong to that blueprint, so other parts
of the site (an HTML UI answering forms, a `text/plain` metrics endpoint) are not subject
to them; one app-level handler still answers JSON for API paths no endpoint matched
(see errors.py).
"""
from __future__ import annotations

from flask import Blueprint, Flask

from app.api import (
    associations,
    audit,
    compatibility,
    config,
    contexts,
    dek_registry,
    exporters,
    impact,
    mode,
    policies,
    schemas,
    server,
    subjects,
    tags,
)
from app.api.authorization import API_BLUEPRINT, authorize_request
from app.api.errors import json_error, refusal_before_routing, unrouted_error
from app.api.hot_reads import HotReads
from app.api.limits import RequestSizeLimit
from app.api.negotiation import check_media_types
from app.api.paths import RawPathMiddleware, SegmentConverter, SubjectConverter
from app.api.requests import check_parameters

_AREAS = (
    server.bp, schemas.bp, subjects.bp, tags.bp, compatibility.bp, config.bp, mode.bp, contexts.bp, audit.bp, policies.bp,
    dek_registry.bp,
    exporters.bp,
    associations.bp,
    impact.bp,
)


def api_blueprint() -> Blueprint:
    """The parent of every API blueprint; its hooks run in Jersey's order: media types, then
    parameters, then (the caller authenticated by an app-level hook before all of them) the
    authorization table."""
    api = Blueprint(API_BLUEPRINT, __name__)
    api.before_request(check_media_types)
    api.before_request(check_parameters)
    api.before_request(authorize_request)
    api.register_error_handler(Exception, json_error)
    for area in _AREAS:
        api.register_blueprint(area)
    return api


def register_api(app: Flask) -> None:
    url_map = app.url_map
    # Rules take these defaults when they are added, so set them before any blueprint.
    url_map.strict_slashes = False  # a 308 redirect would break the Java client's POST to `.../versions/`
    url_map.merge_slashes = False
    url_map.converters["segment"] = SegmentConverter
    url_map.converters["subject"] = SubjectConverter
    # An oversized body is refused before Flask looks at the request; the path is rewritten
    # before that, so that the refusal's audit row knows the endpoint. (Authentication,
    # installed later, goes in front of both.) Innermost, the plain hot reads are answered
    # without Flask (hot_reads.py).
    refuse = refusal_before_routing(app)
    app.wsgi_app = HotReads(app.wsgi_app, app)  # type: ignore[method-assign]
    app.wsgi_app = RequestSizeLimit(  # type: ignore[method-assign]
        app.wsgi_app, app.config["REGISTRY_SETTINGS"].max_request_bytes, refuse
    )
    app.wsgi_app = RawPathMiddleware(app.wsgi_app, refuse)  # type: ignore[method-assign]

    app.register_error_handler(Exception, unrouted_error)
    app.register_blueprint(api_blueprint())
