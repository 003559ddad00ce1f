"""The one place that picks the implementations: SQL storage (migrated if asked), the format
registry, and the service over them. The web app, the CLI and the benchmarks all start here,
so none of them can wire the registry differently."""
from __future__ import annotations

from typing import TYPE_CHECKING

from app.core.access import Authorizer, EventSink, no_events
from app.core.cache import CacheStatsFactory, no_cache_stats
from app.core.registry import RegistryService
from app.formats import FORMATS
from app.settings import Settings

if TYPE_CHECKING:
    from app.storage.pool_events import PoolObserver


def build_registry(
    settings: Settings,
    *,
    authorizer: Authorizer | None = None,
    events: EventSink = no_events,
    cache_stats: CacheStatsFactory = no_cache_stats,
    pool_observer: PoolObserver | None = None,
) -> RegistryService:
    """`events`, `cache_stats` and `pool_observer` are where metrics (app/metrics.py) listen."""
    from app.storage.migrate import upgrade_to_head  # alembic only when this process migrates
    from app.storage.repository import Repository

    repository = Repository.from_url(settings.database_url)
    if pool_observer is not None:
        from app.storage.pool_events import watch_pool

        watch_pool(repository.engine, pool_observer)
    if settings.auto_migrate:
        upgrade_to_head(repository.engine)
    return RegistryService(
        repository, FORMATS, settings, authorizer=authorizer, events=events, cache_stats=cache_stats
    )
