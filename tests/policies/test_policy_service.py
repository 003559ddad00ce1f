"""`PolicyService` takes the caller as the other service operations do (`principal=`, and
`origin=` for writes): it asks the service's authorizer about the scope each operation
touches, writes the audit row as that caller and reports each committed write."""
from __future__ import annotations

from collections.abc import Iterator

import pytest
from policy_samples import NON_COMPLIANT

from app.core.access import Action, Principal, WriteEvent
from app.core.errors import Forbidden
from app.core.registry import RegistryService
from app.core.store.audit import AuditQuery, Origin
from app.core.types import SchemaRequest
from app.settings import Settings
from app.wiring import build_registry

from support.authorizers import DenySecret

ALICE = Principal("alice", method="basic")
DOCUMENT = {"sets": {"docs": {"rules": [{"rule": "doc-required"}]}}, "default": []}


@pytest.fixture
def guarded(settings: Settings) -> Iterator[tuple[RegistryService, DenySecret, list[WriteEvent]]]:
    authorizer, events = DenySecret(), []
    service = build_registry(settings, authorizer=authorizer, events=events.append)
    yield service, authorizer, events
    service.storage.close()  # type: ignore[attr-defined]


def test_each_operation_asks_about_its_own_scope_as_the_caller(guarded) -> None:
    service, authorizer, _ = guarded
    policies = service.policies
    policies.put_global(DOCUMENT, principal=ALICE)
    policies.get_global(principal=ALICE)
    policies.put_selection(":.ops:", {"use": ["docs"]}, principal=ALICE)
    policies.get_selection(":.ops:orders-value", default_to_global=True, principal=ALICE)
    policies.check("orders-value", SchemaRequest(schema=NON_COMPLIANT), principal=ALICE)
    policies.delete_selection(":.ops:", principal=ALICE)
    assert authorizer.checked == [
        ("alice", Action.WRITE_CONFIG, ""), ("alice", Action.READ_CONFIG, ""),
        ("alice", Action.WRITE_CONFIG, ":.ops:"), ("alice", Action.READ_CONFIG, ":.ops:orders-value"),
        ("alice", Action.READ, "orders-value"), ("alice", Action.WRITE_CONFIG, ":.ops:"),
    ]


def test_a_refused_write_changes_nothing(guarded) -> None:
    service, _, events = guarded
    with pytest.raises(Forbidden):
        service.policies.put_selection("secret-value", {"use": []}, principal=ALICE)
    assert service.policies.get_global() == {"sets": {}, "default": []} and events == []
    assert service.storage.audit_events(AuditQuery()) == []


def test_a_write_is_audited_as_its_caller_and_reported(guarded) -> None:
    service, _, events = guarded
    origin = Origin(remote_addr="192.0.2.7", user_agent="test", method="PUT", path="/policies")
    service.policies.put_global(DOCUMENT, principal=ALICE, origin=origin)
    service.policies.delete_global(principal=ALICE, origin=origin)
    rows = service.storage.audit_events(AuditQuery())
    assert [(r.entry.action, r.entry.principal, r.entry.origin.remote_addr) for r in reversed(rows)] == [
        ("SET_POLICY", "alice", "192.0.2.7"), ("DELETE_POLICY", "alice", "192.0.2.7")]
    assert [(e.action, e.operation, e.subject, e.principal) for e in events] == [
        (Action.WRITE_CONFIG, "update_policy", "", ALICE), (Action.WRITE_CONFIG, "delete_policy", "", ALICE)]


def test_settings_and_policy_documents_come_in_one_statement(service: RegistryService) -> None:
    """Registration reads the subject's settings rows and the documents deciding its policy
    together; a document counts whether or not a settings row exists at its key."""
    from support.statements import counted

    from app.core.policies import policy_keys

    service.update_config("orders-value", {"compatibility": "NONE"})
    service.policies.put_global(DOCUMENT)
    service.policies.put_selection("orders-value", {"use": ["docs"]})
    service.policies.put_selection(":.:", {"use": []})  # the default context's own selection
    keys = [(".", "orders-value"), (".", ""), ("other", "x")]
    with service.storage.read() as store, counted(service.storage.engine) as statements:  # type: ignore[attr-defined]
        read = store.settings_and_policies(keys, policy_keys(".", "orders-value"))
    assert len(statements) == 1
    assert set(read.rows) == {(".", "orders-value")} and read.rows[(".", "orders-value")].config == {
        "compatibility": "NONE"}
    assert read.policies == {(".", "orders-value"): {"use": ["docs"], "rules": []}, (".", ""): {"use": [], "rules": []},
                             ("", ""): service.policies.get_global()}
    with service.storage.read() as store:
        assert store.settings_and_policies(keys, []) == (store.settings_rows(keys), {})
