"""For the authorization tests: an app whose service authorizes with the auth file's grants
(`GrantAuthorizer`), and a test client that names its caller.

Authentication is not what these tests are about: a test-only WSGI middleware puts the
principal named by the `X-Test-Caller` header in the environ, exactly where authentication
leaves it, so the authorization table, the handlers and the core are the real ones."""
from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from flask import Flask

from app.core.access import Principal
from app.core.registry import RegistryService
from app.server.factory import create_app
from app.security.authorizer import GrantAuthorizer
from app.security.caller import set_principal
from app.security.records import AuthFile
from app.settings import Settings
from app.wiring import build_registry
from support.grants import ANONYMOUS_CALLER, auth_file, grant, user

V1_JSON = "application/vnd.schemaregistry.v1+json"

# Roles on the `payments.` subjects of the default and `.staging` contexts, one caller per
# rung, plus a caller with no grant, one that administers every subject (but not the
# server), and the server's administrator.
CALLERS: dict[str, Principal] = {
    "nobody": user("nobody"),
    "reader": user("reader"),
    "writer": user("writer", "publishers"),
    "owner": user("owner"),
    "everywhere": user("everywhere"),
    "ops": user("ops"),
    "anonymous": ANONYMOUS_CALLER,
}
TABLE_FILE = auth_file(
    grant("user:ops", "admin", scope="global"),
    grant("user:reader", "read", "prefix:payments.", contexts=(".", ".staging")),
    grant("group:publishers", "write", "prefix:payments.", contexts=(".", ".staging")),
    grant("user:owner", "admin", "prefix:payments.", contexts=(".", ".staging")),
    grant("user:everywhere", "admin", "*", contexts=("*",)),
)


class Reply:
    def __init__(self, response: Any) -> None:
        self.status = response.status_code
        self.raw = response.get_data()
        self.content_type = response.headers.get("Content-Type")
        try:
            self.json = json.loads(self.raw) if self.raw else None
        except ValueError:
            self.json = None

    def __repr__(self) -> str:
        return f"<Reply {self.status} {self.raw[:300]!r}>"


class Caller:
    """Requests made as one caller."""

    def __init__(self, app: Flask, name: str) -> None:
        self.client = app.test_client()
        self.name = name

    def call(self, method: str, path: str, body: Any = None, query: str = "") -> Reply:
        headers = {"X-Test-Caller": self.name}
        data = None
        if body is not None:
            data, headers["Content-Type"] = json.dumps(body), V1_JSON
        target = f"{path}?{query}" if query else path
        return Reply(self.client.open(target, method=method, data=data, headers=headers))

    def get(self, path: str, query: str = "") -> Reply:
        return self.call("GET", path, query=query)


class GuardedRegistry:
    """The app, its service, and callers by name."""

    def __init__(self, app: Flask) -> None:
        self.app = app
        self.service: RegistryService = app.extensions["registry"]

    def as_(self, name: str) -> Caller:
        return Caller(self.app, name)


def guarded_app(settings: Settings, current: Callable[[], AuthFile | None]) -> Flask:
    """`current` returns the file in force, as authentication's watcher does."""
    app = create_app(settings, registry=build_registry(settings, authorizer=GrantAuthorizer(current)))

    inner = app.wsgi_app

    def name_the_caller(environ, start_response):  # what authentication does, minus the credentials
        name = environ.get("HTTP_X_TEST_CALLER")
        if name is not None:
            set_principal(environ, CALLERS[name])
        return inner(environ, start_response)

    app.wsgi_app = name_the_caller  # in front of everything, as the authentication gate is
    return app
