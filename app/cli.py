"""The `sqlregistry` command: serve the registry under gunicorn, or manage its database schema.

`serve` runs gunicorn in-process rather than shelling out to it so that one installed command
is all an operator needs. The master applies pending migrations once, before forking, so
workers start against a database already at head and never race each other to migrate.
"""
from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence
from typing import Any

from gunicorn.app.base import BaseApplication

from app.settings import Settings

# Threads per gunicorn worker. gthread (not the default sync worker) is what makes HTTP
# keep-alive work; a few threads cover clients that hold idle connections open.
DEFAULT_THREADS = 4
# Longer than a load balancer's idle timeout (nginx's upstream default is 60 s), so the
# balancer, not gunicorn, closes idle connections and never reuses one being closed.
KEEPALIVE_SECONDS = 75


class RegistryServer(BaseApplication):
    """gunicorn application that builds the Flask app inside each worker, after the fork.

    Building it in the workers (no preload) keeps database connections out of the master:
    a connection pool inherited across fork would be shared by processes.
    """

    def __init__(self, settings: Settings, options: dict[str, Any]):
        self.settings = settings
        self.options = options
        super().__init__()

    def load_config(self) -> None:
        for key, value in self.options.items():
            # Settings newer than the oldest supported gunicorn are skipped where unknown.
            if key in self.cfg.settings:
                self.cfg.set(key, value)

    def load(self) -> Callable[..., Any]:
        from app.factory import create_app

        return create_app(self.settings)


def gunicorn_options(settings: Settings, threads: int, access_log: bool) -> dict[str, Any]:
    host = f"[{settings.host}]" if ":" in settings.host else settings.host
    return {
        "bind": f"{host}:{settings.port}",
        "workers": settings.workers,
        "worker_class": "gthread",
        "threads": threads,
        "keepalive": KEEPALIVE_SECONDS,
        "timeout": 30,
        "graceful_timeout": 30,
        "accesslog": "-" if access_log else None,
        "errorlog": "-",
        "loglevel": settings.log_level,
        "proc_name": "sqlregistry",
        # gunicorn 27+ opens a control socket at one fixed path per user, which several
        # instances on one host (or a test run next to a dev server) would fight over.
        "control_socket_disable": True,
    }


def _settings(args: argparse.Namespace) -> Settings:
    overrides = {
        name: getattr(args, name)
        for name in ("host", "port", "workers", "database_url")
        if getattr(args, name, None) is not None
    }
    return Settings.from_env().with_overrides(**overrides)


def cmd_serve(args: argparse.Namespace) -> int:
    from app.storage.migrate import upgrade_url

    settings = _settings(args)
    if settings.auto_migrate:
        upgrade_url(settings.database_url)
    options = gunicorn_options(settings, args.threads, args.access_log)
    RegistryServer(settings.with_overrides(auto_migrate=False), options).run()
    return 0


def cmd_db_upgrade(args: argparse.Namespace) -> int:
    from app.storage.engine import redacted_url
    from app.storage.migrate import upgrade_url

    settings = _settings(args)
    upgrade_url(settings.database_url)
    print(f"{redacted_url(settings.database_url)}: at head")
    return 0


def cmd_db_current(args: argparse.Namespace) -> int:
    """Print the database's revision and the code's head; exit 1 when they differ."""
    from app.storage.engine import make_engine
    from app.storage.migrate import current_revision, head_revision

    settings = _settings(args)
    engine = make_engine(settings.database_url)
    try:
        current = current_revision(engine)
    finally:
        engine.dispose()
    head = head_revision()
    print(f"current: {current or '(empty database)'}")
    print(f"head:    {head}")
    return 0 if current == head else 1


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="sqlregistry", description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)

    serve = commands.add_parser("serve", help="run the registry under gunicorn (REGISTRY_* env for defaults)")
    serve.add_argument("--host", help="address to bind (REGISTRY_HOST, default 0.0.0.0)")
    serve.add_argument("--port", type=int, help="port to bind (REGISTRY_PORT, default 8081)")
    serve.add_argument("--workers", type=int, help="worker processes (REGISTRY_WORKERS)")
    serve.add_argument("--threads", type=int, default=DEFAULT_THREADS, help="threads per worker")
    serve.add_argument("--database-url", help="SQLAlchemy URL (REGISTRY_DATABASE_URL)")
    serve.add_argument("--access-log", action="store_true", help="log every request to stdout")
    serve.set_defaults(handler=cmd_serve)

    db = commands.add_parser("db", help="database schema migrations").add_subparsers(dest="db_command", required=True)
    for name, handler, text in (
        ("upgrade", cmd_db_upgrade, "apply pending migrations"),
        ("current", cmd_db_current, "show the database's revision; exit 1 if behind head"),
    ):
        sub = db.add_parser(name, help=text)
        sub.add_argument("--database-url", help="SQLAlchemy URL (REGISTRY_DATABASE_URL)")
        sub.set_defaults(handler=handler)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    return args.handler(args)


if __name__ == "__main__":
    sys.exit(main())
