"""`sqlregistry export | import | mirror | verify`: arguments, exit codes and error lines.

Exit codes: 0 done; 1 runtime error, one `error: ...` line on stderr (a traceback
only with `--debug`); 2 usage error (argparse's own); 3 conflicts found, nothing written;
4 verify found differences.
"""
from __future__ import annotations

import argparse
import logging
import os
import sys
import tempfile
import traceback
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from app.transfer.dump import DumpError
from app.transfer.errors import Conflicts, Differences, TransferError

COMMANDS = ("export", "import", "mirror", "verify")
EXIT_ERROR, EXIT_CONFLICTS, EXIT_DIFFERENCES = 1, 3, 4


def _scope_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--subject-prefix", metavar="P", help="only subjects whose name starts with P")
    parser.add_argument("--context", action="append", metavar="CTX", help="only this context (repeatable)")


def _tls_options(parser: argparse.ArgumentParser, side: str) -> None:
    parser.add_argument(f"--{side}-ca", metavar="FILE", help=f"CA bundle for the {side} registry's TLS")
    parser.add_argument(f"--{side}-cert", metavar="FILE", help="client certificate (PEM)")
    parser.add_argument(f"--{side}-key", metavar="FILE", help="client certificate's key (PEM)")


def _common(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--no-progress", action="store_true", help="no progress bars on stderr")
    parser.add_argument("--debug", action="store_true", help="show the traceback of a runtime error")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="sqlregistry")
    commands = parser.add_subparsers(dest="command", required=True)

    export = commands.add_parser("export", help="write a dump of a registry (REST or database)")
    source = export.add_mutually_exclusive_group(required=True)
    source.add_argument("--from", dest="source", metavar="URL", help="the source registry's URL")
    source.add_argument("--database-url", help="read a sqlregistry database directly")
    export.add_argument("--output", "-o", default="-", metavar="FILE", help="the dump file ('-': stdout)")
    export.add_argument("--workers", type=int, default=4, help="parallel requests (default 4)")
    _scope_options(export)
    _tls_options(export, "from")
    _common(export)

    imp = commands.add_parser("import", help="write a dump into a registry, keeping ids")
    target = imp.add_mutually_exclusive_group(required=True)
    target.add_argument("--to", dest="target", metavar="URL", help="the target registry's URL")
    target.add_argument("--database-url", help="write a sqlregistry database directly (one transaction)")
    imp.add_argument("file", metavar="FILE", help="the dump")
    imp.add_argument("--dry-run", action="store_true", help="stop after the preflight")
    imp.add_argument("--skip-global-config", action="store_true", help="leave the target's global config alone")
    imp.add_argument("--apply-global-mode", action="store_true", help="also set the dump's global mode")
    imp.add_argument("--workers", type=int, default=4, help="parallel requests (default 4)")
    _tls_options(imp, "to")
    _common(imp)

    mirror = commands.add_parser("mirror", help="export from one registry and import into another")
    mirror.add_argument("--from", dest="source", required=True, metavar="URL", help="the source registry's URL")
    mirror.add_argument("--to", dest="target", required=True, metavar="URL", help="the target registry's URL")
    mirror.add_argument("--verify", action="store_true", help="verify after the import")
    mirror.add_argument("--dry-run", action="store_true", help="stop after the preflight")
    mirror.add_argument("--workers", type=int, default=4, help="parallel requests (default 4)")
    mirror.add_argument("--skip-global-config", action="store_true", help="leave the target's global config alone")
    mirror.add_argument("--apply-global-mode", action="store_true", help="also set the source's global mode")
    _scope_options(mirror)
    _tls_options(mirror, "from")
    _tls_options(mirror, "to")
    _common(mirror)

    verify = commands.add_parser("verify", help="compare two registries; write nothing")
    verify.add_argument("--from", dest="source", required=True, metavar="URL", help="the registry copied from")
    verify.add_argument("--to", dest="target", required=True, metavar="URL", help="the registry copied to")
    verify.add_argument("--workers", type=int, default=4, help="parallel requests (default 4)")
    _scope_options(verify)
    _tls_options(verify, "from")
    _tls_options(verify, "to")
    _common(verify)
    return parser


def main(argv: Sequence[str]) -> int:
    args = build_parser().parse_args(list(argv))
    if getattr(args, "workers", 1) < 1:
        build_parser().error("--workers must be at least 1")
    try:
        return _HANDLERS[args.command](args)
    except Conflicts:
        return EXIT_CONFLICTS
    except Differences:
        return EXIT_DIFFERENCES
    except KeyboardInterrupt:
        print("error: interrupted", file=sys.stderr)
        return EXIT_ERROR
    except Exception as exc:  # every runtime failure becomes one line; --debug shows where
        if args.debug:
            traceback.print_exc()
        print(f"error: {_one_line(exc, getattr(args, 'database_url', None))}", file=sys.stderr)
        return EXIT_ERROR


def _one_line(exc: BaseException, database_url: str | None) -> str:
    if database_url:
        from app.server.operator_errors import explain_failure

        explained = explain_failure(exc, database_url)  # a bad URL, a missing driver, a database down
        if explained is not None:
            return explained
    text = " ".join(str(exc).split()) or type(exc).__name__
    if isinstance(exc, (TransferError, DumpError)):
        return text
    return f"{type(exc).__name__}: {text}"


def _source(args: argparse.Namespace, url: str | None = None):
    from app.transfer.rest import RestRegistry, endpoint

    where = endpoint(url or args.source, "FROM", args.from_ca, args.from_cert, args.from_key)
    return RestRegistry(where, pool_size=max(4, args.workers * 2), side="source", max_reply_bytes=_reply_limit())


def _target(args: argparse.Namespace):
    from app.transfer.rest import RestRegistry, endpoint

    where = endpoint(args.target, "TO", args.to_ca, args.to_cert, args.to_key)
    return RestRegistry(where, pool_size=max(4, args.workers * 2), side="target", max_reply_bytes=_reply_limit())


def _reply_limit() -> int:
    """The most bytes read of one reply (REGISTRY_EXPORTER_MAX_REPLY_BYTES, as for exporters)."""
    from app.settings import Settings

    return Settings.from_env().exporter_max_reply_bytes


def _progress(args: argparse.Namespace):
    from app.transfer.progress import Progress, counted

    return Progress(enabled=not args.no_progress)


@contextmanager
def _quiet_in_process_api() -> Iterator[None]:
    """With `--database-url` the registry's API runs in this process and would log what it
    answers; the command reports a failure itself, once, in one line. The level is put back
    afterwards, so that a program (or a test) running the command in process keeps its logging."""
    logger = logging.getLogger("app")
    previous = logger.level
    logger.setLevel(logging.CRITICAL)
    try:
        yield
    finally:
        logger.setLevel(previous)


def cmd_export(args: argparse.Namespace) -> int:
    from app.transfer.dump import write_dump
    from app.transfer.export import Scope, export_rest
    from app.transfer.progress import counted

    scope = Scope.of(args.subject_prefix, args.context)
    progress = _progress(args)
    if args.database_url:
        from app.server.in_process import export_database

        with _quiet_in_process_api():
            dump = export_database(args.database_url, scope, progress)
    else:
        dump = export_rest(_source(args), scope, args.workers, progress)
    if args.output == "-":
        write_dump(dump, sys.stdout.buffer)
        return 0
    path = Path(args.output)
    partial = path.with_name(path.name + ".partial")
    try:
        with open(partial, "wb") as out:
            counts = write_dump(dump, out)
        os.replace(partial, path)
    except OSError as exc:
        raise DumpError(f"cannot write {path}: {exc.strerror or exc}") from None
    totals = ", ".join(counted(counts[kind], kind) for kind in ("version", "schema", "config", "mode"))
    progress.note(f"export: {totals} -> {path}")
    return 0


def cmd_import(args: argparse.Namespace) -> int:
    from app.transfer.dump import read_dump
    from app.transfer.importer import ImportOptions, import_dump

    dump = read_dump(args.file)
    options = ImportOptions(dry_run=args.dry_run, skip_global_config=args.skip_global_config,
                            apply_global_mode=args.apply_global_mode, workers=args.workers,
                            state_file=Path(args.file + ".import-state.json"))
    progress = _progress(args)
    if args.database_url:
        from app.server.in_process import import_database

        with _quiet_in_process_api():
            return import_database(args.database_url, dump, options, progress)
    return import_dump(_target(args), dump, options, progress)


def cmd_mirror(args: argparse.Namespace) -> int:
    from app.transfer.dump import read_dump, write_dump
    from app.transfer.export import Scope, export_rest
    from app.transfer.importer import ImportOptions, import_dump
    from app.transfer.verify import verify

    scope = Scope.of(args.subject_prefix, args.context)
    progress = _progress(args)
    source, target = _source(args), _target(args)
    dump = export_rest(source, scope, args.workers, progress)
    with tempfile.TemporaryDirectory(prefix="sqlregistry-mirror-") as workdir:
        path = Path(workdir) / "mirror.dump"
        with open(path, "wb") as out:
            write_dump(dump, out)
        dump = read_dump(path)
        # The state file outlives the temporary dump (named after the target), so a killed
        # mirror restores the subjects' modes when it is run again.
        state = Path(tempfile.gettempdir()) / f"sqlregistry-mirror-{_state_name(target.where.url)}.import-state.json"
        options = ImportOptions(dry_run=args.dry_run, skip_global_config=args.skip_global_config,
                                apply_global_mode=args.apply_global_mode, workers=args.workers, state_file=state)
        code = import_dump(target, dump, options, progress)
    if code or args.dry_run or not args.verify:
        return code
    return verify(source, target, scope, args.workers, progress)


def _state_name(url: str) -> str:
    import hashlib

    return hashlib.sha256(url.encode()).hexdigest()[:12]


def cmd_verify(args: argparse.Namespace) -> int:
    from app.transfer.export import Scope
    from app.transfer.verify import verify

    scope = Scope.of(args.subject_prefix, args.context)
    return verify(_source(args), _target(args), scope, args.workers, _progress(args))


_HANDLERS: dict[str, Any] = {"export": cmd_export, "import": cmd_import, "mirror": cmd_mirror, "verify": cmd_verify}
