"""gunicorn settings for running sqlregistry directly: `gunicorn -c deploy/gunicorn.conf.py wsgi:app`.

Values come from the same REGISTRY_* variables as `sqlregistry serve`, so one EnvironmentFile
drives either way of starting it. The master migrates the database once before forking, then
tells the workers (through the environment they inherit) not to try again.
"""
from __future__ import annotations

import os

from app.settings import Settings

_settings = Settings.from_env()

bind = f"[{_settings.host}]:{_settings.port}" if ":" in _settings.host else f"{_settings.host}:{_settings.port}"
workers = _settings.workers
# gthread keeps HTTP connections alive between requests; the sync worker closes every one.
worker_class = "gthread"
threads = int(os.environ.get("REGISTRY_THREADS", "4"))
# Idle keep-alive must outlast the load balancer's (nginx: 60 s) so the balancer closes first.
keepalive = 75
# A request that takes longer than this is stuck (a lock wait, a runaway check): restart the worker.
timeout = 30
# On SIGTERM, finish in-flight requests for up to this long (systemd waits a little longer).
graceful_timeout = 30
# Recycle workers now and then so slow leaks cannot accumulate; jitter avoids restarting all at once.
max_requests = 100_000
max_requests_jitter = 10_000
# Not preloaded: each worker opens its own connection pool after the fork.
preload_app = False
loglevel = _settings.log_level
errorlog = "-"
accesslog = os.environ.get("REGISTRY_ACCESS_LOG") or None
proc_name = "sqlregistry"
# gunicorn 27+: no control socket (its default path is shared by every instance of the user).
control_socket_disable = True
# Behind nginx on the same host or network: trust its X-Forwarded-* headers.
forwarded_allow_ips = os.environ.get("REGISTRY_FORWARDED_ALLOW_IPS", "127.0.0.1")


def on_starting(server) -> None:  # noqa: ANN001 - gunicorn's Arbiter
    """Runs once in the master before any worker exists."""
    if not _settings.auto_migrate:
        return
    from app.storage.migrate import upgrade_to_head
    from app.storage.repository import Repository

    engine = Repository.from_url(_settings.database_url).engine
    try:
        upgrade_to_head(engine)
    finally:
        engine.dispose()
    os.environ["REGISTRY_AUTO_MIGRATE"] = "false"
