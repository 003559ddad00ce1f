"""Fixtures for the client tests.

- `counting_registry`: the real registry app (Flask factory, real database on SQLite and on
  PostgreSQL through the shared `app` fixture) served in-process by werkzeug in a thread,
  behind a WSGI middleware that records every request, so tests can count what the server
  saw. The client under test still talks real HTTP to it.
- `stub_server`: a tiny stdlib HTTP server with a scripted reply per request (status,
  body, delay), for what a healthy registry never does: 503s, hangs (support/stub_server.py).
"""
from __future__ import annotations

from typing import Callable, Iterator

import pytest
from support.counting import CountingRegistry, counting_server
from support.stub_server import StubServer, running_stubs


@pytest.fixture
def counting_registry(app) -> Iterator[CountingRegistry]:
    with counting_server(app) as registry:
        yield registry


@pytest.fixture
def stub_server() -> Iterator[Callable[..., StubServer]]:
    """`stub_server(Scripted(503), Scripted(200, {...}), default=...)` starts a server that
    answers requests in that order, then with `default`."""
    with running_stubs() as start:
        yield start
