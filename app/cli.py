"""The `sqlregistry` command: serve the registry under gunicorn, or manage its database schema.

`serve` runs gunicorn in-process rather than shelling out to it so that one installed command
is all an operator needs. The master applies pending migrations once, before forking, so
workers start against a database already at head and never race each other to migrate.

Failures an operator can fix (a bad URL, an unreachable database, a missing driver) end the
command with one line on stderr and exit status 1; see app/operator_errors.py.
"""
from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from typing import Any

from app.settings import Settings

PROG = "sqlregistry"


class _VersionAction(argparse.Action):
    """`--version`, reading the installed distribution's metadata only when asked."""

    def __init__(self, option_strings: Sequence[str], dest: str, **kwargs: Any):
        super().__init__(option_strings, dest, nargs=0, help="print the version and exit", **kwargs)

    def __call__(self, parser: argparse.ArgumentParser, *_: Any) -> None:
        from importlib.metadata import PackageNotFoundError, version

        try:
            installed = version(PROG)
        except PackageNotFoundError:
            installed = "(not installed: running from a source tree)"
        print(f"{PROG} {installed}")
        parser.exit()


def settings_from_args(args: argparse.Namespace) -> Settings:
    """Settings from REGISTRY_* variables, overridden by the flags given on the command line."""
    overrides = {
        name: getattr(args, name)
        for name in ("host", "port", "workers", "threads", "database_url", "access_log", "access_log_format")
        if getattr(args, name, None) is not None
    }
    return Settings.from_env().with_overrides(**overrides)


def cmd_serve(settings: Settings) -> int:
    from app.serving import RegistryServer, prepare_database, prepare_metrics_dir

    prepare_database(settings)
    if settings.metrics:
        prepare_metrics_dir()
    RegistryServer(settings.with_overrides(auto_migrate=False)).run()
    return 0


def cmd_db_upgrade(settings: Settings) -> int:
    from app.storage.engine import redacted_url
    from app.storage.migrate import upgrade_url

    upgrade_url(settings.database_url)
    print(f"{redacted_url(settings.database_url)}: at head")
    return 0


def cmd_db_current(settings: Settings) -> int:
    """Print the database's revision and the code's head; exit 1 when they differ.

    A SQLite file that does not exist is reported, not created: this command only looks.
    """
    from app.storage.engine import make_engine
    from app.storage.migrate import current_revision, head_revision, missing_sqlite_file

    missing = missing_sqlite_file(settings.database_url)
    if missing is not None:
        current = None
        state = f"(no database: {missing} does not exist; `{PROG} db upgrade` creates it)"
    else:
        engine = make_engine(settings.database_url)
        try:
            current = current_revision(engine)
        finally:
            engine.dispose()
        state = current or "(empty database: not migrated)"
    head = head_revision()
    print(f"current: {state}")
    print(f"head:    {head}")
    return 0 if current == head else 1


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog=PROG, description=__doc__.splitlines()[0])
    parser.add_argument("--version", action=_VersionAction)
    commands = parser.add_subparsers(dest="command", required=True)

    serve = commands.add_parser("serve", help="run the registry under gunicorn (REGISTRY_* env for defaults)")
    serve.add_argument("--host", help="address to bind (REGISTRY_HOST, default 127.0.0.1; 0.0.0.0 for all)")
    serve.add_argument("--port", type=int, help="port to bind (REGISTRY_PORT, default 8081)")
    serve.add_argument("--workers", type=int, help="worker processes (REGISTRY_WORKERS)")
    serve.add_argument("--threads", type=int, help="threads per worker (REGISTRY_THREADS, default 4)")
    serve.add_argument("--database-url", help="SQLAlchemy URL (REGISTRY_DATABASE_URL)")
    serve.add_argument("--access-log", nargs="?", const="-", metavar="PATH",
                       help="log every request to PATH, or to stdout without one (REGISTRY_ACCESS_LOG)")
    serve.add_argument("--access-log-format", choices=("text", "json"),
                       help="text (gunicorn's lines) or json (one object per request) (REGISTRY_ACCESS_LOG_FORMAT)")
    serve.set_defaults(handler=cmd_serve)

    db = commands.add_parser("db", help="database schema migrations").add_subparsers(dest="db_command", required=True)
    for name, handler, text in (
        ("upgrade", cmd_db_upgrade, "apply pending migrations"),
        ("current", cmd_db_current, "show the database's revision; exit 1 if behind head"),
    ):
        sub = db.add_parser(name, help=text)
        sub.add_argument("--database-url", help="SQLAlchemy URL (REGISTRY_DATABASE_URL)")
        sub.set_defaults(handler=handler)

    # Listed for --help; `main` hands their arguments to app.client.ci before parsing.
    commands.add_parser("check", help="test schema files against a subject's compatibility on a running registry")
    commands.add_parser("register", help="register schema files under a subject on a running registry")
    commands.add_parser("pipeline", help="decode registry-framed topic dumps with Spark (needs sqlregistry[pipeline])")
    for name, text in (("export", "write a dump of a registry, keeping ids (REST or database)"),
                       ("import", "write a dump into a registry through IMPORT mode, keeping ids"),
                       ("mirror", "export from one registry and import into another; --verify compares"),
                       ("verify", "compare two registries' subjects, versions, ids, configs and modes")):
        commands.add_parser(name, help=text)  # parsed by app.transfer.commands
    return parser


def run_client_command(name: str, argv: Sequence[str]) -> int:
    """`check` and `register` talk to a running registry through app.client (no database
    or Flask here), with their own arguments and exit codes (0, 1, 2)."""
    from app.client import ci

    return ci.check_main(argv) if name == "check" else ci.register_main(argv)


def fail(message: str) -> int:
    print(f"{PROG}: error: {message}", file=sys.stderr)
    return 1


def main(argv: Sequence[str] | None = None) -> int:
    words = list(sys.argv[1:] if argv is None else argv)
    if words and words[0] in ("check", "register"):
        return run_client_command(words[0], words[1:])
    if words and words[0] in ("export", "import", "mirror", "verify"):
        from app.transfer.commands import main as transfer_main

        return transfer_main(words)
    if words and words[0] == "pipeline":
        from app.pipeline.job import main as pipeline_main  # pyspark only for this command

        return pipeline_main(words[1:])
    args = build_parser().parse_args(words)
    try:
        settings = settings_from_args(args)
    except ValueError as exc:  # a REGISTRY_* value or flag that does not convert or is out of range
        return fail(str(exc))
    try:
        return args.handler(settings)
    except Exception as exc:
        from app.operator_errors import explain_failure

        message = explain_failure(exc, settings.database_url)
        if message is None:
            raise
        return fail(message)


if __name__ == "__main__":
    sys.exit(main())
