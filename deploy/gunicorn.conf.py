"""gunicorn settings for running sqlregistry directly: `gunicorn -c deploy/gunicorn.conf.py wsgi:app`.

Every option comes from `app.server.serving.gunicorn_options`, the function `sqlregistry serve` uses,
so one REGISTRY_* EnvironmentFile drives either way of starting it the same way:
REGISTRY_HOST (127.0.0.1 unless set; 0.0.0.0 for every interface), REGISTRY_PORT,
REGISTRY_WORKERS, REGISTRY_THREADS, REGISTRY_LOG_LEVEL, REGISTRY_ACCESS_LOG (`-` for stdout
or a path) and REGISTRY_FORWARDED_ALLOW_IPS (the load balancer's addresses). Workers are
gthread with Confluent-JSON error pages (app/server/gunicorn_worker.py), 30 s timeouts, graceful
shutdown on SIGTERM, not preloaded; `limit_request_line` and `limit_request_field_size` are
8190 (gunicorn answers a longer request line 414 and a longer header 431 before the app runs).

The master migrates the database once before forking (REGISTRY_AUTO_MIGRATE), then tells the
workers (through the environment they inherit) not to try again. It also prepares the
directory the workers share their Prometheus metrics through (PROMETHEUS_MULTIPROC_DIR, a
private temporary one unless set; see app/metrics.py); the `child_exit` and `on_exit` hooks
that tidy it come with the other options. REGISTRY_ACCESS_LOG_FORMAT=json makes the access
log one JSON object per request (app/server/access_log.py). REGISTRY_AUTH_FILE turns authentication
on; an invalid file stops the master here with one line.

HTTPS: REGISTRY_CERTFILE and REGISTRY_KEYFILE (PEM); client certificates with REGISTRY_CA_CERTS
and REGISTRY_CERT_REQS (1 optional, 2 required), checked once here before any worker starts.
gunicorn's own `--certfile/--keyfile/--ca-certs/--cert-reqs` on the command line work as well
and take precedence.
"""
from __future__ import annotations

import os
import sys

from app.server.serving import (
    TlsFilesError,
    check_tls_files,
    gunicorn_options,
    prepare_database,
    prepare_metrics_dir,
    route_app_logs,
)
from app.settings import Settings

_settings = Settings.from_env()
globals().update(gunicorn_options(_settings))


def on_starting(server: object) -> None:
    """Runs once in the master (`server` is gunicorn's Arbiter) before any worker exists."""
    route_app_logs(_settings)
    from app.server.operator_errors import explain_failure
    from app.security.errors import AuthFileError
    from app.server.serving import prepare_authentication

    try:
        cfg = server.cfg  # type: ignore[attr-defined]
        check_tls_files(cfg.certfile, cfg.keyfile, cfg.ca_certs)
    except TlsFilesError as exc:
        sys.exit(f"sqlregistry: error: {exc}")
    try:
        prepare_authentication(_settings)
    except AuthFileError as exc:
        from app.security.reload import describe

        sys.exit(f"sqlregistry: error: {describe(_settings.auth_file, exc)}")
    try:
        prepare_database(_settings)
    except Exception as exc:
        message = explain_failure(exc, _settings.database_url)
        if message is None:
            raise
        sys.exit(f"sqlregistry: error: {message}")
    os.environ["REGISTRY_AUTO_MIGRATE"] = "false"
    if _settings.metrics:
        prepare_metrics_dir()
