"""Fixtures for the web UI tests: a registry with the demo data, a client that reads pages as
trees and posts forms with their CSRF token, and apps with restricting authorizers."""
from __future__ import annotations

import sys
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest
from flask import Flask
from flask.testing import FlaskClient

sys.path.insert(0, str(Path(__file__).resolve().parent))

from html_tree import Element, parse  # noqa: E402

import demo_data  # noqa: E402
from app.core.access import Action, Principal  # noqa: E402
from app.core.errors import Forbidden  # noqa: E402
from app.factory import create_app  # noqa: E402
from app.settings import Settings  # noqa: E402
from app.wiring import build_registry  # noqa: E402

CSRF_COOKIE = "sqlregistry_ui_csrf"


def enc(subject: str) -> str:
    return quote(subject, safe="")


class Page:
    def __init__(self, response: Any) -> None:
        self.status = response.status_code
        self.headers = response.headers
        self.body = response.get_data().decode("utf-8", "replace")
        self.response = response
        self._tree: Element | None = None

    @property
    def tree(self) -> Element:
        if self._tree is None:
            self._tree = parse(self.body)
        return self._tree

    @property
    def title(self) -> str:
        found = self.tree.find("title")
        return found.text if found else ""

    @property
    def main(self) -> Element:
        mains = self.tree.find_all("main")
        assert len(mains) == 1, f"expected one <main>, found {len(mains)}"
        return mains[0]

    def __repr__(self) -> str:
        return f"<Page {self.status} {self.title!r}>"


class Ui:
    """The Flask test client, reading pages and posting forms as a browser would."""

    def __init__(self, client: FlaskClient) -> None:
        self.client = client

    def get(self, path: str, **params: Any) -> Page:
        return Page(self.client.get(path, query_string=params or None))

    def token(self) -> str:
        """The CSRF token the browser holds (a first page sets it)."""
        cookie = self.client.get_cookie(CSRF_COOKIE, path="/ui")
        if cookie is None:
            self.client.get("/ui/")
            cookie = self.client.get_cookie(CSRF_COOKIE, path="/ui")
        assert cookie is not None
        return cookie.value

    def post(self, path: str, data: dict[str, Any] | None = None, *, csrf: bool = True) -> Page:
        form = dict(data or {})
        if csrf:
            form["csrf_token"] = self.token()
        return Page(self.client.post(path, data=form))


@pytest.fixture
def ui(client: FlaskClient) -> Ui:
    return Ui(client)


@pytest.fixture
def demo(service) -> None:
    demo_data.load(service)


# ------------------------------------------------------------------ restricting authorizers
class DenyWrites:
    """Reads allowed, every write refused."""

    def check(self, principal: Principal, action: Action, subject: str) -> None:
        if action not in (Action.READ, Action.READ_CONFIG):
            raise Forbidden.for_action(action.value, subject)

    def filter(self, principal: Principal, subjects: Iterable[str]) -> list[str]:
        return list(subjects)


class HideSubject:
    """Everything allowed except anything about one subject, which is unreadable."""

    def __init__(self, hidden: str) -> None:
        self.hidden = hidden

    def check(self, principal: Principal, action: Action, subject: str) -> None:
        if subject == self.hidden:
            raise Forbidden.for_action(action.value, subject)

    def filter(self, principal: Principal, subjects: Iterable[str]) -> list[str]:
        return [s for s in subjects if s != self.hidden]


@pytest.fixture
def app_with(database_url: str) -> Iterator[Callable[..., Flask]]:
    """An app over the test's database with the given authorizer and settings overrides;
    the demo data is loaded first with everything allowed."""
    made: list[Flask] = []
    base = Settings(database_url=database_url, metrics=False)
    loader = build_registry(base)
    demo_data.load(loader)
    loader.storage.close()

    def make(authorizer: Any = None, **overrides: Any) -> Flask:
        settings = base.with_overrides(**overrides)
        app = create_app(settings, registry=build_registry(settings, authorizer=authorizer))
        made.append(app)
        return app

    yield make
    for app in made:
        app.extensions["registry"].storage.close()
