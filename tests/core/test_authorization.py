"""The service asks its authorizer about the subject an operation really touches (after
aliases, the other-context fallback, for each holder of an id and each referenced subject)
and filters listings; every committed write is reported to the events sink."""
from __future__ import annotations

import json
from collections.abc import Iterator

import pytest

from app.core.access import ANONYMOUS, Action, Principal, WriteEvent
from app.core.errors import Forbidden, SchemaNotFound
from app.core.registry import RegistryService
from app.core.types import SchemaRequest
from app.settings import Settings
from app.wiring import build_registry

from support.authorizers import DenySecret

ALICE = Principal("alice")


def record(name: str, *fields: str) -> str:
    return json.dumps({"type": "record", "name": name, "fields": [
        {"name": f, "type": "string", "default": ""} for f in fields]})


@pytest.fixture
def denying(settings: Settings) -> Iterator[tuple[RegistryService, RegistryService, DenySecret, list[WriteEvent]]]:
    """The same database served twice: an open service (to set things up) and a guarded one."""
    open_service = build_registry(settings)
    authorizer, events = DenySecret(), []
    guarded = build_registry(settings, authorizer=authorizer, events=events.append)
    yield open_service, guarded, authorizer, events
    open_service.storage.close()  # type: ignore[attr-defined]
    guarded.storage.close()  # type: ignore[attr-defined]


def test_an_alias_is_authorized_as_the_subject_it_stands_for(denying) -> None:
    admin, service, authorizer, _ = denying
    admin.register("secret-value", SchemaRequest(schema=record("A", "a")))
    admin.update_config("public-alias", {"alias": "secret-value"})
    with pytest.raises(Forbidden):
        service.get_version("public-alias", "1", principal=ALICE)
    assert ("alice", Action.READ, "secret-value") in authorizer.checked


def test_an_id_held_only_by_a_forbidden_subject_is_unknown(denying) -> None:
    admin, service, _, _ = denying
    hidden = admin.register("secret-value", SchemaRequest(schema=record("A", "a")))
    shared = admin.register("secret-other", SchemaRequest(schema=record("B", "b")))
    admin.register("public-value", SchemaRequest(schema=record("B", "b")))
    with pytest.raises(SchemaNotFound):
        service.schema_by_id(hidden.id, principal=ALICE)
    found = service.schema_by_id(shared.id, principal=ALICE)
    assert found.holder is not None and found.holder.subject == "public-value"
    assert [p.subject for p in service.versions_for_id(shared.id, principal=ALICE)] == ["public-value"]


def test_listings_leave_out_forbidden_subjects(denying) -> None:
    admin, service, _, _ = denying
    for name in ("secret-a", "public-a", "public-b"):
        admin.register(name, SchemaRequest(schema=record("A", "a")))
    assert service.list_subjects(principal=ALICE) == ["public-a", "public-b"]
    assert sorted({item.version.subject for item in service.list_schemas(principal=ALICE)}) == ["public-a", "public-b"]


def test_a_reference_to_a_forbidden_subject_is_refused(denying) -> None:
    admin, service, _, _ = denying
    admin.register("secret-type", SchemaRequest(schema=record("Inner", "x")))
    outer = json.dumps({"type": "record", "name": "Outer", "fields": [{"name": "i", "type": "Inner"}]})
    request = SchemaRequest(schema=outer, references=[{"name": "Inner", "subject": "secret-type", "version": 1}])
    with pytest.raises(Forbidden):
        service.register("public-outer", request, principal=ALICE)
    assert admin.list_subjects() == ["secret-type"]


def test_the_other_context_fallback_skips_forbidden_subjects(denying) -> None:
    admin, service, _, _ = denying
    admin.register(":.secret:value", SchemaRequest(schema=record("A", "a")))
    admin.register(":.team:value", SchemaRequest(schema=record("B", "b")))
    found = service.get_version("value", "1", principal=ALICE)
    assert found.subject == ":.team:value"


def test_a_forbidden_write_changes_nothing_and_emits_nothing(denying) -> None:
    _, service, _, events = denying
    with pytest.raises(Forbidden) as raised:
        service.register("secret-value", SchemaRequest(schema=record("A", "a")), principal=ALICE)
    assert (raised.value.http_status, raised.value.error_code) == (403, 40301)
    assert service.list_subjects() == [] and events == []


def test_each_committed_write_is_reported_with_its_caller(denying) -> None:
    _, service, _, events = denying
    registered = service.register("public-value", SchemaRequest(schema=record("A", "a")), principal=ALICE)
    service.update_config("public-value", {"compatibility": "NONE"}, principal=ALICE)
    service.delete_version("public-value", "1", principal=ALICE)
    assert [(e.operation, e.subject, e.principal) for e in events] == [
        ("register", "public-value", ALICE),
        ("update_config", "public-value", ALICE),
        ("delete_version", "public-value", ALICE),
    ]
    assert events[0].schema_id == registered.id and events[0].versions == (1,)
    assert events[2].versions == (1,)


def test_the_default_service_allows_the_anonymous_caller(service: RegistryService) -> None:
    registered = service.register("secret-value", SchemaRequest(schema=record("A", "a")))
    assert service.schema_by_id(registered.id, principal=ANONYMOUS).schema.id == registered.id
