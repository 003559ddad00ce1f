"""The HTTP layer: parse, validate, call one `RegistryService` method, shape the reply.

`register_api(app)` wires everything onto the Flask app the factory built: raw-path routing
(so `%2F` inside a subject survives), trailing slashes without redirects, media type
checks, the blueprints and the error handlers that keep every failure in Confluent's
`{"error_code", "message"}` form.
"""
from __future__ import annotations

from flask import Flask

from app.api import (
    compatibility,
    config,
    contexts,
    mode,
    schemas,
    server,
    subjects,
    tags,
)
from app.api.errors import register_error_handlers
from app.api.negotiation import check_request
from app.api.paths import RawPathMiddleware, SchemaIdConverter, SegmentConverter


def register_api(app: Flask) -> None:
    url_map = app.url_map
    # Rules take these defaults when they are added, so set them before any blueprint.
    url_map.strict_slashes = False  # a 308 redirect would break the Java client's POST to `.../versions/`
    url_map.merge_slashes = False
    url_map.converters["segment"] = SegmentConverter
    url_map.converters["schema_id"] = SchemaIdConverter
    app.wsgi_app = RawPathMiddleware(app.wsgi_app)  # type: ignore[method-assign]

    app.before_request(check_request)
    register_error_handlers(app)
    for blueprint in (
        server.bp, schemas.bp, subjects.bp, tags.bp, compatibility.bp, config.bp, mode.bp, contexts.bp
    ):
        app.register_blueprint(blueprint)
