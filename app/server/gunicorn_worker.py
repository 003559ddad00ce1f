"""The gunicorn worker for the registry: gthread, with error replies in Confluent's JSON.

Requests gunicorn itself refuses before the application sees them (a request line over the
limit, bytes that are not HTTP, a malformed header, a bad chunk) get an HTML page from
gunicorn's `handle_error`. Clients of a schema registry parse every reply as
`{"error_code": ..., "message": ...}`, so this worker keeps gunicorn's decision (status,
reason, logging, access log) and only replaces the page it writes.
"""
from __future__ import annotations

import json
import re
import socket
from typing import Any

from gunicorn import util
from gunicorn.http.errors import ParseException
from gunicorn.workers.gthread import ThreadWorker

MEDIA_TYPE = "application/vnd.schemaregistry.v1+json"
_STATUS_LINE = re.compile(rb"HTTP/1\.[01] (\d{3}) ([^\r\n]*)")


class _PageCatcher:
    """Takes the place of the client socket while gunicorn writes its HTML error page, so the
    status gunicorn chose can be read from it and nothing reaches the client."""

    def __init__(self) -> None:
        self.written = bytearray()

    def gettimeout(self) -> float | None:
        return None

    def setblocking(self, flag: bool) -> None:
        pass

    def sendall(self, data: bytes) -> None:
        self.written += data

    def send(self, data: bytes) -> int:
        self.written += data
        return len(data)

    def status(self) -> tuple[int, str] | None:
        match = _STATUS_LINE.match(bytes(self.written))
        return (int(match.group(1)), match.group(2).decode("latin-1")) if match else None


def error_reply(status: int, reason: str, message: str) -> bytes:
    """A complete HTTP reply carrying Confluent's error body; the connection closes after it,
    as after any request gunicorn could not parse."""
    body = json.dumps({"error_code": status, "message": message}).encode()
    head = (
        f"HTTP/1.1 {status} {reason}\r\n"
        "Connection: close\r\n"
        f"Content-Type: {MEDIA_TYPE}\r\n"
        f"Content-Length: {len(body)}\r\n\r\n"
    )
    return head.encode("latin-1") + body


class JsonErrorWorker(ThreadWorker):
    """gunicorn's gthread worker whose error replies are Confluent JSON instead of HTML."""

    def handle_error(self, req: Any, client: socket.socket, addr: Any, exc: BaseException) -> None:
        catcher = _PageCatcher()
        super().handle_error(req, catcher, addr, exc)
        status, reason = catcher.status() or (
            (400, "Bad Request") if isinstance(exc, ParseException) else (500, "Internal Server Error")
        )
        # A client error names what was wrong with the request; a server error names nothing
        # of the server's internals.
        message = f"{reason}: {exc}" if status < 500 and str(exc) else reason
        try:
            util.write_nonblock(client, error_reply(status, reason, message))
        except OSError:
            self.log.debug("Failed to send error message.")
