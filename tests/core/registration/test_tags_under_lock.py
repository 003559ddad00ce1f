"""The tags flow derives its version under the subject's lock (`Registrar.register`'s
`prepare` hook): a registration that lands while a tag request is in flight is seen by it.

The race is made deterministic by slipping a registration in at the last moment the old
two-transaction flow left open: after the request arrived, before registration's write
transaction begins.
"""
from __future__ import annotations

import json
from typing import Any, Callable

import pytest

from app.core.errors import SubjectNotFound
from app.core.registry import RegistryService
from app.core.registration.tags import TagRequest
from app.core.types import SchemaRequest
from app.formats.base import RECORD_ENTITY, EntityTags


def rule(name: str) -> dict[str, Any]:
    return {"name": name, "kind": "CONDITION", "mode": "WRITE", "type": "CEL", "expr": "true"}


def record(*fields: str) -> str:
    return json.dumps({"type": "record", "name": "Rec", "fields": [
        {"name": f, "type": "string", "default": ""} for f in fields]})


def slip_in(service: RegistryService, monkeypatch: pytest.MonkeyPatch, subject: str, request: SchemaRequest) -> None:
    """Make the next derived registration (the tags endpoint) start with `request` registered
    under `subject` first."""
    original: Callable[..., Any] = service.registrar.register_derived

    def racing(*args: Any, **kwargs: Any) -> Any:
        monkeypatch.setattr(service.registrar, "register_derived", original)
        service.registrar.register(subject, request, False, False, None)
        return original(*args, **kwargs)

    monkeypatch.setattr(service.registrar, "register_derived", racing)


def rule_names(rule_set: dict[str, Any] | None) -> list[str]:
    return [r["name"] for r in (rule_set or {}).get("domainRules", [])]


def test_rules_merge_into_the_version_current_under_the_lock(
    service: RegistryService, monkeypatch: pytest.MonkeyPatch
) -> None:
    service.register("s", SchemaRequest(schema=record("a"), rule_set={"domainRules": [rule("first")]}))
    slip_in(service, monkeypatch, "s", SchemaRequest(schema=record("a"), rule_set={"domainRules": [rule("second")]}))
    derived = service.modify_tags("s", "1", TagRequest(rules_to_merge={"domainRules": [rule("merged")]}))
    assert derived.version == 3
    assert rule_names(derived.schema.rule_set) == ["second", "merged"]


def test_latest_names_the_version_current_under_the_lock(
    service: RegistryService, monkeypatch: pytest.MonkeyPatch
) -> None:
    service.register("s", SchemaRequest(schema=record("a")))
    slip_in(service, monkeypatch, "s", SchemaRequest(schema=record("a", "b")))
    tagged = EntityTags("Rec", RECORD_ENTITY, ("PII",))
    derived = service.modify_tags("s", "latest", TagRequest(tags_to_add=(tagged,)))
    assert derived.version == 3
    assert [f["name"] for f in json.loads(derived.schema.schema)["fields"]] == ["a", "b"]
    assert json.loads(derived.schema.schema)["confluent:tags"] == ["PII"]


def test_a_missing_base_version_is_reported_before_registrations_name_rules(service: RegistryService) -> None:
    """Confluent looks the base version up first: a name registration alone refuses (the
    global context) still answers 40401, and the failed attempt leaves no subject behind."""
    with pytest.raises(SubjectNotFound):
        service.modify_tags(":.__GLOBAL:s", "1", TagRequest())
    with service.storage.read() as store:
        assert store.subject(".__GLOBAL", "s") is None


def test_through_an_alias_the_target_is_tagged(service: RegistryService) -> None:
    service.register("target", SchemaRequest(schema=record("a")))
    service.update_config("alias", {"alias": "target"})
    derived = service.modify_tags("alias", "1", TagRequest(rule_set={"domainRules": [rule("r")]}))
    assert (derived.subject, derived.version) == ("target", 2)
    assert service.list_versions("target") == [1, 2]
