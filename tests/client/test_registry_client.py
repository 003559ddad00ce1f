"""`RegistryClient`'s REST calls against the registry under gunicorn (SQLite and PostgreSQL):
what each call returns, the typed errors, and what the caches keep or drop.

The server is shared by the session, so every test works in subjects of its own and changes
config and mode only at subject level.
"""
from __future__ import annotations

import json
import pickle

import pytest
from support.client_samples import USER_V1, USER_V2

from app.client import (
    IncompatibleSchema,
    InvalidSchema,
    RegistryClient,
    Schema,
    SchemaNotFound,
    SubjectNotFound,
    VersionNotFound,
)
from app.client.errors import OperationNotPermitted, RegistryRequestError
from app.client.records import SubjectVersion

NOT_BACKWARD = '{"type":"record","name":"User","namespace":"com.example","fields":[{"name":"email","type":"string"}]}'


@pytest.fixture
def registry(live_server: str) -> RegistryClient:
    return RegistryClient(live_server, retries=0)


def error_of(call) -> RegistryRequestError:
    with pytest.raises(RegistryRequestError) as caught:
        call()
    return caught.value


def own(text: str, subject: str) -> str:
    """`text` with a doc naming the subject: a schema (and id) no other test on the shared server holds."""
    return json.dumps(dict(json.loads(text), doc=subject))


def test_register_lookup_and_read_back(registry, unique_subject):
    subject = unique_subject()
    first = registry.register(subject, own(USER_V1, subject))
    second = registry.register(subject, own(USER_V2, subject))
    assert (first.subject, first.version, second.version) == (subject, 1, 2)
    assert second.schema_id > first.schema_id

    fresh = RegistryClient(registry.urls)
    assert fresh.lookup(subject, own(USER_V1, subject)).version == 1
    assert fresh.get_schema(first.schema_id).text == first.schema.text
    assert fresh.get_version(subject, 2).schema_id == second.schema_id
    assert fresh.get_version(subject, "latest") == fresh.get_latest_version(subject)
    assert fresh.get_versions(subject) == [1, 2]
    assert subject in fresh.get_subjects()
    assert fresh.get_subjects_for_id(first.schema_id) == [subject]
    assert fresh.get_versions_for_id(second.schema_id) == [SubjectVersion(subject, 2)]
    assert "AVRO" in fresh.get_schema_types()
    assert "." in fresh.get_contexts()


@pytest.mark.parametrize("call, error, code, status", [
    (lambda c, s: c.get_schema(2_000_000_000), SchemaNotFound, 40403, 404),
    (lambda c, s: c.get_versions(s + "-missing"), SubjectNotFound, 40401, 404),
    (lambda c, s: c.get_version(s, 9), VersionNotFound, 40402, 404),
    (lambda c, s: c.lookup(s, '"string"'), SchemaNotFound, 40403, 404),
    (lambda c, s: c.register(s, '{"type": "record"'), InvalidSchema, 42201, 422),
    (lambda c, s: c.register(s, NOT_BACKWARD), IncompatibleSchema, 40901, 409),
    (lambda c, s: c.get_version(s, "zero"), RegistryRequestError, 42202, 422),
    (lambda c, s: c.get_version(s, 0), RegistryRequestError, 42202, 422),
])
def test_failures_raise_typed_errors_with_code_and_status(registry, unique_subject, call, error, code, status):
    subject = unique_subject()
    registry.register(subject, USER_V1)
    with pytest.raises(error) as caught:
        call(registry, subject)
    assert (caught.value.error_code, caught.value.http_status) == (code, status)


def test_compatibility_checks_against_all_versions_or_one(registry, unique_subject):
    subject = unique_subject()
    registry.register(subject, USER_V1)
    assert registry.test_compatibility(subject, USER_V2).is_compatible
    verdict = registry.test_compatibility(subject, NOT_BACKWARD, verbose=True)
    assert not verdict.is_compatible
    assert any("READER_FIELD_MISSING_DEFAULT_VALUE" in message for message in verdict.messages)
    assert not registry.test_compatibility(subject, NOT_BACKWARD, version="latest").is_compatible
    assert registry.test_compatibility(subject + "-new", NOT_BACKWARD).is_compatible


def test_subject_config_set_read_and_delete(registry, unique_subject):
    subject = unique_subject()
    registry.register(subject, USER_V1)
    assert error_of(lambda: registry.get_config(subject)).error_code == 40408
    assert registry.set_config(subject, compatibility="NONE").compatibility_level == "NONE"
    assert registry.get_config(subject).compatibility_level == "NONE"  # the set dropped the cached answer
    assert registry.get_compatibility_level(subject) == "NONE"
    assert registry.register(subject, NOT_BACKWARD).version == 2
    assert registry.delete_config(subject).compatibility_level == "NONE"
    assert registry.get_compatibility_level(subject) == registry.get_config().compatibility_level


def test_subject_mode_set_read_and_delete(registry, unique_subject):
    subject = unique_subject()
    registry.register(subject, USER_V1)
    assert registry.set_mode("READONLY", subject) == "READONLY"
    assert registry.get_mode(subject) == "READONLY"
    with pytest.raises(OperationNotPermitted):
        registry.register(subject, USER_V2)
    assert registry.delete_mode(subject) == "READONLY"
    assert registry.get_mode(subject, default_to_global=True) == registry.get_mode()


def test_deletes_drop_the_subjects_cached_answers(registry, unique_subject):
    subject = unique_subject()
    first = registry.register(subject, USER_V1)
    registry.register(subject, USER_V2)
    assert registry.delete_version(subject, 2) == 2
    assert registry.get_latest_version(subject).version == 1
    assert registry.delete_subject(subject) == [1]
    with pytest.raises(SubjectNotFound):
        registry.get_versions(subject)
    # The register cache was dropped, so this reaches the server and recreates the subject.
    again = registry.register(subject, USER_V1)
    assert again.schema_id == first.schema_id and registry.get_versions(subject) == [again.version]
    assert registry.get_schema(first.schema_id).text == first.schema.text  # ids outlive soft deletes
    assert registry.delete_subject(subject) == [again.version]
    assert again.version in registry.delete_subject(subject, permanent=True)
    assert subject not in registry.get_subjects(deleted=True)


def test_references_are_sent_and_read_back(registry, unique_subject):
    from app.client import SchemaReference

    base = unique_subject("base")
    registry.register(base, '{"type":"record","name":"Base","namespace":"x","fields":[{"name":"a","type":"int"}]}')
    outer = Schema('{"type":"record","name":"Outer","namespace":"x","fields":[{"name":"b","type":"x.Base"}]}',
                   references=(SchemaReference("x.Base", base, 1),))
    registered = registry.register(unique_subject("outer"), outer)
    fetched = RegistryClient(registry.urls).get_schema(registered.schema_id)
    assert fetched.references == outer.references
    assert registry.get_referenced_by(base, 1) == [registered.schema_id]


def test_a_pickled_client_keeps_its_settings_and_starts_with_empty_caches(registry, unique_subject):
    subject = unique_subject()
    schema_id = registry.register(subject, USER_V1).schema_id
    copy = pickle.loads(pickle.dumps(RegistryClient(registry.urls, auth=("u", "p"), timeout=3, retries=1)))
    assert copy.urls == registry.urls and copy.transport.timeout == 3 and copy.transport.policy.retries == 1
    assert len(copy._schemas) == 0
    assert copy.get_schema(schema_id).text == registry.get_schema(schema_id).text
