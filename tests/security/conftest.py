"""What the security tests share: password hashes made once per session (scrypt is slow on
purpose), auth files written from text, and a registry app built over an auth file.

The in-process tests run on SQLite only: authentication is decided before any storage is
touched, so the database kind changes nothing they look at."""
from __future__ import annotations

import base64
import functools
import hashlib
import sqlite3
import textwrap
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from flask import Flask, jsonify

from app.security.caller import current_principal
from app.security.passwords import hash_password
from support.guarded import TABLE_FILE, GuardedRegistry, guarded_app

# The cheapest accepted cost keeps the suite quick; the default cost is measured in bench/.
TEST_LN = 14


@functools.cache
def hashed(password: str) -> str:
    return hash_password(password, ln=TEST_LN)


def basic(name: str, password: str) -> dict[str, str]:
    return {"Authorization": "Basic " + base64.b64encode(f"{name}:{password}".encode()).decode()}


def write_file(path: Path, text: str) -> Path:
    path.write_text(textwrap.dedent(text))
    return path


USERS = """
[[users]]
name = "alice"
password = "{alice}"
groups = ["payments", "ops"]

[[users]]
name = "bob"
password = "{bob}"

[[users]]
name = "billing-gateway"
groups = ["payments"]
"""


def users_text() -> str:
    return USERS.format(alice=hashed("alice-secret"), bob=hashed("bob-secret"))


class ScryptSpy:
    """Counts hashlib.scrypt calls (each one still runs): whether a request paid for a hash."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.calls = 0
        real = hashlib.scrypt

        def counted(*args, **kwargs):
            self.calls += 1
            return real(*args, **kwargs)

        monkeypatch.setattr(hashlib, "scrypt", counted)

    def take(self) -> int:
        calls, self.calls = self.calls, 0
        return calls


@pytest.fixture
def scrypt_calls(monkeypatch: pytest.MonkeyPatch) -> ScryptSpy:
    return ScryptSpy(monkeypatch)


@pytest.fixture
def sqlite_url(sqlite_template: Path, tmp_path: Path) -> str:
    target = tmp_path / "registry.db"
    source, copy = sqlite3.connect(sqlite_template), sqlite3.connect(target)
    try:
        source.backup(copy)
    finally:
        source.close()
        copy.close()
    return f"sqlite:///{target}"


@pytest.fixture
def auth_app(sqlite_url: str, tmp_path: Path) -> Iterator[Callable[..., Flask]]:
    """`auth_app(text)`: the registry with an auth file of that text (at tmp_path/auth.toml),
    plus `GET /test/whoami`, which answers the principal the request was authenticated as."""
    from app.factory import create_app
    from app.settings import Settings

    built: list[Flask] = []

    def make(text: str, **overrides: object) -> Flask:
        path = write_file(tmp_path / "auth.toml", text)
        settings = Settings(database_url=sqlite_url, auth_file=str(path), **overrides)
        app = create_app(settings)
        app.add_url_rule("/test/whoami", "whoami", whoami)
        built.append(app)
        return app

    yield make
    for app in built:
        app.extensions["registry"].storage.close()


def whoami():
    principal = current_principal()
    return jsonify(name=principal.name, groups=sorted(principal.groups), method=principal.method)


@pytest.fixture
def guarded(settings) -> Iterator[GuardedRegistry]:
    """The registry authorizing with `TABLE_FILE`'s grants, callers named by a header (both
    databases: what a caller sees of lists and ids comes from storage)."""
    app = guarded_app(settings, TABLE_FILE)
    yield GuardedRegistry(app)
    app.extensions["registry"].storage.close()
