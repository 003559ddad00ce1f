"""One-line explanations of the failures an operator causes and can fix: a database URL that
does not parse, a driver that is not installed, a database that cannot be reached or opened.

The CLI and the gunicorn master print these instead of a traceback. Anything not recognised
here is a defect and keeps its traceback.
"""
from __future__ import annotations

# What a working URL looks like, for messages about one that does not work.
URL_EXAMPLES = "sqlite:///data/registry.db or postgresql+psycopg://user:password@host/database"
_POSTGRES_DRIVERS = {"psycopg", "psycopg2", "asyncpg", "pg8000"}


def explain_failure(exc: BaseException, database_url: str) -> str | None:
    """The message for a failure the operator can act on, or None for a defect."""
    from alembic.util import CommandError
    from sqlalchemy.exc import ArgumentError, DBAPIError, NoSuchModuleError

    if isinstance(exc, NoSuchModuleError):
        return f"unsupported database URL scheme {_scheme(database_url)!r}: use {URL_EXAMPLES}"
    if isinstance(exc, ArgumentError):
        return f"cannot parse the database URL ({exc}); expected e.g. {URL_EXAMPLES}"
    if isinstance(exc, ImportError) and exc.name in _POSTGRES_DRIVERS:
        if exc.name == "psycopg":
            return "PostgreSQL support is not installed: pip install 'sqlregistry[postgres]'"
        return (f"the database URL asks for the {exc.name} driver, which is not installed; "
                "install sqlregistry[postgres] and use a postgresql+psycopg:// URL")
    if isinstance(exc, DBAPIError):
        return f"cannot use the database {_redacted(database_url)}: {_one_line(str(exc.orig))}"
    if isinstance(exc, CommandError):
        return f"cannot migrate the database {_redacted(database_url)}: {_one_line(str(exc))}"
    if isinstance(exc, OSError):
        where = f" ({exc.filename})" if exc.filename else ""
        return f"cannot create or open the database{where}: {exc.strerror or exc}"
    return None


def _one_line(text: str) -> str:
    return "; ".join(part.strip() for part in text.splitlines() if part.strip())


def _scheme(url: str) -> str:
    return url.partition("://")[0] if "://" in url else url.partition(":")[0]


def _redacted(url: str) -> str:
    from app.storage.engine import redacted_url

    return redacted_url(url)
