"""What building the storage imports, loaded by a gunicorn master before it forks its workers.

A worker builds its storage after it has started answering (app/storage/deferred.py). Had it
to import SQLAlchemy (Core and ORM), the database driver and our storage modules itself,
every request needing the database would wait for those imports: seconds on a busy two-core
host, with both workers importing at once. A master that migrates imports them anyway; one
that found the database at head (any restart, or a first start after `sqlregistry import`,
`db upgrade` or a script using `build_registry`) did not, and its workers stalled
registrations for their first seconds. Loaded once in the master, the modules are shared by
every worker it forks, recycled ones included, and building the storage takes milliseconds.

Modules only, no engine: a pool inherited across fork would be shared by processes. Like the
migrating master's, these modules are not reloaded by gunicorn's HUP; a new release restarts.
"""
from __future__ import annotations


def load_storage_modules(database_url: str) -> None:
    """Import the repository and the URL's dialect and driver (psycopg, sqlite3); a URL whose
    driver is missing raises here, as the worker's first use would."""
    from sqlalchemy.engine import make_url

    import app.storage.repository  # noqa: F401 - imported for its modules, shared by the workers

    make_url(database_url).get_dialect().import_dbapi()
