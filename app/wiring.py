"""The one place that picks the implementations: SQL storage (migrated if asked), the format
registry, and the service over them. The web app, the CLI and the benchmarks all start here,
so none of them can wire the registry differently."""
from __future__ import annotations

from typing import TYPE_CHECKING

from app.core.access import Authorizer, EventSink, no_events
from app.core.cache import CacheStatsFactory, no_cache_stats
from app.core.registry import RegistryService
from app.core.store.protocol import Storage
from app.formats import FORMATS
from app.formats.jackson import MAX_DOCUMENT_DEPTH
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
    is built on first use or by `app.server.serving.warm_up`, not here (app/storage/deferred.py);
    never when this process is to migrate."""
    check_limits(settings)

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



def check_limits(settings: Settings) -> None:
    """The operator's REGISTRY_MAX_SCHEMA_DEPTH may tighten the formats' own bound on nesting
    (app/formats/jackson.py), never pass it: their recursive walks are built for that bound.
    Refused here, where settings meet the formats, so that settings import no format."""
    depth = settings.max_schema_depth
    if not 1 <= depth <= MAX_DOCUMENT_DEPTH:
        raise ValueError(
            f"REGISTRY_MAX_SCHEMA_DEPTH (--max_schema_depth): must be between 1 and {MAX_DOCUMENT_DEPTH}, got {depth}"
        )
