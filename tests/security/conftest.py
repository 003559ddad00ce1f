"""Fixtures of the security tests: a scrypt call counter, a registry app built over an auth
file, and one authorizing with grants built in Python (helpers without fixtures live in
auth_support.py and tests/support/guarded.py).

The in-process tests run on SQLite only: authentication is decided before any storage is
touched, so the database kind changes nothing they look at."""
from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from auth_support import write_file
from flask import Flask, jsonify

from app.security.caller import current_principal
from support.guarded import TABLE_FILE, GuardedRegistry, guarded_app


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
def sqlite_url(sqlite_at_head, tmp_path: Path) -> str:
    return sqlite_at_head(tmp_path / "registry.db")


class ReloadClock:
    """What the auth file's watcher reads to space its checks: a test moves it past the check
    interval (`reload_clock.advance()`) instead of sleeping through it."""

    def __init__(self) -> None:
        self.now = 1_000.0

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float = 1.1) -> None:
        self.now += seconds


@pytest.fixture
def reload_clock() -> ReloadClock:
    return ReloadClock()


@pytest.fixture
def auth_app(sqlite_url: str, tmp_path: Path, reload_clock: ReloadClock) -> Iterator[Callable[..., Flask]]:
    """`auth_app(text)`: the registry with an auth file of that text (at tmp_path/auth.toml),
    plus `GET /test/whoami`, which answers the principal the request was authenticated as.
    Its auth file is re-read only when the test moves `reload_clock`."""
    from app.server.factory import create_app
    from app.settings import Settings

    built: list[Flask] = []

    def make(text: str, **overrides: object) -> Flask:
        path = write_file(tmp_path / "auth.toml", text)
        settings = Settings(database_url=sqlite_url, auth_file=str(path), **overrides)
        app = create_app(settings, reload_clock=reload_clock)
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
    app = guarded_app(settings, lambda: TABLE_FILE)
    yield GuardedRegistry(app)
    app.extensions["registry"].storage.close()
