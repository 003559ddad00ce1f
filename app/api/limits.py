"""Request bodies the server refuses before reading them, or before parsing them.

* Size: a body larger than `REGISTRY_MAX_REQUEST_BYTES` gets 413, decided from
  `Content-Length` before a byte is read. A chunked body has no length: it is read up to one
  byte past the limit and refused there, so no upload, however long, is held in memory.
  This is WSGI middleware, in front of every route (the health probes and metrics too),
  behind authentication; a refused write is recorded in the audit trail (errors.py).
* Nesting: a JSON body nested deeper than `MAX_BODY_DEPTH` levels is 400 before the JSON
  decoder, which recurses per level, sees it. No request the API defines nests more than
  five levels (a rule set's rule's params); the schema inside a body is a string, bounded
  on its own (app/core/limits.py).
"""
from __future__ import annotations

import io
import re
from collections.abc import Callable, Iterable
from typing import Any

from app.api.paths import Refuse, error_only
from app.core.errors import BadRequest, PayloadTooLarge

MAX_BODY_DEPTH = 64

_TOKENS = re.compile(rb'"(?:[^"\\]|\\.)*(?:"|\Z)|[\[\]{}]', re.DOTALL)

WSGIApp = Callable[[dict[str, Any], Callable[..., Any]], Iterable[bytes]]


def check_body_depth(data: bytes) -> None:
    """400 for a JSON body whose arrays and objects nest deeper than `MAX_BODY_DEPTH`."""
    if data.count(b"[") + data.count(b"{") <= MAX_BODY_DEPTH:
        return
    depth = 0
    for match in _TOKENS.finditer(data):
        token = match.group()
        if token in (b"[", b"{"):
            depth += 1
            if depth > MAX_BODY_DEPTH:
                raise BadRequest(f"Request body is nested more than {MAX_BODY_DEPTH} levels deep")
        elif token in (b"]", b"}"):
            depth -= 1


class RequestSizeLimit:
    """WSGI middleware: 413 for a body over `limit` bytes (see the module docstring)."""

    def __init__(self, wsgi_app: WSGIApp, limit: int, refuse: Refuse = error_only) -> None:
        self.wsgi_app = wsgi_app
        self.limit = limit
        self.refuse = refuse

    def __call__(self, environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
        declared = environ.get("CONTENT_LENGTH")
        if declared:
            try:
                size = int(declared)
            except ValueError:
                size = 0  # the server's parser refuses such a header; Werkzeug would read nothing
            if size > self.limit:
                return self.refuse(environ, start_response, PayloadTooLarge.for_size(size, self.limit))
        elif "chunked" in environ.get("HTTP_TRANSFER_ENCODING", "").lower():
            try:
                data = environ["wsgi.input"].read(self.limit + 1)
            except Exception as exc:  # noqa: BLE001 - the server's chunk parser refuses the framing
                error = BadRequest(f"The request body could not be read: {exc}")
                return self.refuse(environ, start_response, error)
            if len(data) > self.limit:
                return self.refuse(environ, start_response, PayloadTooLarge.for_size(len(data), self.limit))
            # The rest of the stack reads a body of known length, as if it had been sent so.
            environ["wsgi.input"] = io.BytesIO(data)
            environ["CONTENT_LENGTH"] = str(len(data))
        return self.wsgi_app(environ, start_response)
