"""The one place that picks the implementations: SQL storage (migrated if asked), the format
registry, and the service over them. The web app, the CLI and the benchmarks all start here,
so none of them can wire the registry differently."""
from __future__ import annotations

import threading
from typing import TYPE_CHECKING

from app.core.access import Authorizer, EventSink, no_events
from app.core.cache import CacheStatsFactory, no_cache_stats
from app.core.registry import RegistryService
from app.core.store.protocol import Storage
from app.formats import FORMATS
from app.settings import Settings
from app.storage.deferred import DeferredStorage

if TYPE_CHECKING:
    from app.storage.pool_events import PoolObserver


def build_registry(
    settings: Settings,
    *,
    authorizer: Authorizer | None = None,
    events: EventSink = no_events,
    cache_stats: CacheStatsFactory = no_cache_stats,
    pool_observer: PoolObserver | None = None,
    defer_storage: bool = False,
) -> RegistryService:
    """`events`, `cache_stats` and `pool_observer` are where metrics (app/metrics.py) listen.
    `defer_storage` (gunicorn workers, whose master has checked the database): the storage
    is built on first use or by `warm_up`, not here (app/storage/deferred.py); never when
    this process is to migrate."""

    def repository() -> Storage:
        from app.storage.repository import Repository

        built = Repository.from_url(settings.database_url)
        if pool_observer is not None:
            from app.storage.pool_events import watch_pool

            watch_pool(built.engine, pool_observer)
        if settings.auto_migrate:
            from app.storage.migrate import upgrade_to_head  # alembic only when this process migrates

            upgrade_to_head(built.engine)
        return built

    storage = DeferredStorage(repository) if defer_storage and not settings.auto_migrate else repository()
    return RegistryService(
        storage, FORMATS, settings, authorizer=authorizer, events=events, cache_stats=cache_stats
    )


def warm_up(service: RegistryService) -> None:
    """In a gunicorn worker that has loaded its app: start building, in the background, what
    the worker put off until after its first answer: deferred storage, and the policy rule
    catalogue (its plugins found through the installed distributions' entry points); and
    start the worker's exporters runner."""
    if isinstance(service.storage, DeferredStorage):
        service.storage.warm()
    threading.Thread(target=lambda: service.policies.catalogue, name="sqlregistry-policy-rules", daemon=True).start()
    from app.server.runners.exporters import start_runner  # this worker's exporters runner (none in the master)

    start_runner(service)
