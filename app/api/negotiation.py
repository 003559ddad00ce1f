"""Media types in and out, checked before any API handler runs.

Confluent's resources produce three JSON media types with server-side qualities 1.0, 0.9
and 0.5, and consume those three plus `application/octet-stream` (what a request without
a content type amounts to). The checks run in the order JAX-RS applies them: an unknown
path or method is reported first (by routing, before this hook), then an unsupported
request content type (415), then an unsatisfiable `Accept` (406); only then may path
parameters be judged or a handler read the body or touch state.

`Accept` is read the way Jersey reads it: a range without a subtype (`*`, or the bare `*`
that Java's HttpURLConnection sends) means `<type>/*`, and a wildcard type matches every
media type whatever its subtype (`*/anything` is `*/*`).
"""
from __future__ import annotations

from functools import lru_cache
from typing import NamedTuple

from flask import g, request

from app.core.errors import NotAcceptable, UnsupportedMediaType

V1_JSON = "application/vnd.schemaregistry.v1+json"
REGISTRY_JSON = "application/vnd.schemaregistry+json"
PLAIN_JSON = "application/json"
OCTET_STREAM = "application/octet-stream"

# (media type, server quality) in order of preference.
_PRODUCED = ((V1_JSON, 1.0), (REGISTRY_JSON, 0.9), (PLAIN_JSON, 0.5))
_CONSUMED = (V1_JSON, REGISTRY_JSON, PLAIN_JSON, OCTET_STREAM)
_CONSUMED_SET = frozenset(_CONSUMED)
_BODY_METHODS = frozenset({"POST", "PUT"})


def _listing(media_types: tuple[str, ...]) -> str:
    return ", ".join(media_types[:-1]) + " or " + media_types[-1]


_UNSUPPORTED = f"HTTP 415 Unsupported Media Type: send the body as {_listing(_CONSUMED)}"
_NOT_ACCEPTABLE = (
    "HTTP 406 Not Acceptable: replies are "
    f"{_listing(tuple(media_type for media_type, _ in _PRODUCED))}"
)


class AcceptRange(NamedTuple):
    main: str
    sub: str
    quality: float


def _parse_accept(header: str) -> list[AcceptRange]:
    """`Accept` ranges; parameters other than `q` are ignored, a missing subtype is `*`."""
    ranges = []
    for item in header.split(","):
        media, *params = item.split(";")
        main, _, sub = media.strip().lower().partition("/")
        if not main:
            continue
        quality = 1.0
        for param in params:
            key, _, value = param.partition("=")
            if key.strip().lower() == "q":
                try:
                    quality = max(0.0, min(1.0, float(value.strip())))
                except ValueError:
                    quality = 0.0
        ranges.append(AcceptRange(main, sub.strip() or "*", quality))
    return ranges


def _specificity(accepted: AcceptRange, main: str, sub: str) -> int:
    """How closely a range matches `main/sub`: 2 exactly, 1 by subtype wildcard, 0 by type
    wildcard, -1 not at all."""
    if accepted.main == "*":
        return 0
    if accepted.main != main:
        return -1
    if accepted.sub == sub:
        return 2
    return 1 if accepted.sub == "*" else -1


def _client_quality(ranges: list[AcceptRange], media_type: str) -> float:
    """The q of the most specific range matching `media_type` (0 when none matches)."""
    main, _, sub = media_type.partition("/")
    best_specificity, quality = -1, 0.0
    for accepted in ranges:
        specificity = _specificity(accepted, main, sub)
        if specificity > best_specificity:
            best_specificity, quality = specificity, accepted.quality
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


@lru_cache(maxsize=128)
def prefers_html(accept: str | None) -> bool:
    """Whether the caller asks for a page before JSON, as a browser does (`text/html` named,
    `*/*` at a lower q); API clients (no Accept, `*/*`, a JSON type) never do."""
    if not accept:
        return False
    ranges = _parse_accept(accept)
    html = _client_quality(ranges, "text/html")
    return html > 0 and all(html > _client_quality(ranges, media_type) for media_type, _ in _PRODUCED)


def reply_media_type() -> str:
    """The type replies of this request are labelled with (errors included).

    Set by `check_media_types` for API endpoints; a request no API endpoint matched (a
    routing 404 or 405) is labelled from its `Accept` all the same.
    """
    reply_type = g.get("reply_type")
    if reply_type is None:
        reply_type = g.reply_type = negotiate(request.environ.get("HTTP_ACCEPT")) or V1_JSON
    return reply_type


def consumed(mimetype: str) -> bool:
    """Whether the API reads a request body of this media type (lower-cased, parameters such
    as charset dropped); a body sent without one is read as JSON."""
    return not mimetype or mimetype in _CONSUMED_SET


def check_media_types() -> None:
    """The API's `before_request` hook: 415, then 406 (see the module docstring)."""
    req = request._get_current_object()  # type: ignore[attr-defined]  # one proxy lookup, not five
    media_type = negotiate(req.environ.get("HTTP_ACCEPT"))
    g.reply_type = media_type or V1_JSON
    if req.method in _BODY_METHODS and not consumed(req.mimetype):
        raise UnsupportedMediaType(_UNSUPPORTED)
    if media_type is None:
        raise NotAcceptable(_NOT_ACCEPTABLE)
