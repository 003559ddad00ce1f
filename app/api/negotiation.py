"""Media types in and out (spec §1.1), checked before any handler runs.

Confluent's resources produce three JSON media types with server-side qualities 1.0, 0.9
and 0.5, and consume those three plus `application/octet-stream` (what a request without
a content type amounts to). The checks run in the order JAX-RS applies them: an unknown
path or method is reported first, then an unsupported request content type (415), then an
unsatisfiable `Accept` (406); only then may a handler read the body or touch state.
"""
from __future__ import annotations

from functools import lru_cache

from flask import g, request

from app.api.paths import CONTEXT_ERROR_KEY
from app.core.errors import BadRequest, NotAcceptable, UnsupportedMediaType

V1_JSON = "application/vnd.schemaregistry.v1+json"
REGISTRY_JSON = "application/vnd.schemaregistry+json"
PLAIN_JSON = "application/json"
OCTET_STREAM = "application/octet-stream"

# (media type, server quality) in order of preference.
_PRODUCED = ((V1_JSON, 1.0), (REGISTRY_JSON, 0.9), (PLAIN_JSON, 0.5))
_CONSUMED = frozenset({V1_JSON, REGISTRY_JSON, PLAIN_JSON, OCTET_STREAM})
_BODY_METHODS = frozenset({"POST", "PUT"})


def _parse_accept(header: str) -> list[tuple[str, str, float]]:
    """`Accept` ranges as (type, subtype, q); parameters other than `q` are ignored."""
    ranges = []
    for item in header.split(","):
        media, *params = item.split(";")
        main, _, sub = media.strip().lower().partition("/")
        if not main or not sub:
            continue
        quality = 1.0
        for param in params:
            key, _, value = param.partition("=")
            if key.strip().lower() == "q":
                try:
                    quality = max(0.0, min(1.0, float(value.strip())))
                except ValueError:
                    quality = 0.0
        ranges.append((main, sub, quality))
    return ranges


def _client_quality(ranges: list[tuple[str, str, float]], media_type: str) -> float:
    """The q of the most specific range matching `media_type` (0 when none matches)."""
    main, _, sub = media_type.partition("/")
    best_specificity, quality = -1, 0.0
    for r_main, r_sub, r_quality in ranges:
        if r_main == main and r_sub == sub:
            specificity = 2
        elif r_main == main and r_sub == "*":
            specificity = 1
        elif r_main == "*" and r_sub == "*":
            specificity = 0
        else:
            continue
        if specificity > best_specificity:
            best_specificity, quality = specificity, r_quality
    return quality


@lru_cache(maxsize=512)
def negotiate(accept: str | None) -> str | None:
    """The reply media type for an `Accept` header, or None when none is acceptable.

    Cached per header value: clients send the same few headers on every request.
    """
    if accept is None or not accept.strip():
        return V1_JSON
    ranges = _parse_accept(accept)
    best, best_score = None, 0.0
    for media_type, server_quality in _PRODUCED:
        score = _client_quality(ranges, media_type) * server_quality
        if score > best_score:
            best, best_score = media_type, score
    return best


def reply_media_type() -> str:
    """The type replies of this request are labelled with (errors included)."""
    return g.get("reply_type", V1_JSON)


def check_request() -> None:
    """`before_request` hook: context URL errors, then 415, then 406 (see module docstring)."""
    req = request._get_current_object()  # type: ignore[attr-defined]  # one proxy lookup, not five
    environ = req.environ
    context_error = environ.get(CONTEXT_ERROR_KEY)
    if context_error:
        raise BadRequest(context_error)
    media_type = negotiate(environ.get("HTTP_ACCEPT"))
    g.reply_type = media_type or V1_JSON
    if req.routing_exception is not None:
        return  # Flask raises it next: 404 / 405 win over media type problems
    if req.method in _BODY_METHODS:
        content_type = req.mimetype  # lower-cased, parameters (charset) dropped
        if content_type and content_type not in _CONSUMED:
            raise UnsupportedMediaType("HTTP 415 Unsupported Media Type")
    if media_type is None:
        raise NotAcceptable("HTTP 406 Not Acceptable")
