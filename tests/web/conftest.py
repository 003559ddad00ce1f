"""Fixtures for the web UI tests: a registry with the demo data, a client that reads pages as
trees and posts forms with their CSRF token, and apps with restricting authorizers."""
from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient

sys.path.insert(0, str(Path(__file__).resolve().parent))

import demo_data  # noqa: E402
from app.server.factory import create_app  # noqa: E402
from app.settings import Settings  # noqa: E402
from app.wiring import build_registry  # noqa: E402
from ui_client import Ui  # noqa: E402


@pytest.fixture
def ui(client: FlaskClient) -> Ui:
    return Ui(client)


@pytest.fixture
def demo(service) -> None:
    demo_data.load(service)


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
