"""`validateFields=true`: the `confluent:reserved` metadata rules.

A reserved name may not be dropped from the list the newest live version carries, and may not
be a top-level field of the new schema. The messages are Confluent's, they come before the
format's own, and one `{validateFields: 'true', ...}` trailer closes the list.
"""
from __future__ import annotations

from typing import Any

import pytest

from api_client import Api
from api_samples import RECORD_INT, RECORD_V1, RECORD_V2, field, record

TRAILER = "{validateFields: 'true', compatibility: 'BACKWARD'}"


def reserving(names: str) -> dict[str, Any]:
    return {"properties": {"confluent:reserved": names}}


def removed(name: str) -> str:
    return (
        f"The new schema has reserved field {name} removed from its metadata which is present "
        "in the old schema's metadata."
    )


def conflicts(name: str) -> str:
    return f"The new schema has field that conflicts with the reserved field {name}."


@pytest.fixture
def validating(api: Api) -> Api:
    api.set_config(validateFields=True)
    return api


def test_dropping_a_reserved_name_is_incompatible(validating: Api) -> None:
    validating.registered("s", RECORD_V1, metadata=reserving("zip, code"))
    reply = validating.register("s", RECORD_V2, metadata=reserving("code"))
    assert reply.status == 409 and reply.error_code == 40901
    assert reply.json["message"] == (
        'Schema being registered is incompatible with an earlier schema for subject "s", '
        f"details: [{removed('zip')}, {TRAILER}]"
    )


def test_a_reserved_name_cannot_be_a_top_level_field(validating: Api) -> None:
    reply = validating.register("s", RECORD_V1, metadata=reserving("f1"))
    assert reply.status == 409, reply
    assert f"[{conflicts('f1')}, {TRAILER}]" in reply.json["message"]


def test_reserved_rules_apply_even_at_level_none(validating: Api) -> None:
    validating.set_config("s", compatibility="NONE", validateFields=True)
    reply = validating.register("s", RECORD_V1, metadata=reserving("f1"))
    assert reply.status == 409
    assert reply.json["message"].endswith(f"[{conflicts('f1')}, {{validateFields: 'true', compatibility: 'NONE'}}]")


def test_nested_and_absent_names_do_not_conflict(validating: Api) -> None:
    inner = {"type": "record", "name": "Inner", "fields": [field("secret", "string")]}
    nested = record("Outer", [field("inner", inner)])
    assert validating.register("s", nested, metadata=reserving("secret, unused")).status == 200


def test_a_version_without_metadata_inherits_the_reserved_list(validating: Api) -> None:
    validating.registered("s", RECORD_V1, metadata=reserving("zip"))
    body = validating.registered("s", RECORD_V2)
    assert body["metadata"]["properties"]["confluent:reserved"] == "zip"


def test_without_validate_fields_reserved_names_are_not_checked(api: Api) -> None:
    api.registered("s", RECORD_V1, metadata=reserving("zip"))
    assert api.register("s", RECORD_V2, metadata=reserving("f1")).status == 200


def test_force_skips_the_reserved_rules(validating: Api) -> None:
    assert validating.register("s", RECORD_V1, metadata=reserving("f1"), params={"force": "true"}).status == 200


def test_reserved_messages_come_before_the_formats_own(validating: Api) -> None:
    validating.registered("s", RECORD_V1, metadata=reserving("zip"))
    reply = validating.post("/compatibility/subjects/s/versions", {"schema": RECORD_INT, "metadata": reserving("f1")},
                            verbose="true")
    messages = reply.json["messages"]
    assert reply.json["is_compatible"] is False
    assert messages[:2] == [removed("zip"), conflicts("f1")]
    assert messages[2].startswith("{errorType:'TYPE_MISMATCH'")
    assert messages[3] == "{oldSchemaVersion: 1}"
    assert messages[-1] == TRAILER and len(messages) == 6


def test_compatibility_check_against_one_version_uses_that_versions_list(validating: Api) -> None:
    validating.registered("s", RECORD_V1, metadata=reserving("zip, code"))
    validating.registered("s", RECORD_V2, metadata=reserving("code"), params={"force": "true"})
    body = {"schema": RECORD_V2, "metadata": reserving("code")}
    assert validating.post("/compatibility/subjects/s/versions/2", body).json == {"is_compatible": True}
    one = validating.post("/compatibility/subjects/s/versions/1", body, verbose="true").json
    assert one == {"is_compatible": False, "messages": [removed("zip"), TRAILER]}


def test_subject_config_inherits_validate_fields_from_the_global_config(validating: Api) -> None:
    validating.set_config("s", compatibility="BACKWARD")
    assert validating.register("s", RECORD_V1, metadata=reserving("f1")).status == 409
