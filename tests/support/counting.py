"""The real registry app served in-process by werkzeug in a thread, behind a WSGI
middleware that records every request, so a test can count what the server saw while the
client under test still speaks real HTTP (tests/client and tests/pipeline use it)."""
from __future__ import annotations

import threading
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from werkzeug.serving import make_server


@dataclass
class CountingMiddleware:
    """Records (method, path with query) of every request before the app sees it."""

    app: Callable[..., Any]
    requests: list[tuple[str, str]] = field(default_factory=list)
    # The Authorization header of each request (None: none), in the order of `requests`.
    authorizations: list[str | None] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def __call__(self, environ: dict[str, Any], start_response: Callable[..., Any]) -> Any:
        target = environ.get("RAW_URI") or environ.get("REQUEST_URI") or environ.get("PATH_INFO", "")
        with self.lock:
            self.requests.append((environ["REQUEST_METHOD"], target))
            self.authorizations.append(environ.get("HTTP_AUTHORIZATION"))
        return self.app(environ, start_response)

    def counts(self) -> Counter[tuple[str, str]]:
        with self.lock:
            return Counter(self.requests)

    def reset(self) -> None:
        with self.lock:
            self.requests.clear()
            self.authorizations.clear()


@dataclass
class CountingRegistry:
    url: str
    middleware: CountingMiddleware

    @property
    def requests(self) -> list[tuple[str, str]]:
        with self.middleware.lock:
            return list(self.middleware.requests)

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
