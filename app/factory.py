"""The application factory: settings -> storage -> formats -> service -> blueprints."""
from __future__ import annotations

from flask import Flask

from app.api import register_api
from app.core.registry import RegistryService
from app.formats import FORMATS
from app.settings import Settings
from app.storage.migrate import upgrade_to_head
from app.storage.repository import Repository


def create_app(settings: Settings | None = None) -> Flask:
    settings = settings or Settings.from_env()
    repository = Repository.from_url(settings.database_url)
    if settings.auto_migrate:
        upgrade_to_head(repository.engine)
    service = RegistryService(repository, FORMATS, settings)

    app = Flask(__name__)
    app.config["REGISTRY_SETTINGS"] = settings
    app.extensions["registry"] = service
    register_api(app)
    return app
