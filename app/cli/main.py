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

from app.cli import PROG
from app.cli.audit import add_audit_commands
from app.cli.db import add_db_commands
from app.settings import Settings


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


def cmd_serve(settings: Settings, args: argparse.Namespace) -> int:
    from app.security.errors import AuthFileError
    from app.server.serving import (DatabaseDirectoryMissing, PortInUse, RegistryServer, TlsFilesError,
                                    check_database_directory, check_port_free, check_tls_files,
                                    prepare_authentication, prepare_database, prepare_metrics_dir, route_app_logs)
    from app.wiring import check_limits

    try:
        check_limits(settings)
        check_port_free(settings.host, settings.port)
    except (ValueError, PortInUse) as exc:
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

    add_db_commands(commands)
    add_audit_commands(commands)

    # Listed for --help; `main` hands their arguments to app.cli.check before parsing.
    commands.add_parser("check", help="test schema files against a subject on a running registry, "
                                      "or offline against a policy file")
    commands.add_parser("register", help="register schema files under a subject on a running registry")
    commands.add_parser("pipeline", help="decode registry-framed topic dumps with Spark (needs sqlregistry[pipeline])")
    commands.add_parser("auth", help="auth file tools: hash-password, check-file")
    for name, text in (("export", "write a dump of a registry, keeping ids (REST or database)"),
                       ("import", "write a dump into a registry through IMPORT mode, keeping ids"),
                       ("mirror", "export from one registry and import into another; --verify compares"),
                       ("verify", "compare two registries' subjects, versions, ids, configs and modes")):
        commands.add_parser(name, help=text)  # parsed by app.cli.transfer
    return parser


def run_client_command(name: str, argv: Sequence[str]) -> int:
    """`check` and `register` talk to a running registry through app.client (no database
    or Flask here), with their own arguments and exit codes (0, 1, 2)."""
    from app.cli import check as ci

    return ci.check_main(argv) if name == "check" else ci.register_main(argv)


def fail(message: str) -> int:
    print(f"{PROG}: error: {message}", file=sys.stderr)
    return 1


def main(argv: Sequence[str] | None = None) -> int:
    words = list(sys.argv[1:] if argv is None else argv)
    if words and words[0] in ("check", "register"):
        return run_client_command(words[0], words[1:])
    if words and words[0] in ("export", "import", "mirror", "verify"):
        from app.cli.transfer import main as transfer_main

        return transfer_main(words)
    if words and words[0] == "pipeline":
        from app.pipeline.job import main as pipeline_main  # pyspark only for this command

        return pipeline_main(words[1:])
    if words and words[0] == "auth":
        from app.cli.auth import main as auth_main  # no settings, database or Flask

        return auth_main(words[1:])
    args = build_parser().parse_args(words)
    try:
        settings = settings_from_args(args)
    except ValueError as exc:  # a REGISTRY_* value or flag that does not convert or is out of range
        return fail(str(exc))
    try:
        return args.handler(settings, args)
    except Exception as exc:
        from app.server.operator_errors import explain_failure

        message = explain_failure(exc, settings.database_url)
        if message is None:
            raise
        return fail(message)


if __name__ == "__main__":
    sys.exit(main())
