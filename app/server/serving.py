"""How the registry runs under gunicorn: one set of gunicorn options, the master's database
step, and the in-process gunicorn application behind `sqlregistry serve`.

`sqlregistry serve` and `deploy/gunicorn.conf.py` both take their options from
`gunicorn_options`, so the two ways of starting a server cannot drift apart.

The master imports what it needs to bind and to migrate (gunicorn, and Alembic when the
database is behind) and what every worker would otherwise import while its first requests
wait (SQLAlchemy, the driver, app/storage, the formats: app/server/preload.py); Flask and the rest of
the registry are imported by each worker after the fork, and database connections stay out
of the master: a pool inherited across fork would be shared by processes.
"""
from __future__ import annotations

import ipaddress
import logging
import os
import shutil
import sys
import tempfile
import threading
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from gunicorn.app.base import BaseApplication

from app.settings import WORKER_TIMEOUT_SECONDS, Settings

if TYPE_CHECKING:
    from app.core.registry import RegistryService
    from app.security.records import AuthFile

# Longer than a load balancer's idle timeout (nginx's upstream default is 60 s), so the
# balancer, not gunicorn, closes idle connections and never reuses one being closed.
KEEPALIVE_SECONDS = 75
# gthread (HTTP keep-alive) with error pages in Confluent's JSON instead of gunicorn's HTML.
WORKER_CLASS = "app.server.gunicorn_worker.JsonErrorWorker"
JSON_ACCESS_LOGGER = "app.server.access_log.JsonAccessLogger"
LIMIT_REQUEST_LINE = 8190
LIMIT_REQUEST_FIELD_SIZE = 8190
METRICS_DIR_ENV = "PROMETHEUS_MULTIPROC_DIR"
# The metrics directory this master created itself (removed again when it exits).
_created_metrics_dir: str | None = None
# The auth file the master checked before forking, inherited by every worker it forks.
_master_auth_file: AuthFile | None = None


def gunicorn_options(settings: Settings) -> dict[str, Any]:
    """gunicorn settings by name, as a config file or `cfg.set` takes them."""
    host = f"[{settings.host}]" if ":" in settings.host else settings.host
    return {
        "bind": f"{host}:{settings.port}",
        "workers": settings.workers,
        "worker_class": WORKER_CLASS,
        "threads": settings.threads,
        "keepalive": KEEPALIVE_SECONDS,
        # A request that takes longer than this is stuck (a lock wait, a runaway check).
        "timeout": WORKER_TIMEOUT_SECONDS,
        # On SIGTERM, finish in-flight requests for up to this long (systemd waits a little longer).
        "graceful_timeout": 30,
        # Recycle workers now and then so slow leaks cannot accumulate; jitter avoids
        # restarting every worker at once.
        "max_requests": 100_000,
        "max_requests_jitter": 10_000,
        # Not preloaded: each worker opens its own connection pool after the fork.
        "preload_app": False,
        "accesslog": settings.access_log_target,
        "errorlog": "-",
        "loglevel": settings.log_level,
        "forwarded_allow_ips": settings.forwarded_allow_ips,
        # The request line (method, path, query) and each header: longer ones are answered
        # 414 and 431 by gunicorn before the app runs. 8190 is the common proxy default, so a
        # URL nginx forwards is one gunicorn reads.
        "limit_request_line": LIMIT_REQUEST_LINE,
        "limit_request_field_size": LIMIT_REQUEST_FIELD_SIZE,
        "proc_name": "sqlregistry",
        # gunicorn 27+ opens a control socket at one fixed path per user, which several
        # instances on one host (or a test run next to a dev server) would fight over.
        "control_socket_disable": True,
        **({"logger_class": JSON_ACCESS_LOGGER} if settings.access_log_format == "json" else {}),
        **tls_options(settings),
        "post_worker_init": worker_started,
        "child_exit": worker_exited,
        "on_exit": server_exited,
    }


def tls_options(settings: Settings) -> dict[str, Any]:
    """gunicorn's own TLS settings (the same four a `python -m gunicorn --certfile ...` command
    line sets), only when TLS is configured, so a plain-HTTP server's configuration is exactly
    gunicorn's defaults."""
    if not settings.certfile:
        return {}
    options: dict[str, Any] = {"certfile": settings.certfile, "cert_reqs": settings.cert_reqs}
    if settings.keyfile:
        options["keyfile"] = settings.keyfile
    if settings.ca_certs:
        options["ca_certs"] = settings.ca_certs
    return options


class TlsFilesError(Exception):
    """The certificate, key or CA file cannot be used: found by the master before it binds,
    with one line naming the file, rather than by every worker as it boots."""


def check_tls_files(certfile: str | None, keyfile: str | None, ca_certs: str | None) -> None:
    """Build the server context once, as gunicorn's workers will, to fail early and clearly."""
    if not certfile:
        return
    import ssl

    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    try:
        context.load_cert_chain(certfile, keyfile or None)
    except (OSError, ssl.SSLError) as exc:
        files = certfile + (f" / {keyfile}" if keyfile else "")
        raise TlsFilesError(f"cannot use the TLS certificate and key {files}: {exc}") from None
    if ca_certs:
        try:
            context.load_verify_locations(cafile=ca_certs)
        except (OSError, ssl.SSLError) as exc:
            raise TlsFilesError(f"cannot use the client CA file {ca_certs}: {exc}") from None


class DatabaseDirectoryMissing(Exception):
    """A SQLite database whose directory does not exist: the engine would make the directories
    and `serve` would start an empty registry on a mistyped path."""


def check_database_directory(url: str, default_url: str) -> None:
    """Refuse a SQLite file in a directory that does not exist, except the default's own
    (`./data`, which the README's first command expects to be made). Read from the URL's text,
    as app/storage/head_check.py does, so that the master imports no SQLAlchemy for it."""
    scheme, _, rest = url.partition("://")
    if scheme.partition("+")[0] != "sqlite" or url == default_url:
        return
    path = rest[1:].partition("?")[0]
    if not path or path == ":memory:" or path.startswith("file:"):
        return
    directory = Path(path).parent
    if not directory.is_dir():
        raise DatabaseDirectoryMissing(
            f"the directory of the SQLite database {path} does not exist: {directory} "
            "(create it first; only the default database's ./data is made)")


class PortInUse(Exception):
    """The address `serve` would bind is taken: found before anything else runs, so that a
    second `serve` neither migrates a database nor leaves gunicorn retrying for seconds."""


def check_port_free(host: str, port: int) -> None:
    """Bind and release the address once, with the socket options gunicorn binds with
    (SO_REUSEADDR: a port in TIME_WAIT is free, one that is listened on is not)."""
    import errno
    import socket

    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    except socket.gaierror as exc:
        raise PortInUse(f"cannot listen on {host}:{port}: {exc.strerror}") from None
    family, kind, proto, _, address = infos[0]
    with socket.socket(family, kind, proto) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind(address)
        except OSError as exc:
            if exc.errno == errno.EADDRINUSE:
                raise PortInUse(f"{host}:{port} is already in use (another server?); "
                                "choose another with --port") from None
            raise PortInUse(f"cannot listen on {host}:{port}: {exc.strerror or exc}") from None


def prepare_metrics_dir() -> None:
    """The master's step before forking when metrics are on: one directory where every
    worker's prometheus-client values live (multiprocess mode, app/metrics.py), empty at
    start so that a previous run's counts do not reappear. An operator's
    PROMETHEUS_MULTIPROC_DIR is used (and emptied of metric files); otherwise a private
    temporary directory is made and removed when the master exits. Workers inherit the
    variable, which must be set before they import prometheus_client."""
    global _created_metrics_dir
    configured = os.environ.get(METRICS_DIR_ENV)
    if configured:
        path = Path(configured)
        path.mkdir(parents=True, exist_ok=True)
        for stale in path.glob("*.db"):
            stale.unlink(missing_ok=True)
        return
    _created_metrics_dir = tempfile.mkdtemp(prefix="sqlregistry-metrics-")
    os.environ[METRICS_DIR_ENV] = _created_metrics_dir


def route_app_logs(settings: Settings) -> None:
    """The registry's own log lines (`app.*`) at the server's log level, on stderr beside
    gunicorn's error log and in its format, from the master and the workers it forks. With no
    handler of its own, Python printed only warnings, bare, and dropped the informational
    lines an operator looks for (which instance of a fleet migrated the database, an auth
    file reloaded)."""
    logger = logging.getLogger("app")
    if not any(getattr(handler, "sqlregistry", False) for handler in logger.handlers):
        handler = logging.StreamHandler(sys.stderr)
        handler.setFormatter(logging.Formatter(
            "[%(asctime)s] [%(process)d] [%(levelname)s] %(name)s: %(message)s", "%Y-%m-%d %H:%M:%S %z"))
        handler.sqlregistry = True  # type: ignore[attr-defined]
        logger.addHandler(handler)
    logger.setLevel(settings.log_level.upper())


def worker_started(worker: Any) -> None:
    """gunicorn's post_worker_init hook (in a worker, its app loaded, about to serve): the
    storage the app deferred (app/storage/deferred.py) is built in the background now."""
    registry = getattr(worker.wsgi, "extensions", {}).get("registry")
    if registry is not None:
        warm_up(registry)


def warm_up(service: RegistryService) -> None:
    """In a gunicorn worker that has loaded its app: start building, in the background, what
    the worker put off until after its first answer: deferred storage, and the policy rule
    catalogue (its plugins found through the installed distributions' entry points); and
    start the worker's exporters runner."""
    from app.server.runners.exporters import start_runner  # this worker's exporters runner (none in the master)
    from app.storage.deferred import DeferredStorage

    if isinstance(service.storage, DeferredStorage):
        service.storage.warm()
    threading.Thread(target=lambda: service.policies.catalogue, name="sqlregistry-policy-rules", daemon=True).start()
    start_runner(service)


def worker_exited(server: Any, worker: Any) -> None:
    """gunicorn's child_exit hook (in the master): a dead worker's gauges (connections in
    use) must stop counting; its counters and histograms stay, so totals never go down."""
    if os.environ.get(METRICS_DIR_ENV):
        from prometheus_client import multiprocess

        multiprocess.mark_process_dead(worker.pid)


def server_exited(server: Any) -> None:
    """gunicorn's on_exit hook: remove the metrics directory `prepare_metrics_dir` made."""
    if _created_metrics_dir is not None:
        shutil.rmtree(_created_metrics_dir, ignore_errors=True)


def prepare_authentication(settings: Settings) -> None:
    """The master's check before forking: an invalid auth file raises `AuthFileError` here,
    once, instead of failing every worker; without a file, a registry reachable from other
    hosts is open to all of them, which is worth one warning. The loaded file stays in the
    master's memory for workers started later (`master_auth_file`)."""
    global _master_auth_file
    if settings.auth_file:
        from app.security.authfile import load_auth_file

        _master_auth_file = load_auth_file(settings.auth_file)
        bearer = _master_auth_file.bearer
        if bearer is not None and bearer.jwks_file and "bearer" in _master_auth_file.authentication.methods:
            from app.security.bearer import BearerVerifier

            BearerVerifier(bearer)  # a key file that does not load is an invalid auth file
    elif not _is_loopback(settings.host):
        logging.getLogger(__name__).warning(
            "sqlregistry: listening on %s without REGISTRY_AUTH_FILE: every caller may register, delete and "
            "change settings", settings.host,
        )


def master_auth_file() -> AuthFile | None:
    """In a worker: the auth file its master loaded at start (None outside gunicorn, or when
    the master was not started by `sqlregistry serve` or the deploy config). A worker that
    finds the file on disk invalid starts on this one (app/security/reload.py)."""
    return _master_auth_file


def _is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def prepare_database(settings: Settings) -> None:
    """The master's step before forking: migrate to head, or at least prove the database answers.

    Either way a bad URL, a missing driver or an unreachable server fails here, once, with one
    message, instead of in every worker as it boots. A database at head is recognized through
    its driver alone (app/storage/head_check.py), so a restart does not load Alembic. Either
    way the master then loads what the storage and the formats import (app/server/preload.py):
    otherwise each worker would import it after its first answer, with requests waiting.
    """
    from app.server.preload import load_worker_modules
    from app.storage.head_check import at_head

    if not at_head(settings.database_url):
        _migrate_or_probe(settings)
    load_worker_modules(settings.database_url)


def _migrate_or_probe(settings: Settings) -> None:
    from sqlalchemy import text

    from app.storage.engine import make_engine
    from app.storage.migrate import upgrade_url

    if settings.auto_migrate:
        upgrade_url(settings.database_url)
        return
    engine = make_engine(settings.database_url)
    try:
        with engine.connect() as conn:
            conn.execute(text("SELECT 1"))
    finally:
        engine.dispose()


class RegistryServer(BaseApplication):
    """gunicorn application that builds the Flask app inside each worker, after the fork."""

    def __init__(self, settings: Settings):
        self.settings = settings
        super().__init__()

    def load_config(self) -> None:
        for key, value in gunicorn_options(self.settings).items():
            # Settings newer than the oldest supported gunicorn are skipped where unknown.
            if key in self.cfg.settings:
                self.cfg.set(key, value)

    def load(self) -> Callable[..., Any]:
        from app.server.factory import create_app

        return create_app(self.settings, auth_fallback=master_auth_file(), defer_storage=True)
