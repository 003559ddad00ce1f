"""How many SQL statements the hot paths cost, and what a compatibility check re-parses.

Statements are counted with SQLAlchemy's `before_cursor_execute` event on the service's
engine, on both databases. Nothing here measures time: the budgets are counts, so they hold
on any machine, and they catch an N+1 over versions the moment one creeps in.
"""
from __future__ import annotations

import json
from contextlib import contextmanager
from typing import Any, Iterator

import pytest

from app.core.registry import RegistryService
from app.core.types import SchemaRequest
from app.server.factory import create_app
from app.formats.base import ParsedSchema, SchemaFormat
from app.settings import Settings
from support.change_token import wait_for_change_token
from support.statements import counted

# A new version in a cold process: the read-only re-registration check (the subject with its
# settings rows and the policy documents, head, the content of the latest, versions with this
# text), then the write transaction: the subject's lock, head, versions with this text, the
# lock on the content's identity, and the writes. On PostgreSQL the writes are one statement (the
# content unless its identity is held, fingerprints, field index, version, the subject's latest
# version, the audit row: app/storage/version_writes.py) and BEGIN goes with the first
# statement; SQLite sends BEGIN, looks the identity up and writes each row with a statement of
# its own. What must not happen is growth with the subject's length.
COLD_REGISTRATION_BUDGET = {"postgresql": 9, "sqlite": 17}


# A first version in a new subject, warm caches: the pre-check (the subject with its settings
# rows and the policy documents), the subject's row created with the lock on the content's
# identity, and the writes (one statement on PostgreSQL; BEGIN, the identity looked up and a
# statement per row on SQLite). The registration benchmark's distinct-subject case.
NEW_SUBJECT_BUDGET = {"postgresql": 3, "sqlite": 12}


def schema_with_fields(count: int) -> str:
    """Version `count` of a record that gains one defaulted field per version, so every
    version can read data written with any earlier one (BACKWARD and transitive alike)."""
    fields = [{"name": f"f{i}", "type": "int", "default": 0} for i in range(count)]
    return json.dumps({"type": "record", "name": "Grows", "fields": fields})


def seed(service: RegistryService, subject: str, versions: int) -> None:
    for n in range(1, versions + 1):
        service.register(subject, SchemaRequest(schema=schema_with_fields(n)))


@contextmanager
def fresh_service(settings: Settings) -> Iterator[RegistryService]:
    """A second application on the same database: its caches start empty (a cold process)."""
    app = create_app(settings)
    try:
        yield app.extensions["registry"]
    finally:
        app.extensions["registry"].storage.close()


def test_cold_registration_costs_a_constant_number_of_statements(
    service: RegistryService, settings: Settings
) -> None:
    costs = {}
    for existing in (10, 100):
        subject = f"grows-{existing}"
        seed(service, subject, existing)
        with fresh_service(settings) as cold:
            with counted(cold.storage.engine) as statements:
                registered = cold.register(subject, SchemaRequest(schema=schema_with_fields(existing + 1)))
        assert registered.version == existing + 1
        costs[existing] = len(statements)
    assert costs[100] <= COLD_REGISTRATION_BUDGET[service.storage.engine.dialect.name], costs
    assert costs[10] == costs[100], f"registration cost grows with the number of versions: {costs}"


def test_a_first_version_in_a_new_subject_costs_a_fixed_number_of_statements(service: RegistryService) -> None:
    service.register("warm", SchemaRequest(schema=schema_with_fields(1)))
    with counted(service.storage.engine) as statements:  # type: ignore[attr-defined]
        registered = service.register("brand-new", SchemaRequest(schema=schema_with_fields(2)))
    assert registered.version == 1
    assert len(statements) <= NEW_SUBJECT_BUDGET[service.storage.engine.dialect.name], statements  # type: ignore[attr-defined]


@pytest.mark.parametrize("path", [
    "/schemas/ids/3", "/schemas/ids/3/versions", "/schemas/ids/3/subjects",
    "/subjects/grows/versions/3", "/subjects/grows/versions/latest",
])
def test_warm_reads_are_one_statement(service: RegistryService, app: Any, path: str) -> None:
    seed(service, "grows", 5)
    client = app.test_client()
    assert client.get(path).status_code == 200  # warms the content cache
    service.register("other", SchemaRequest(schema=schema_with_fields(1)))  # a commit: replies must be re-read
    with counted(service.storage.engine) as statements:
        assert client.get(path).status_code == 200
    assert len(statements) == 1, statements


@pytest.mark.parametrize("path", [
    "/schemas/ids/3", "/subjects/grows/versions/3", "/subjects/grows/versions/latest",
])
def test_hot_reads_need_no_statement_until_something_is_committed(
    service: RegistryService, app: Any, path: str
) -> None:
    seed(service, "grows", 5)
    client = app.test_client()
    wait_for_change_token(service)
    first = client.get(path).get_json()
    with counted(service.storage.engine) as statements:
        assert client.get(path).get_json() == first
    assert statements == []
    client.delete("/subjects/grows/versions/3")
    client.delete("/subjects/grows/versions/5")
    after = client.get(path)
    assert after.get_json() != first or after.status_code != 200


def test_a_write_by_another_process_on_this_host_is_seen_at_once(
    service: RegistryService, app: Any, settings: Settings
) -> None:
    """Two services on one database stand for two gunicorn workers: what one commits, the
    other's next read sees, with no stale cached reply in between."""
    seed(service, "grows", 2)
    client = app.test_client()
    assert client.get("/subjects/grows/versions/latest").get_json()["version"] == 2
    with fresh_service(settings) as other:
        other.register("grows", SchemaRequest(schema=schema_with_fields(3)))
    assert client.get("/subjects/grows/versions/latest").get_json()["version"] == 3


class CountingFormat:
    """Delegates to a real format and counts `parse` calls."""

    def __init__(self, inner: SchemaFormat) -> None:
        self.inner = inner
        self.parses = 0

    def parse(self, text: str, dependencies: Any, *, strict: bool = True) -> ParsedSchema:
        self.parses += 1
        return self.inner.parse(text, dependencies, strict=strict)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)


def test_warm_transitive_check_parses_only_the_candidate(
    service: RegistryService, settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    seed(service, "grows", 100)
    with fresh_service(settings) as cold:
        counting = CountingFormat(cold.formats["AVRO"])
        monkeypatch.setitem(cold.formats, "AVRO", counting)
        cold.update_config("grows", {"compatibility": "BACKWARD_TRANSITIVE"})
        candidate = SchemaRequest(schema=schema_with_fields(101))

        assert cold.check_compatibility("grows", None, candidate).is_compatible
        assert counting.parses == 101  # cold: the candidate and each of the 100 stored versions

        counting.parses = 0
        with counted(cold.storage.engine) as statements:
            assert cold.check_compatibility("grows", None, candidate).is_compatible
        assert counting.parses == 1
        assert len(statements) <= 5, statements


@pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)
def test_with_the_hot_read_cache_off_every_read_asks_the_database(settings: Settings) -> None:
    app = create_app(settings.with_overrides(hot_read_cache=False))
    try:
        service = app.extensions["registry"]
        seed(service, "grows", 2)
        client = app.test_client()
        client.get("/subjects/grows/versions/2")
        with counted(service.storage.engine) as statements:
            assert client.get("/subjects/grows/versions/2").status_code == 200
        assert len(statements) == 1
    finally:
        app.extensions["registry"].storage.close()


def test_re_registering_a_held_schema_writes_nothing_and_keeps_cached_replies(service: RegistryService) -> None:
    """Serializers re-register their schema at every start: the answer comes from a read,
    so no write transaction runs and no cached reply on the host is invalidated."""
    first = service.register("again-value", SchemaRequest(schema=schema_with_fields(3)))
    wait_for_change_token(service)
    token = service.storage.change_token()
    with counted(service.storage.engine) as statements:
        again = service.register("again-value", SchemaRequest(schema=schema_with_fields(3)))
    assert (again.id, again.version) == (first.id, first.version)
    assert service.storage.change_token() == token
    assert not any(s.lstrip().upper().startswith(("INSERT", "UPDATE", "DELETE", "BEGIN")) for s in statements)
    assert not any("FOR UPDATE" in s.upper() for s in statements)


def test_a_schema_text_registered_again_is_not_parsed_again(
    service: RegistryService, monkeypatch: pytest.MonkeyPatch
) -> None:
    counting = CountingFormat(service.formats["AVRO"])
    monkeypatch.setitem(service.formats, "AVRO", counting)
    request = SchemaRequest(schema=schema_with_fields(3))
    first = service.register("again", request)
    parses = counting.parses

    for _ in range(3):
        assert service.register("again", request).id == first.id

    assert parses >= 1 and counting.parses == parses


def test_a_re_registration_is_answered_without_a_statement_until_something_is_committed(
    service: RegistryService,
) -> None:
    request = SchemaRequest(schema=schema_with_fields(3))
    first = service.register("restart-value", request)
    wait_for_change_token(service)
    service.register("restart-value", request)
    with counted(service.storage.engine) as statements:
        again = service.register("restart-value", request)
    assert statements == []
    assert (again.id, again.version) == (first.id, first.version)

    service.delete_version("restart-value", "1")
    after_delete = service.register("restart-value", request)
    assert (after_delete.id, after_delete.version) == (first.id, 2)
