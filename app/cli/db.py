"""`sqlregistry db`: the database's schema migrations (`upgrade`, `current`) and the check of
stored text (`check`), run against REGISTRY_DATABASE_URL or `--database-url`."""
from __future__ import annotations

import argparse
from typing import Any

from app.cli import PROG
from app.settings import Settings


def add_db_commands(commands: Any) -> None:
    """`db upgrade`, `db current` and `db check` under the command's subparsers."""
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


def cmd_db_upgrade(settings: Settings, args: argparse.Namespace) -> int:
    from app.storage.engine import redacted_url
    from app.storage.migrate import upgrade_url

    upgrade_url(settings.database_url)
    print(f"{redacted_url(settings.database_url)}: at head")
    return 0


def cmd_db_current(settings: Settings, args: argparse.Namespace) -> int:
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
