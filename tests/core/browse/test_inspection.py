"""The browser's views of a subject through `RegistryService`: the settings in force with
their source, the diff of two versions with its verdict under the effective level, and a
candidate checked as registration would check it (nothing written)."""
from __future__ import annotations

import json
from typing import Any

import pytest

from app.core.errors import InvalidSchema, SubjectNotFound, VersionNotFound
from app.core.registry import RegistryService
from app.core.types import SchemaRequest


def record(*extra: dict[str, Any]) -> str:
    return json.dumps({"type": "record", "name": "Order", "fields": [{"name": "id", "type": "long"}, *extra]})


V1 = record()
V2 = record({"name": "note", "type": "string", "default": ""})
V3 = record({"name": "note", "type": "string", "default": ""}, {"name": "qty", "type": "int", "default": 0})
NEEDS_AMOUNT = record({"name": "amount", "type": "int"})


def seed(service: RegistryService, subject: str, *schemas: str) -> None:
    for schema in schemas:
        service.register(subject, SchemaRequest(schema=schema))


def settings_of(service: RegistryService, subject: str) -> tuple[str, str, str, str]:
    found = service.browse.effective_settings(subject)
    return found.compatibility.value, found.compatibility.source, found.mode.value, found.mode.source


def test_settings_report_where_they_come_from(service: RegistryService) -> None:
    seed(service, "s", V1)
    seed(service, ":.ctx:t", V1)
    assert settings_of(service, "s") == ("BACKWARD", "default", "READWRITE", "default")

    service.update_config(None, {"compatibility": "FULL"})
    service.update_mode(":.ctx:", "READONLY")
    assert settings_of(service, "s") == ("FULL", "global", "READWRITE", "default")
    assert settings_of(service, ":.ctx:t") == ("BACKWARD", "default", "READONLY", "context")

    service.update_config("s", {"compatibility": "NONE"})
    assert settings_of(service, "s")[:2] == ("NONE", "subject")


def test_a_subject_config_without_a_level_takes_the_server_default(service: RegistryService) -> None:
    """As in Confluent, the subject's row wins as a whole, so the global FULL does not apply."""
    seed(service, "s", V1)
    service.update_config(None, {"compatibility": "FULL"})
    service.update_config("s", {"normalize": True})

    found = service.browse.effective_settings("s")

    assert (found.compatibility.value, found.compatibility.source) == ("BACKWARD", "default")
    assert found.config["normalize"] is True


def test_a_global_read_only_override_beats_the_subject_mode(service: RegistryService) -> None:
    seed(service, "s", V1)
    service.update_mode("s", "READWRITE")
    service.update_mode(None, "READONLY_OVERRIDE")

    assert settings_of(service, "s")[2:] == ("READONLY_OVERRIDE", "global")


def test_diff_defaults_to_previous_and_latest_with_the_verdict_under_the_level(service: RegistryService) -> None:
    seed(service, "s", V1, V2, V3)

    found = service.browse.diff("s")

    assert (found.old.version, found.new.version, found.versions) == (2, 3, (1, 2, 3))
    assert [(r.change, r.path) for r in found.diff.rows] == [("added", "qty")]
    assert found.diff.backward.ok and found.diff.forward.ok
    assert (found.verdict.level, found.verdict.checked, found.verdict.compatible) == ("BACKWARD", True, True)
    assert (found.verdict.compared, found.verdict.registration_compares) == ((2,), (3,))
    assert '"name": "qty"' in found.new_text  # indented for a line diff


def test_diff_of_any_two_versions_includes_soft_deleted_ones(service: RegistryService) -> None:
    seed(service, "s", V1, V2, V3)
    service.delete_version("s", "2")

    found = service.browse.diff("s", "2", "latest")

    assert found.old.deleted and (found.old.version, found.new.version) == (2, 3)
    assert service.browse.diff("s").old.version == 1  # the default skips the soft-deleted one


def test_diff_verdict_follows_the_subject_level(service: RegistryService) -> None:
    service.update_config("s", {"compatibility": "NONE"})
    seed(service, "s", V1, NEEDS_AMOUNT)

    unchecked = service.browse.diff("s")
    assert not unchecked.verdict.checked and unchecked.verdict.compatible and unchecked.verdict.compared == ()
    assert not unchecked.diff.backward.ok  # the directions are still answered

    service.update_config("s", {"compatibility": "BACKWARD_TRANSITIVE"})
    checked = service.browse.diff("s")
    assert checked.verdict.source == "subject" and not checked.verdict.compatible
    assert checked.verdict.registration_compares == (2, 1)
    assert any("READER_FIELD_MISSING_DEFAULT_VALUE" in m for m in checked.verdict.messages)
    (row,) = checked.diff.rows
    assert (row.change, row.path, [r.direction for r in row.reasons]) == ("added", "amount", ["backward"])


def test_diff_of_two_schema_types_explains_itself(service: RegistryService) -> None:
    service.update_config("s", {"compatibility": "NONE"})
    seed(service, "s", V1)
    service.register("s", SchemaRequest(schema='{"type": "object"}', schema_type="JSON"))

    found = service.browse.diff("s")

    assert not found.diff.comparable and found.diff.rows == ()
    assert "AVRO and JSON" in (found.diff.explanation or "")


def test_diff_refuses_unknown_subjects_and_versions(service: RegistryService) -> None:
    seed(service, "s", V1, V2)
    with pytest.raises(SubjectNotFound):
        service.browse.diff("nobody")
    with pytest.raises(VersionNotFound):
        service.browse.diff("s", "1", "9")


def test_a_candidate_is_checked_as_registration_would_check_it(service: RegistryService) -> None:
    service.update_config("s", {"compatibility": "FORWARD_TRANSITIVE"})
    seed(service, "s", V1, V2)
    candidate = SchemaRequest(schema=record({"name": "note", "type": "int", "default": 0}))

    found = service.browse.check_candidate("s", candidate)

    api = service.check_compatibility("s", None, candidate, verbose=True)
    assert found.verdict.compatible is api.is_compatible is False
    assert list(found.verdict.messages) == api.messages
    assert found.verdict.compared == (2, 1) and found.latest_version == 2
    assert [(v.version, v.compatible) for v in found.versions] == [(2, False), (1, True)]
    assert [(r.change, r.path) for r in found.diff.rows] == [("changed", "note")]  # type: ignore[union-attr]
    assert service.browse.browse_subjects().items[0].versions == 2  # nothing written


def test_a_candidate_against_one_version(service: RegistryService) -> None:
    seed(service, "s", V1, V2)

    found = service.browse.check_candidate("s", SchemaRequest(schema=NEEDS_AMOUNT), version="1")

    assert found.verdict.compared == (1,) and not found.verdict.compatible
    with pytest.raises(InvalidSchema):
        service.browse.check_candidate("s", SchemaRequest(schema="{not json"))
