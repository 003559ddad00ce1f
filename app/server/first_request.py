"""Something a serving process starts at its first request: for the exporters' runner under a
bare `gunicorn wsgi:app`, where no worker hook of ours runs (`sqlregistry serve` and the deploy
config start it from gunicorn's `post_worker_init`, app/server/serving.py).

At the first request, not when the app is built: a gunicorn master that preloads the app
(`--preload`) builds it before forking, and a thread started there would not survive in the
workers (and the fork server of the tests refuses a preload that starts one). Only a process
that serves requests reaches this; each request afterwards costs one attribute read.
"""
from __future__ import annotations

import threading
from collections.abc import Callable, Iterable
from typing import Any

WsgiApp = Callable[[dict[str, Any], Callable[..., Any]], Iterable[bytes]]


class StartOnFirstRequest:
    def __init__(self, wsgi_app: WsgiApp, start: Callable[[], object]) -> None:
        self.wsgi_app = wsgi_app
        self._start = start
        self._started = False
        self._lock = threading.Lock()

    def __call__(self, environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
        if not self._started:
            with self._lock:
                if not self._started:
                    self._started = True
                    self._start()
        return self.wsgi_app(environ, start_response)
