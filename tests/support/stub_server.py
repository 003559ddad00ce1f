"""A tiny stdlib HTTP server with a scripted reply per request (status, body, delay), for what
a healthy registry never does: 503s, hangs. It stands in for a failing network peer, not for
our storage (tests/client/conftest.py's `stub_server` fixture)."""
from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass
class Scripted:
    """One scripted reply: HTTP status, JSON body, seconds to wait before answering; or, with
    `stream`, a reply streamed as `stream` repeated until `stream_bytes` are sent (None: for
    ever, until the client goes), its end the connection's close unless `declared` gives
    the Content-Length to announce. `hold`: an event the reply waits for (a target that does
    not answer until the test lets it)."""

    status: int = 200
    body: Any = field(default_factory=dict)
    delay: float = 0.0
    stream: bytes = b""
    stream_bytes: int | None = None
    declared: int | None = None
    hold: threading.Event | None = None


@dataclass
class StubServer:
    url: str
    script: list[Scripted]
    hits: list[tuple[str, str, dict[str, str]]] = field(default_factory=list)
    streamed: int = 0  # bytes of streamed replies sent so far
    connections: set[tuple[str, int]] = field(default_factory=set)
    default: Scripted = field(default_factory=Scripted)

    def next_reply(self) -> Scripted:
        return self.script.pop(0) if self.script else self.default


def start_stub(script: list[Scripted], default: Scripted | None = None) -> tuple[StubServer, ThreadingHTTPServer]:
    """A stub answering requests in the order of `script`, then with `default`, and the HTTP
    server behind it (to shut down)."""
    stub = StubServer("", list(script), default=default or Scripted())
    lock = threading.Lock()

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"  # keep-alive, as a real registry
        disable_nagle_algorithm = True  # headers and body go out as two writes

        def _answer(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            if length:
                self.rfile.read(length)
            with lock:
                stub.hits.append((self.command, self.path, dict(self.headers)))
                stub.connections.add(self.client_address)
                reply = stub.next_reply()
            if reply.delay:
                time.sleep(reply.delay)
            if reply.hold is not None:
                reply.hold.wait()
            if reply.stream:
                self._stream(reply)
                return
            data = json.dumps(reply.body).encode()
            try:
                self.send_response(reply.status)
                self.send_header("Content-Type", "application/vnd.schemaregistry.v1+json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)
            except OSError:
                pass  # the client gave up waiting

        def _stream(self, reply: Scripted) -> None:
            self.close_connection = True
            try:
                self.send_response(reply.status)
                self.send_header("Content-Type", "application/vnd.schemaregistry.v1+json")
                if reply.declared is not None:
                    self.send_header("Content-Length", str(reply.declared))
                self.end_headers()
                while reply.stream_bytes is None or stub.streamed < reply.stream_bytes:
                    self.wfile.write(reply.stream)
                    stub.streamed += len(reply.stream)
            except OSError:
                pass  # the client stopped reading

        do_GET = do_POST = do_PUT = do_DELETE = _answer

        def log_message(self, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()
    stub.url = f"http://127.0.0.1:{server.server_port}"
    return stub, server


@contextmanager
def running_stubs() -> Iterator[Callable[..., StubServer]]:
    """`start(Scripted(503), Scripted(200, {...}), default=...)` starts a stub answering in that
    order, then with `default`; every stub started is shut down when the block ends."""
    servers: list[ThreadingHTTPServer] = []

    def start(*script: Scripted, default: Scripted | None = None) -> StubServer:
        stub, server = start_stub(list(script), default)
        servers.append(server)
        return stub

    try:
        yield start
    finally:
        for server in servers:
            server.shutdown()
            server.server_close()
