"""The application factory: the registry (app.wiring) behind the API blueprints, the health
probes, (unless REGISTRY_METRICS is off) the metrics that watch both, and (with
REGISTRY_AUTH_FILE) authentication in front of them all and the file's grants deciding what
each caller may do."""
from __future__ import annotations

import time
from typing import TYPE_CHECKING, Callable

from flask import Flask

from app.api import health, openapi, register_api, telemetry
from app.server.application import RegistryFlask
from app.core.registry import RegistryService
from app.settings import Settings
from app.web import register_web
from app.wiring import build_registry

if TYPE_CHECKING:
    from app.core.access import Authorizer
    from app.security.authenticate import Authenticator
    from app.security.records import AuthFile


def create_app(
    settings: Settings | None = None, registry: RegistryService | None = None, *, auth_fallback: AuthFile | None = None,
    defer_storage: bool = False, reload_clock: Callable[[], float] | None = None, run_exporters: bool = False,
) -> Flask:
    """`registry` lets a caller (a test, a benchmark) serve a service it built itself; its
    events, caches and pool are then not counted (requests still are). An invalid auth file
    raises `AuthFileError`, unless `auth_fallback` (the file a gunicorn master loaded
    before forking) is given to start on instead. `defer_storage`: see `build_registry`
    (gunicorn workers, which call `app.server.serving.warm_up` once serving). `reload_clock`: what the
    auth file's watcher reads to space its checks (a test moves it instead of sleeping).
    `run_exporters` (wsgi.py, for a bare `gunicorn wsgi:app`): the process that serves the
    app starts its exporters' runner at its first request (app/server/first_request.py)."""
    settings = settings or Settings.from_env()
    authenticator = _authenticator(settings, auth_fallback, reload_clock)
    service = registry or _build(settings, _authorizer(authenticator), defer_storage)

    # No static folder: Flask's `/static/<path>` route would be one the registry does not serve.
    app = RegistryFlask(__name__, static_folder=None)
    app.config["REGISTRY_SETTINGS"] = settings
    app.work_budget_seconds = settings.work_budget_seconds
    app.extensions["registry"] = service
    register_api(app)
    app.register_blueprint(health.bp)
    app.register_blueprint(openapi.bp)
    register_web(app)
    if authenticator is not None:
        from app.server import gate

        gate.install(app, authenticator)  # in front of the API's middleware, behind the telemetry's
    telemetry.instrument(app, count=settings.metrics)
    if run_exporters and settings.exporters:
        from app.server.first_request import StartOnFirstRequest
        from app.server.runners.exporters import start_runner

        app.wsgi_app = StartOnFirstRequest(app.wsgi_app, lambda: start_runner(service))  # type: ignore[method-assign]
    return app


def _authenticator(settings: Settings, fallback: AuthFile | None,
                   clock: Callable[[], float] | None) -> Authenticator | None:
    if not settings.auth_file:
        return None
    from app.security.authenticate import Authenticator
    from app.security.reload import AuthFileWatcher

    on_reload_failure = None
    if settings.metrics:
        from app import metrics

        on_reload_failure = metrics.AUTH_RELOAD_FAILURES.inc
    return Authenticator(
        AuthFileWatcher(settings.auth_file, fallback=fallback, on_reload_failure=on_reload_failure,
                        clock=clock or time.monotonic),
        settings.trusted_proxy_networks,
    )


def _authorizer(authenticator: Authenticator | None) -> Authorizer | None:
    """The grants of the file authentication keeps in force (one watcher, one reload)."""
    if authenticator is None:
        return None
    from app.security.authorizer import GrantAuthorizer

    return GrantAuthorizer(authenticator.watcher.current)


def _build(settings: Settings, authorizer: Authorizer | None, defer_storage: bool) -> RegistryService:
    if not settings.metrics:
        return build_registry(settings, authorizer=authorizer, defer_storage=defer_storage)
    from app import metrics

    return build_registry(
        settings, authorizer=authorizer, events=metrics.record_event, cache_stats=metrics.cache_stats,
        pool_observer=metrics.PoolMetrics(), defer_storage=defer_storage,
    )
