"""`POST /compatibility/subjects/{s}/versions[/{v}]`: which versions each level compares."""
from __future__ import annotations

import pytest

from api_client import Api, enc
from api_samples import INVALID, RECORD_INT, RECORD_V1, RECORD_V2


def check(api: Api, subject: str, version: str | None, schema: str, **params: str):
    path = f"/compatibility/subjects/{enc(subject)}/versions" + (f"/{version}" if version is not None else "")
    return api.post(path, {"schema": schema}, **params)


@pytest.mark.parametrize("version", [None, "latest", "1", "-1"])
@pytest.mark.parametrize("schema, compatible", [(RECORD_V2, True), (RECORD_INT, False)],
                         ids=["adds-default", "type-change"])
def test_verdict(api: Api, version: str | None, schema: str, compatible: bool) -> None:
    api.registered("s", RECORD_V1)
    reply = check(api, "s", version, schema)
    assert reply.status == 200 and reply.json == {"is_compatible": compatible}


def test_java_clients_trailing_slash_is_accepted(api: Api) -> None:
    api.registered("s", RECORD_V1)
    reply = api.post("/compatibility/subjects/s/versions/", {"schema": RECORD_V2})
    assert reply.status == 200 and reply.json == {"is_compatible": True}


def test_verbose_compatible_reply_carries_an_empty_message_list(api: Api) -> None:
    api.registered("s", RECORD_V1)
    assert check(api, "s", "latest", RECORD_V2, verbose="true").json == {"is_compatible": True, "messages": []}


def test_verbose_incompatible_reply_explains(api: Api) -> None:
    api.registered("s", RECORD_V1)
    body = check(api, "s", None, RECORD_INT, verbose="True").json
    assert body["is_compatible"] is False and body["messages"]


def test_check_writes_nothing(api: Api) -> None:
    api.registered("s", RECORD_V1)
    check(api, "s", None, RECORD_V2)
    assert api.versions("s").json == [1]


@pytest.mark.parametrize("version", [None, "latest"])
def test_subject_without_live_versions_is_compatible(api: Api, version: str | None) -> None:
    assert check(api, "nobody", version, RECORD_V1).json == {"is_compatible": True}


def test_soft_deleted_versions_are_never_compared(api: Api) -> None:
    api.registered("s", RECORD_V1)
    api.delete_subject("s")
    assert check(api, "s", None, RECORD_INT).json == {"is_compatible": True}


@pytest.mark.parametrize("subject, version, code", [
    ("s", "7", 40402),
    ("nobody", "1", 40402),  # a missing subject is reported as a missing version here
    ("s", "zero", 42202),
])
def test_check_errors(api: Api, subject: str, version: str, code: int) -> None:
    api.registered("s", RECORD_V1)
    assert check(api, subject, version, RECORD_V2).error_code == code


def test_invalid_schema_is_42201_or_a_verbose_verdict(api: Api) -> None:
    api.registered("s", RECORD_V1)
    assert check(api, "s", "latest", INVALID).error_code == 42201
    verbose = check(api, "s", "latest", INVALID, verbose="true")
    assert verbose.status == 200 and verbose.json["is_compatible"] is False and verbose.json["messages"]


def test_subject_level_decides(api: Api) -> None:
    api.registered("s", RECORD_V1)
    api.set_config("s", compatibility="NONE")
    assert check(api, "s", None, RECORD_INT).json == {"is_compatible": True}
