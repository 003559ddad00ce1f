"""The UI tests' client (pages read as trees, forms posted with their CSRF token) and the
restricting authorizers the permission tests serve the registry with."""
from __future__ import annotations

from collections.abc import Iterable
from typing import Any
from urllib.parse import quote

from flask.testing import FlaskClient

from app.core.access import Action, Principal
from app.core.errors import Forbidden
from html_tree import Element, parse

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


# ------------------------------------------------------------------ restricting authorizers
class DenyWrites:
    """Reads allowed, every write refused."""

    def check(self, principal: Principal, action: Action, subject: str) -> None:
        if action not in (Action.READ, Action.READ_CONFIG):
            raise Forbidden.for_subject(action.value.capitalize(), subject)

    def filter(self, principal: Principal, subjects: Iterable[str]) -> list[str]:
        return list(subjects)

    def check_context_admin(self, principal: Principal, context: str) -> None:
        raise Forbidden.for_context_admin(context)

    def read_scope(self, principal: Principal) -> None:
        """Everything is readable: reads share the cached replies."""


class HideSubject:
    """Everything allowed except anything about one subject, which is unreadable."""

    def __init__(self, hidden: str) -> None:
        self.hidden = hidden

    def check(self, principal: Principal, action: Action, subject: str) -> None:
        if subject == self.hidden:
            raise Forbidden.for_subject(action.value.capitalize(), subject)

    def filter(self, principal: Principal, subjects: Iterable[str]) -> list[str]:
        return [s for s in subjects if s != self.hidden]

    def check_context_admin(self, principal: Principal, context: str) -> None:
        """Only a subject is hidden: the context stays the caller's."""

    def read_scope(self, principal: Principal) -> Principal:
        return principal
