"""The `sqlregistry` command: serve the registry, manage its database schema, read its audit trail.

`serve` runs gunicorn in-process rather than shelling out to it so that one installed command
is all an operator needs. The master applies pending migrations once, before forking, so
workers start against a database already at head and never race each other to migrate.

Failures an operator can fix (a bad URL, an unreachable database, a missing driver) end the
command with one line on stderr and exit status 1; see app/server/operator_errors.py.
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
        for name in ("host", "port", "workers", "threads", "database_url", "access_log", "access_log_format",
                     "certfile", "keyfile", "ca_certs", "cert_reqs")
        if getattr(args, name, None) is not None
    }
    return Settings.from_env().with_overrides(**overrides)


def cmd_serve(settings: Settings) -> int:
    from app.security.errors import AuthFileError
    from app.server.serving import (DatabaseDirectoryMissing, PortInUse, RegistryServer, TlsFilesError,
                                    check_database_directory, check_port_free, check_tls_files,
                                    prepare_authentication, prepare_database, prepare_metrics_dir, route_app_logs)

    try:
        check_port_free(settings.host, settings.port)
    except PortInUse as exc:
        return fail(str(exc))
    route_app_logs(settings)
    try:
        check_tls_files(settings.certfile, settings.keyfile, settings.ca_certs)
    except TlsFilesError as exc:
        return fail(str(exc))
    try:
        check_database_directory(settings.database_url, Settings.database_url)
    except DatabaseDirectoryMissing as exc:
        return fail(str(exc))
    try:
        prepare_authentication(settings)
    except AuthFileError as exc:
        from app.security.reload import describe  # tomllib: Python 3.11, needed only with an auth file

        return fail(describe(settings.auth_file, exc))
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


def cmd_db_check(settings: Settings, args: argparse.Namespace) -> int:
    """List the stored cells holding NUL or a lone surrogate (text_check.py), one line each,
    and exit 1 if there are any; `--fix` replaces those characters by U+FFFD (with an audit
    row) and exits 1 only if some could not be fixed."""
    from app.core.audit import REPAIR_TEXT
    from app.storage.engine import make_engine, redacted_url
    from app.storage.text_check import flawed_cells, repair

    engine = make_engine(settings.database_url)
    try:
        cells = list(flawed_cells(engine))
        for cell in cells:
            print(cell.describe())
        if not cells:
            print(f"{redacted_url(settings.database_url)}: every stored string reads back cleanly")
            return 0
        if not args.fix:
            print(f"{len(cells)} stored values hold NUL or a lone surrogate; `{PROG} db check --fix` replaces them")
            return 1
        fixed = repair(engine, cells, f"{PROG} db check --fix", REPAIR_TEXT)
        print(f"replaced the flawed characters of {fixed} of {len(cells)} values with U+FFFD")
        return 0 if fixed == len(cells) else 1
    finally:
        engine.dispose()


def _time_arg(text: str) -> int:
    from app.core.audit import parse_time

    try:
        return parse_time(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def _duration_arg(text: str) -> int:
    from app.core.audit import parse_duration

    try:
        return parse_duration(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def cmd_audit_list(settings: Settings, args: argparse.Namespace) -> int:
    """The trail as JSON lines, newest first, in `GET /audit`'s shape, read in pages."""
    from app.api.render import audit_entity, json_bytes
    from app.core.audit import MAX_LIMIT
    from app.core.store import AuditQuery
    from app.storage.repository import Repository

    repository = Repository.from_url(settings.database_url)
    try:
        printed, offset = 0, 0
        while args.limit is None or printed < args.limit:
            size = MAX_LIMIT if args.limit is None else min(MAX_LIMIT, args.limit - printed)
            rows = repository.audit_events(AuditQuery(
                subject=args.subject, principal=args.principal, action=args.action, outcome=args.outcome,
                since=args.since, until=args.until, offset=offset, limit=size,
            ))
            for row in rows:
                # Escapes a lone surrogate an older version stored, as `GET /audit` does.
                print(json_bytes(audit_entity(row)).decode("utf-8"))
            printed, offset = printed + len(rows), offset + len(rows)
            if len(rows) < size:
                break
    finally:
        repository.close()
    return 0


def cmd_audit_prune(settings: Settings, args: argparse.Namespace) -> int:
    """Delete the entries older than `--older-than` now; the server itself deletes only those
    past REGISTRY_AUDIT_RETENTION_DAYS, when set."""
    import time

    from app.core.audit import iso_time
    from app.storage.repository import Repository

    cutoff = time.time_ns() // 1_000_000 - args.older_than
    repository = Repository.from_url(settings.database_url)
    try:
        pruned = repository.prune_audit(cutoff)
    finally:
        repository.close()
    print(f"pruned {pruned} audit events older than {iso_time(cutoff)}")
    return 0


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
    tls = serve.add_argument_group("TLS (gunicorn's own options of the same names)")
    tls.add_argument("--certfile", help="server certificate chain, PEM; serves HTTPS (REGISTRY_CERTFILE)")
    tls.add_argument("--keyfile", help="server private key, PEM, unless in --certfile (REGISTRY_KEYFILE)")
    tls.add_argument("--ca-certs", help="CA file for client certificates (REGISTRY_CA_CERTS)")
    tls.add_argument("--cert-reqs", type=int, choices=(0, 1, 2),
                     help="client certificates: 0 not asked, 1 optional, 2 required (REGISTRY_CERT_REQS)")
    serve.set_defaults(handler=cmd_serve)

    db = commands.add_parser("db", help="the database: schema migrations, stored text check").add_subparsers(
        dest="db_command", required=True
    )
    for name, handler, text in (
        ("upgrade", cmd_db_upgrade, "apply pending migrations"),
        ("current", cmd_db_current, "show the database's revision; exit 1 if behind head"),
    ):
        sub = db.add_parser(name, help=text)
        sub.add_argument("--database-url", help="SQLAlchemy URL (REGISTRY_DATABASE_URL)")
        sub.set_defaults(handler=handler)
    check = db.add_parser("check", help="find stored values holding NUL or a lone surrogate; exit 1 if any")
    check.add_argument("--fix", action="store_true", help="replace those characters with U+FFFD (audited)")
    check.add_argument("--database-url", help="SQLAlchemy URL (REGISTRY_DATABASE_URL)")
    check.set_defaults(handler=cmd_db_check)

    audit = commands.add_parser("audit", help="the audit trail in the database").add_subparsers(
        dest="audit_command", required=True
    )
    listing = audit.add_parser("list", help="print audit events as JSON lines, newest first")
    listing.add_argument("--subject", help="qualified subject name, exact")
    listing.add_argument("--principal", help="e.g. user:alice")
    listing.add_argument("--action", help="e.g. REGISTER, DELETE_SUBJECT")
    listing.add_argument("--outcome", choices=("success", "denied", "rejected"))
    listing.add_argument("--since", type=_time_arg, help="ISO-8601 time or epoch milliseconds (inclusive)")
    listing.add_argument("--until", type=_time_arg, help="ISO-8601 time or epoch milliseconds (inclusive)")
    listing.add_argument("--limit", type=int, help="print at most this many (default: all)")
    listing.set_defaults(handler=cmd_audit_list)
    prune = audit.add_parser("prune", help="delete audit events older than a duration")
    prune.add_argument("--older-than", type=_duration_arg, required=True, metavar="DURATION",
                       help="e.g. 365d, 12h, 30m, 45s, 2w")
    prune.set_defaults(handler=cmd_audit_prune)
    for sub in (listing, prune):
        sub.add_argument("--database-url", help="SQLAlchemy URL (REGISTRY_DATABASE_URL)")

    # Listed for --help; `main` hands their arguments to app.client.ci before parsing.
    commands.add_parser("check", help="test schema files against a subject on a running registry, "
                                      "or offline against a policy file")
    commands.add_parser("register", help="register schema files under a subject on a running registry")
    commands.add_parser("pipeline", help="decode and encode registry-framed records with Spark, to Parquet or "
                                         "tables (needs sqlregistry[pipeline])")
    commands.add_parser("auth", help="auth file tools: hash-password, check-file")
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
    if words and words[0] == "auth":
        from app.security.commands import main as auth_main  # no settings, database or Flask

        return auth_main(words[1:])
    args = build_parser().parse_args(words)
    try:
        settings = settings_from_args(args)
    except ValueError as exc:  # a REGISTRY_* value or flag that does not convert or is out of range
        return fail(str(exc))
    try:
        if args.command == "audit" or args.handler is cmd_db_check:
            return args.handler(settings, args)
        return args.handler(settings)
    except Exception as exc:
        from app.server.operator_errors import explain_failure

        message = explain_failure(exc, settings.database_url)
        if message is None:
            raise
        return fail(message)


if __name__ == "__main__":
    sys.exit(main())
