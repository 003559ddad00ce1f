"""`GET /openapi.json` (extension, open without credentials): the OpenAPI 3.1.0 contract of
every route, built from the operation table once per process and served as the same bytes.

Outside the API blueprint, like the health probes: it answers plain `application/json`
whatever `Accept` says, so tools that ask for `application/json` only (or nothing) get it.
"""
from __future__ import annotations

import json
from functools import cache

from flask import Blueprint, Response

bp = Blueprint("openapi", __name__)


@cache
def document_bytes() -> bytes:
    """The document never changes while the process runs: encode it once."""
    from app.api.openapi.document import build_document  # the operation table: off a worker's start

    return json.dumps(build_document(), separators=(",", ":")).encode("utf-8")


@bp.get("/openapi.json")
def openapi_document() -> Response:
    return Response(document_bytes(), mimetype="application/json")
