"""`sqlregistry audit`: the audit trail read (`list`, as JSON lines in `GET /audit`'s shape) and
pruned (`prune`) straight from the database."""
from __future__ import annotations

import argparse
from typing import Any

from app.settings import Settings


def add_audit_commands(commands: Any) -> None:
    """`audit list` and `audit prune` under the command's subparsers."""
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
    from app.core.store.audit import AuditQuery
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
