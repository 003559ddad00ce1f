"""How a blueprint reaches the registry: the factory puts one `RegistryService` on the app."""
from __future__ import annotations

from flask import current_app

from app.core.registry import RegistryService


def registry() -> RegistryService:
    return current_app.extensions["registry"]
