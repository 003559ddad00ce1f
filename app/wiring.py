"""The one place that picks the implementations: SQL storage (migrated if asked), the format
registry, and the service over them. The web app, the CLI and the benchmarks all start here,
so none of them can wire the registry differently."""
from __future__ import annotations

from app.core.access import Authorizer, EventSink, no_events
from app.core.registry import RegistryService
from app.formats import FORMATS
from app.settings import Settings


def build_registry(
    settings: Settings, *, authorizer: Authorizer | None = None, events: EventSink = no_events
) -> RegistryService:
    from app.storage.migrate import upgrade_to_head  # alembic only when this process migrates
    from app.storage.repository import Repository

    repository = Repository.from_url(settings.database_url)
    if settings.auto_migrate:
        upgrade_to_head(repository.engine)
    return RegistryService(repository, FORMATS, settings, authorizer=authorizer, events=events)
