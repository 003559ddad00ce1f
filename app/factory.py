"""The application factory: the registry (app.wiring) behind the API blueprints, the health
probes, and (unless REGISTRY_METRICS is off) the metrics that watch both."""
from __future__ import annotations

from flask import Flask

from app.api import health, register_api, telemetry
from app.core.registry import RegistryService
from app.settings import Settings
from app.web import register_web
from app.wiring import build_registry


def create_app(settings: Settings | None = None, registry: RegistryService | None = None) -> Flask:
    """`registry` lets a caller (a test, a benchmark) serve a service it built itself; its
    events, caches and pool are then not counted (requests still are)."""
    settings = settings or Settings.from_env()
    service = registry or _build(settings)

    app = Flask(__name__)
    app.config["REGISTRY_SETTINGS"] = settings
    app.extensions["registry"] = service
    register_api(app)
    app.register_blueprint(health.bp)
    register_web(app)
    telemetry.instrument(app, count=settings.metrics)
    return app


def _build(settings: Settings) -> RegistryService:
    if not settings.metrics:
        return build_registry(settings)
    from app import metrics

    return build_registry(
        settings, events=metrics.record_event, cache_stats=metrics.cache_stats, pool_observer=metrics.PoolMetrics()
    )
