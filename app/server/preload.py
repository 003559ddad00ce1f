"""What a gunicorn master loads before it forks, so that workers do not load it while requests wait.

A worker answers its first request as soon as its Flask app is built, and builds its storage
and each format on first use (app/storage/deferred.py, app/formats/__init__.py). Had it to
import SQLAlchemy (Core and ORM), the database driver, our storage modules and the default
format's libraries itself, the first registrations would wait for those imports: seconds on
a busy two-core host, with both workers importing at once (measured: p99 of 0.7-3.6 s for
the first seconds, fine eight seconds later). A master that migrates imported them all along (the
migrations parse stored schemas); one that found the database at head (any restart, or a
first start after `sqlregistry import --database-url`, `db upgrade` or a script using
`build_registry`) did not. Loaded once in the master, the modules are shared by every worker
it forks, recycled ones included: building the storage then takes milliseconds.

Modules and a format instance only, no engine and no connection: a pool inherited across
fork would be shared by processes. Like a migrating master's, these modules are not reloaded
by gunicorn's HUP; a new release restarts.
"""
from __future__ import annotations


def load_worker_modules(database_url: str) -> None:
    """Import the repository and the URL's dialect and driver (psycopg, sqlite3), and build
    the default format (a request without `schemaType`; the others are built on first use,
    as before: about 50-100 ms of CPU each that an Avro-only registry never spends). A URL
    whose driver is missing raises here, as the worker's first use would."""
    from sqlalchemy.engine import make_url

    import app.storage.repository  # noqa: F401 - imported for its modules, shared by the workers
    from app.formats import FORMATS
    from app.formats.base import DEFAULT_SCHEMA_TYPE

    make_url(database_url).get_dialect().import_dbapi()
    FORMATS.get(DEFAULT_SCHEMA_TYPE)  # a lazy map builds a format, with its libraries, when it is read
