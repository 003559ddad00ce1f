"""The registry behind test middlewares, served by gunicorn for the transfer tests.

`TRANSFER_TEST_SHAPE=7x` strips what 7.x replies lack (`schemaType` when AVRO, `deleted`,
`ts`, `guid`), so the exporter's 7.x path runs against a live server; `no-max-id` strips only
`maxId`, as from a registry without `fetchMaxId`. `TRANSFER_TEST_WRITE_LOG=FILE` appends one
line per write request (`METHOD PATH?QUERY BODY`) to FILE, so a test sees what was written in
which order. `TRANSFER_TEST_FAIL_TIMES=N` answers 503 to the first N attempts of every GET
(same path and query), logging each refusal to `TRANSFER_TEST_FAILURE_LOG`;
`TRANSFER_TEST_NO_CONTEXTS` answers 404 to `/contexts`, as a registry without contexts;
`TRANSFER_TEST_RENUMBER=K` adds K to the explicit id of every registration, as a registry
that stores imports under ids of its own (the reply tells the truth). `TRANSFER_TEST_PAUSE_AT=N`
holds the N-th write request (any method but GET) until `release` appears in
`TRANSFER_TEST_PAUSE_DIR`, after writing `paused` there: the test kills the importer while
it waits, at a point it chose. `TRANSFER_TEST_AUTHORIZATION=A|B` lets only requests whose
`Authorization` header is A or B through (401 otherwise). Run with one worker so the count is the server's.
"""
from __future__ import annotations

import io
import json
import os
import threading
import time
from pathlib import Path
from typing import Any, Callable, Iterable

from app.server.factory import create_app

_SEVEN_X_DROPPED = ("deleted", "ts", "guid")


def _strip(value: Any) -> Any:
    if isinstance(value, list):
        return [_strip(item) for item in value]
    if isinstance(value, dict):
        out = {k: _strip(v) for k, v in value.items() if k not in _SEVEN_X_DROPPED}
        if out.get("schemaType") == "AVRO":
            del out["schemaType"]
        return out
    return value


class SevenXShapes:
    def __init__(self, app: Callable[..., Iterable[bytes]]) -> None:
        self.app = app

    @staticmethod
    def strip(value: Any) -> Any:
        return _strip(value)

    def __call__(self, environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
        captured: dict[str, Any] = {}

        def capture(status: str, headers: list[tuple[str, str]], exc_info: Any = None) -> None:
            captured["status"], captured["headers"] = status, headers

        body = b"".join(self.app(environ, capture))
        try:
            body = json.dumps(self.strip(json.loads(body))).encode() if body else body
        except ValueError:
            pass
        headers = [(k, v) for k, v in captured["headers"] if k.lower() != "content-length"]
        headers.append(("Content-Length", str(len(body))))
        start_response(captured["status"], headers)
        return [body]


class StripMaxId(SevenXShapes):
    """Replies as from a registry that ignores `fetchMaxId`."""

    @staticmethod
    def strip(value: Any) -> Any:
        return {k: v for k, v in value.items() if k != "maxId"} if isinstance(value, dict) else value


def _is_write(environ: dict[str, Any]) -> bool:
    method, path = environ["REQUEST_METHOD"], environ.get("PATH_INFO", "")
    return method in ("PUT", "DELETE") or (method == "POST" and path.rstrip("/").endswith("/versions"))


class WriteLog:
    def __init__(self, app: Callable[..., Iterable[bytes]], path: Path) -> None:
        self.app, self.path = app, path
        self.lock = threading.Lock()

    def __call__(self, environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
        if _is_write(environ):
            size = int(environ.get("CONTENT_LENGTH") or 0)
            body = environ["wsgi.input"].read(size) if size else b""
            environ["wsgi.input"] = io.BytesIO(body)
            line = f"{environ['REQUEST_METHOD']} {environ.get('PATH_INFO', '')}?{environ.get('QUERY_STRING', '')}"
            with self.lock, self.path.open("a", encoding="utf-8") as log:
                log.write(f"{line} {body.decode('utf-8')}".rstrip() + "\n")
        return self.app(environ, start_response)


class FlakyReads:
    def __init__(self, app: Callable[..., Iterable[bytes]], times: int, log: Path) -> None:
        self.app, self.times, self.log = app, times, log
        self.seen: dict[str, int] = {}
        self.lock = threading.Lock()

    def __call__(self, environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
        key = f"{environ.get('PATH_INFO', '')}?{environ.get('QUERY_STRING', '')}"
        if environ["REQUEST_METHOD"] == "GET" and environ.get("PATH_INFO") != "/":
            with self.lock:
                self.seen[key] = self.seen.get(key, 0) + 1
                refuse = self.seen[key] <= self.times
                if refuse:
                    with self.log.open("a", encoding="utf-8") as out:
                        out.write(key + "\n")
            if refuse:
                return _json_reply(start_response, "503 Service Unavailable", {"error_code": 50301,
                                                                              "message": "try again"})
        return self.app(environ, start_response)


class NoContexts:
    def __init__(self, app: Callable[..., Iterable[bytes]]) -> None:
        self.app = app

    def __call__(self, environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
        if environ.get("PATH_INFO", "").rstrip("/") == "/contexts":
            return _json_reply(start_response, "404 Not Found", {"error_code": 404, "message": "HTTP 404 Not Found"})
        return self.app(environ, start_response)


class Renumber:
    def __init__(self, app: Callable[..., Iterable[bytes]], offset: int) -> None:
        self.app, self.offset = app, offset

    def __call__(self, environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
        if environ["REQUEST_METHOD"] == "POST" and environ.get("PATH_INFO", "").rstrip("/").endswith("/versions"):
            body = json.loads(environ["wsgi.input"].read(int(environ.get("CONTENT_LENGTH") or 0)) or b"{}")
            if isinstance(body.get("id"), int):
                body["id"] += self.offset
            data = json.dumps(body).encode()
            environ["wsgi.input"], environ["CONTENT_LENGTH"] = io.BytesIO(data), str(len(data))
        return self.app(environ, start_response)


def _json_reply(start_response: Callable[..., Any], status: str, document: dict[str, Any]) -> list[bytes]:
    body = json.dumps(document).encode()
    start_response(status, [("Content-Type", "application/json"), ("Content-Length", str(len(body)))])
    return [body]


class PauseAtWrite:
    def __init__(self, app: Callable[..., Iterable[bytes]], at: int, directory: Path) -> None:
        self.app, self.at, self.directory = app, at, directory
        self.count = 0
        self.lock = threading.Lock()

    def __call__(self, environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
        if _is_write(environ):
            with self.lock:
                self.count += 1
                hit = self.count == self.at
            if hit:
                (self.directory / "paused").write_text(str(self.count))
                deadline = time.monotonic() + 60
                while not (self.directory / "release").exists() and time.monotonic() < deadline:
                    time.sleep(0.05)
        return self.app(environ, start_response)


class RequireAuthorization:
    """Answers 401 (Confluent's error JSON) unless the Authorization header is one of the
    allowed values: a stand-in for the security issue's auth file in these tests."""

    def __init__(self, app: Callable[..., Iterable[bytes]], allowed: set[str]) -> None:
        self.app, self.allowed = app, allowed

    def __call__(self, environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
        if environ.get("HTTP_AUTHORIZATION") in self.allowed or environ.get("PATH_INFO") == "/":
            return self.app(environ, start_response)
        return _json_reply(start_response, "401 Unauthorized", {"error_code": 40101, "message": "Unauthorized"})


app: Callable[..., Iterable[bytes]] = create_app()
if os.environ.get("TRANSFER_TEST_SHAPE") == "7x":
    app = SevenXShapes(app)
if os.environ.get("TRANSFER_TEST_SHAPE") == "no-max-id":
    app = StripMaxId(app)
if os.environ.get("TRANSFER_TEST_WRITE_LOG"):
    app = WriteLog(app, Path(os.environ["TRANSFER_TEST_WRITE_LOG"]))
if os.environ.get("TRANSFER_TEST_FAIL_TIMES"):
    app = FlakyReads(app, int(os.environ["TRANSFER_TEST_FAIL_TIMES"]), Path(os.environ["TRANSFER_TEST_FAILURE_LOG"]))
if os.environ.get("TRANSFER_TEST_NO_CONTEXTS"):
    app = NoContexts(app)
if os.environ.get("TRANSFER_TEST_RENUMBER"):
    app = Renumber(app, int(os.environ["TRANSFER_TEST_RENUMBER"]))
if os.environ.get("TRANSFER_TEST_AUTHORIZATION"):
    app = RequireAuthorization(app, set(os.environ["TRANSFER_TEST_AUTHORIZATION"].split("|")))
if os.environ.get("TRANSFER_TEST_PAUSE_AT"):
    app = PauseAtWrite(app, int(os.environ["TRANSFER_TEST_PAUSE_AT"]), Path(os.environ["TRANSFER_TEST_PAUSE_DIR"]))
