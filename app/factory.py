"""The application factory: the registry (app.wiring) behind the API blueprints."""
from __future__ import annotations

from flask import Flask

from app.api import register_api
from app.core.registry import RegistryService
from app.settings import Settings
from app.wiring import build_registry


def create_app(settings: Settings | None = None, registry: RegistryService | None = None) -> Flask:
    """`registry` lets a caller (a test, a benchmark) serve a service it built itself."""
    settings = settings or Settings.from_env()
    service = registry or build_registry(settings)

    app = Flask(__name__)
    app.config["REGISTRY_SETTINGS"] = settings
    app.extensions["registry"] = service
    register_api(app)
    return app
