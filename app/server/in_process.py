"""`--database-url`: export from, or import into, a sqlregistry database without a server.

The registry service itself does the work, so every rule (IMPORT mode, explicit ids, the id
sequences, soft deletes, config merging) is the server's own. `InProcessRegistry` sends the
REST phases' calls to the API itself in this process, so export, preflight,
import and verify run unchanged. For an import, the service runs on `OneTransaction`: every
read and write of the whole import shares one database transaction, committed at the end,
so a failure or a conflict leaves the database exactly as it was.

A concurrent writer can make that transaction fail without anything being wrong with the
dump: a deadlock with a registration that holds a subject the import needs, a unique key it
committed first (the id the import writes, drawn by a registration meanwhile), a lock wait
cut short by the operator's `lock_timeout`. PostgreSQL then aborts the whole transaction, so
the whole import is run again, preflight included, after a growing pause, a bounded number
of times: the second preflight sees what the other writer committed, and either finds
nothing in the way or reports the conflict (exit 3) with nothing written.
"""
from __future__ import annotations

import json
import random
import time
from collections.abc import Hashable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import replace
from typing import Any

from sqlalchemy.exc import DBAPIError

from app.client.errors import error_for
from app.client.transport import CONTENT_TYPE
from app.storage.engine import is_transient
from app.transfer.dump import DEFAULT_CONTEXT, Dump, SettingRecord
from app.transfer.errors import TransferError
from app.transfer.export import Scope, export_rest, put_shape
from app.transfer.importer import ImportOptions, import_dump
from app.transfer.progress import Progress
from app.transfer.rest import Endpoint, RestRegistry


# Attempts of a whole `--database-url` import, and the pauses between them (seconds, before
# up to 50% jitter, so two importers that collided do not collide again in step).
IMPORT_ATTEMPTS = 5
RETRY_PAUSES = (0.5, 1.0, 2.0, 4.0)
# Beyond what `is_transient` names (serialization failure, deadlock): a unique key another
# writer committed first, and a lock wait cut short by `lock_timeout`.
_LOST_RACE_SQLSTATES = {"23505", "55P03"}


def database_error(exc: BaseException) -> bool:
    """Whether `exc` comes from the database (SQLAlchemy's wrapper or the driver's own)."""
    orig = getattr(exc, "orig", exc)
    return isinstance(exc, DBAPIError) or hasattr(orig, "sqlstate") or hasattr(orig, "sqlite_errorcode")


def lost_race(exc: BaseException) -> bool:
    """Whether `exc` (SQLAlchemy's wrapper or the driver's own) says another writer won a
    race, so the same transaction run again may succeed."""
    if not isinstance(exc, Exception):
        return False
    orig = getattr(exc, "orig", exc)
    return is_transient(exc) or getattr(orig, "sqlstate", None) in _LOST_RACE_SQLSTATES


class OneTransaction:
    """A `Storage` whose every `read()` and `write()` is the same open transaction.
    `failure` keeps the first failure of the database, and `lost_race` the first that says a
    concurrent writer got in the way: the API in this process answers either as a bare 500."""

    def __init__(self, repository: Any) -> None:
        from app.storage.engine import transactional
        from app.storage.repository import SqlStore

        self.repository = repository
        self.failure: BaseException | None = None
        self.lost_race: BaseException | None = None
        self._conn = transactional(repository.engine.connect())
        self._transaction = self._conn.begin()
        self._store = SqlStore(self._conn)

    @contextmanager
    def read(self) -> Iterator[Any]:
        try:
            yield self._store
        except Exception as exc:
            self._note(exc)
            raise

    write = read

    def _note(self, exc: Exception) -> None:
        if self.failure is None and database_error(exc):
            self.failure = exc
        if self.lost_race is None and lost_race(exc):
            self.lost_race = exc

    def change_token(self) -> Hashable | None:
        return None  # nothing may be served from a cache: this transaction changes under it

    def commit(self) -> None:
        try:
            self._transaction.commit()
        except Exception as exc:
            self._note(exc)
            raise
        self._conn.close()

    def rollback(self) -> None:
        if self._transaction.is_active:
            self._transaction.rollback()
        self._conn.close()


class InProcessRegistry(RestRegistry):
    """The REST client's calls answered by the API itself in this process (Werkzeug's test
    client, no socket): the same paths, shapes and error codes as over HTTP."""

    def __init__(self, service: Any, label: str) -> None:
        from app.server.factory import create_app

        super().__init__(Endpoint(label))
        self.app = create_app(replace(service.settings, metrics=False), registry=service)

    def request(self, method: str, path: str, *, query: Mapping[str, Any] | None = None, body: Any = None) -> Any:
        reply = self.app.test_client().open(
            path, method=method, query_string=_query(query) if query else None,
            data=None if body is None else json.dumps(body), headers=dict(self._headers),
            content_type=CONTENT_TYPE if body is not None else None,
        )
        data = reply.get_json(silent=True) if reply.data else None
        if reply.status_code >= 400:
            raise error_for(reply.status_code, data, reply.get_data(as_text=True))
        return data


def _query(query: Mapping[str, Any]) -> list[tuple[str, str]]:
    """Query parameters as the REST client sends them (booleans as `true`/`false`)."""
    return [(k, ("true" if v else "false") if isinstance(v, bool) else str(v)) for k, v in query.items() if v is not None]


def _repository(url: str, *, writing: bool = False) -> Any:
    """The database, refused unless it exists and is at the migration head: a transfer
    neither creates nor migrates a database (`sqlregistry db upgrade` does, which an import
    into a new SQLite file is told)."""
    from app.storage.migrate import current_revision, head_revision, missing_sqlite_file
    from app.storage.repository import Repository

    missing = missing_sqlite_file(url)
    if missing is not None and writing:
        raise TransferError(f"{missing} does not exist: run `sqlregistry db upgrade --database-url {url}` first "
                            "to create it (an import writes into a registry database, it does not make one)")
    if missing is not None:
        raise TransferError(f"{missing} does not exist")
    repository = Repository.from_url(url)
    try:
        current, head = current_revision(repository.engine), head_revision()
    except BaseException:
        repository.close()
        raise
    if current != head:
        repository.close()
        raise TransferError(f"{_label(url)} is at revision {current or '(none)'}, not {head}: "
                            "run `sqlregistry db upgrade` first")
    return repository


def _service(repository: Any, storage: Any = None) -> Any:
    from app.core.registry import RegistryService
    from app.formats import FORMATS
    from app.settings import Settings

    url = repository.engine.url.render_as_string(hide_password=False)
    settings = Settings(database_url=url, auto_migrate=False, hot_read_cache=False)
    return RegistryService(storage or repository, FORMATS, settings)


def _label(url: str) -> str:
    from app.storage.engine import redacted_url

    return redacted_url(url)


def export_database(url: str, scope: Scope, progress: Progress) -> Dump:
    """The same dump a REST export gives, plus the settings of subjects without versions
    (REST cannot list those)."""
    repository = _repository(url)
    try:
        service = _service(repository)
        source = InProcessRegistry(service, _label(url))
        dump = export_rest(source, scope, 1, progress)  # type: ignore[arg-type]
        dump.header["source"] = {"kind": "database", "url": _label(url), "serverVersion": source.server_version()}
        listed = {(s.kind, s.subject) for s in dump.configs + dump.modes}
        with repository.read() as store:
            rows = store.configured_subjects(None, "") + store.subject_modes(None)
        for row in rows:
            if not row.name or not scope.includes(_qualified(row.context, row.name)):
                continue
            subject = _qualified(row.context, row.name)
            if row.config and ("config", subject) not in listed:
                stored = source.config(subject)
                if stored is not None:
                    dump.configs.append(SettingRecord("config", "subject", row.context, subject, put_shape(stored)))
                    listed.add(("config", subject))
            if row.mode and ("mode", subject) not in listed:
                dump.modes.append(SettingRecord("mode", "subject", row.context, subject, row.mode))
                listed.add(("mode", subject))
        return dump
    finally:
        repository.close()


def _qualified(context: str, name: str) -> str:
    return name if context == DEFAULT_CONTEXT else f":{context}:{name}"


def import_database(url: str, dump: Dump, options: ImportOptions, progress: Progress) -> int:
    """Preflight, then every write, in one transaction through the registry service; run
    again from the start when a concurrent writer made it fail (see the module's docstring)."""
    repository = _repository(url, writing=True)
    try:
        for attempt in range(1, IMPORT_ATTEMPTS + 1):
            transaction = OneTransaction(repository)
            try:
                service = _service(repository, transaction)
                target = InProcessRegistry(service, _label(url))
                code = import_dump(target, dump, replace(options, workers=1, state_file=None), progress)  # type: ignore[arg-type]
                transaction.commit()
                return code
            except BaseException as exc:
                transaction.rollback()
                if not isinstance(exc, Exception):
                    raise
                if transaction.lost_race is None and transaction.failure is not None:
                    raise TransferError(f"{_label(url)} refused the import: {_first_line(transaction.failure)}; "
                                        "nothing written") from exc
                if transaction.lost_race is None:
                    raise
                cause = _first_line(transaction.lost_race)
                if attempt == IMPORT_ATTEMPTS:
                    raise TransferError(f"gave up after {IMPORT_ATTEMPTS} attempts, each failed by a concurrent "
                                        f"writer (last: {cause}); nothing written") from None
            pause = RETRY_PAUSES[min(attempt, len(RETRY_PAUSES)) - 1] * (1 + random.random() / 2)
            progress.note(f"import: a concurrent writer got in the way ({cause}); everything rolled back, "
                          f"trying again in {pause:.1f} s (attempt {attempt + 1} of {IMPORT_ATTEMPTS})")
            time.sleep(pause)
        raise AssertionError("unreachable")
    finally:
        repository.close()


def _first_line(exc: BaseException) -> str:
    text = str(getattr(exc, "orig", exc)).strip()
    return text.splitlines()[0] if text else type(exc).__name__
