"""`Store.add_version`: a registration's writes, one statement on PostgreSQL and one per row on
SQLite, must leave the same rows behind, in the caller's transaction, on both databases."""
from __future__ import annotations

from collections.abc import Iterator

import pytest
from sqlalchemy import text

from app.core.errors import WriteConflict
from app.core.records import SchemaReference
from app.core.store.audit import AuditEntry, NO_ORIGIN
from app.core.store.browse import IndexedName
from app.core.store.rows import NewSchema, NewVersion, ResolvedReference
from app.storage.repository import Repository


@pytest.fixture
def repository(database_url: str) -> Iterator[Repository]:
    repository = Repository.from_url(database_url)
    yield repository
    repository.close()


def content(text_: str, digest: str, context: str = ".", **extra: object) -> NewSchema:
    return NewSchema(context, None, digest, "AVRO", text_, extra.pop("references", []),  # type: ignore[arg-type]
                     None, None, **extra)  # type: ignore[arg-type]


def audit_entry(subject: str, version: int) -> AuditEntry:
    return AuditEntry(action="REGISTER", principal="anonymous", auth_method="none", origin=NO_ORIGIN,
                      context=".", subject=subject, version=version)


def rows(repository: Repository, query: str) -> list[tuple[object, ...]]:
    with repository.engine.connect() as conn:
        return [tuple(r) for r in conn.execute(text(query))]


def test_new_content_lands_with_every_row_it_brings(repository: Repository) -> None:
    with repository.write() as store:
        referenced = store.lock_subject(".", "base").row
        base = store.add_version(NewVersion(referenced.id, 1, None, content('"string"', "b" * 32), None))
        subject = store.lock_subject(".", "user").row
        reference = ResolvedReference(SchemaReference("Base", "base", 1), ".", "base")
        added = store.add_version(NewVersion(
            subject.id, 1, None,
            content('{"type":"record","name":"U","fields":[]}', "a" * 32, references=[reference],
                    fingerprints={"CRC-64-AVRO": "0" * 16, "MD5": "1" * 32},
                    index=[IndexedName("type", "U", "U", "record", None)]),
            audit_entry(":.:user", 1),
        ))
    assert added.written and added.key.id == base.key.id + 1
    assert rows(repository, f"SELECT name, ref_subject, ref_version FROM schema_references "
                            f"WHERE schema_pk = {added.key.pk}") == [("Base", "base", 1)]
    assert sorted(rows(repository, f"SELECT algorithm FROM schema_fingerprints WHERE schema_pk = {added.key.pk}")) \
        == [("CRC-64-AVRO",), ("MD5",)]
    assert rows(repository, f"SELECT name, type_label FROM schema_fields WHERE schema_pk = {added.key.pk}") \
        == [("U", "record")]
    assert rows(repository, f"SELECT latest_version FROM subjects WHERE id = {subject.id}") == [(1,)]
    assert rows(repository, "SELECT subject, version, schema_id FROM audit_events") == [(":.:user", 1, added.key.id)]


def test_content_the_context_holds_is_answered_and_nothing_is_written(repository: Repository) -> None:
    with repository.write() as store:
        first = store.lock_subject(".", "first").row
        stored = store.add_version(NewVersion(first.id, 1, None, content('"int"', "c" * 32), None))
        second = store.lock_subject(".", "second").row
        again = store.add_version(NewVersion(second.id, 1, None, content('"int"', "c" * 32),
                                             audit_entry(":.:second", 1), unless_held=True))
    assert (again.written, again.key) == (False, stored.key)
    assert rows(repository, f"SELECT count(*) FROM subject_versions WHERE subject_id = {second.id}") == [(0,)]
    assert rows(repository, "SELECT count(*) FROM schemas") == [(1,)]
    assert rows(repository, "SELECT count(*) FROM audit_events") == [(0,)]


def test_a_version_of_held_content_and_a_named_context_draw_ids_as_before(repository: Repository) -> None:
    with repository.write() as store:
        subject = store.lock_subject(".other", "s").row
        added = store.add_version(NewVersion(subject.id, 1, None, content('"long"', "d" * 32, ".other"), None,
                                             unless_held=True))
        reused = store.add_version(NewVersion(subject.id, 3, added.key, None, audit_entry(":.other:s", 3)))
    assert (added.key.context, added.key.id) == (".other", 1)
    assert reused.written and reused.key == added.key
    assert rows(repository, f"SELECT version FROM subject_versions WHERE subject_id = {subject.id} ORDER BY 1") \
        == [(1,), (3,)]
    assert rows(repository, f"SELECT latest_version FROM subjects WHERE id = {subject.id}") == [(3,)]
    assert rows(repository, "SELECT version, schema_id FROM audit_events") == [(3, 1)]


def test_a_failure_of_any_part_leaves_nothing(repository: Repository) -> None:
    with repository.write() as store:
        subject_id = store.lock_subject(".", "kept").row.id
    with pytest.raises(WriteConflict):  # the unique (subject, version) key, as the core retries it
        with repository.write() as store:
            store.add_version(NewVersion(subject_id, 1, None, content('"bytes"', "e" * 32), None))
            store.add_version(NewVersion(subject_id, 1, None, content('"float"', "f" * 32), None))  # same version
    assert rows(repository, "SELECT count(*) FROM schemas") == [(0,)]
    assert rows(repository, "SELECT count(*) FROM subject_versions") == [(0,)]
