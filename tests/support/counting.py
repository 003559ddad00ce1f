"""The real registry app served in-process by werkzeug in a thread, behind a WSGI
middleware that records every request, so a test can count what the server saw while the
client under test still speaks real HTTP (tests/client and tests/pipeline use it).

With `identify_senders` set, each request also records which process sent it: the one among
this process and its descendants (Spark's JVM, its Python workers) that holds the client end
of the connection, found through /proc while the request is being served. So a test can tell
the driver's fetch (this process) from an executor's (the JVM) or a Python worker's."""
from __future__ import annotations

import os
import threading
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from werkzeug.serving import make_server


@dataclass(frozen=True)
class Sent:
    """One request as the server saw it, with the process that sent it (None: not found)."""

    method: str
    target: str
    pid: int | None
    user_agent: str | None


def _descendants_and_self() -> list[int]:
    parents: dict[int, int] = {}
    for proc in Path("/proc").iterdir():
        if proc.name.isdigit():
            try:
                parents[int(proc.name)] = int((proc / "stat").read_text().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
    found, frontier = [os.getpid()], [os.getpid()]
    while frontier:
        frontier = [pid for pid, parent in parents.items() if parent in frontier]
        found += frontier
    return found


def _client_inode(client_port: int, server_port: int) -> int | None:
    """The socket inode of the connection's client end (its local port is `client_port`)."""
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            lines = Path(table).read_text().splitlines()[1:]
        except OSError:
            continue
        for line in lines:
            fields = line.split()
            if (int(fields[1].rsplit(":", 1)[1], 16), int(fields[2].rsplit(":", 1)[1], 16)) == (
                    client_port, server_port):
                return int(fields[9])
    return None


def sender_pid(client_port: int, server_port: int) -> int | None:
    """The process (this one or a descendant) holding the client end of a local connection."""
    inode = _client_inode(client_port, server_port)
    if inode is None:
        return None
    link = f"socket:[{inode}]"
    for pid in _descendants_and_self():
        try:
            fds = os.listdir(f"/proc/{pid}/fd")
        except OSError:
            continue
        for fd in fds:
            try:
                if os.readlink(f"/proc/{pid}/fd/{fd}") == link:
                    return pid
            except OSError:
                continue
    return None


@dataclass
class CountingMiddleware:
    """Records (method, path with query) of every request before the app sees it."""

    app: Callable[..., Any]
    requests: list[tuple[str, str]] = field(default_factory=list)
    # The Authorization header of each request (None: none), in the order of `requests`.
    authorizations: list[str | None] = field(default_factory=list)
    # With identify_senders: each request with its sender, in the order of `requests`.
    sent: list[Sent] = field(default_factory=list)
    identify_senders: bool = False
    lock: threading.Lock = field(default_factory=threading.Lock)

    def __call__(self, environ: dict[str, Any], start_response: Callable[..., Any]) -> Any:
        target = environ.get("RAW_URI") or environ.get("REQUEST_URI") or environ.get("PATH_INFO", "")
        pid = None
        if self.identify_senders:
            pid = sender_pid(int(environ["REMOTE_PORT"]), int(environ["SERVER_PORT"]))
        with self.lock:
            self.requests.append((environ["REQUEST_METHOD"], target))
            self.authorizations.append(environ.get("HTTP_AUTHORIZATION"))
            if self.identify_senders:
                self.sent.append(Sent(environ["REQUEST_METHOD"], target, pid, environ.get("HTTP_USER_AGENT")))
        return self.app(environ, start_response)

    def counts(self) -> Counter[tuple[str, str]]:
        with self.lock:
            return Counter(self.requests)

    def reset(self) -> None:
        with self.lock:
            self.requests.clear()
            self.authorizations.clear()
            self.sent.clear()


@dataclass
class CountingRegistry:
    url: str
    middleware: CountingMiddleware

    @property
    def requests(self) -> list[tuple[str, str]]:
        with self.middleware.lock:
            return list(self.middleware.requests)

    def identify_senders(self) -> None:
        """From now on, record which process sent each request (`sent`)."""
        self.middleware.identify_senders = True

    @property
    def sent(self) -> list[Sent]:
        with self.middleware.lock:
            return list(self.middleware.sent)

    def authorizations_of(self, prefix: str) -> list[str | None]:
        """The Authorization header of every request whose path starts with `prefix`."""
        with self.middleware.lock:
            return [header for (_, target), header in zip(self.middleware.requests, self.middleware.authorizations)
                    if target.startswith(prefix)]


@contextmanager
def counting_server(app: Any) -> Iterator[CountingRegistry]:
    middleware = CountingMiddleware(app.wsgi_app)
    server = make_server("127.0.0.1", 0, middleware, threaded=True)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, name="counting-registry",
                              daemon=True)
    thread.start()
    try:
        yield CountingRegistry(f"http://127.0.0.1:{server.server_port}", middleware)
    finally:
        server.shutdown()
        thread.join(timeout=10)
        server.server_close()
