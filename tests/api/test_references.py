"""Schema references, `referencedby` and the delete guard."""
from __future__ import annotations

import pytest

from api_client import Api
from api_samples import BASE, BASE_NAME, OUTER, record

REF = {"name": BASE_NAME, "subject": "base", "version": 1}


@pytest.fixture
def referenced(api: Api) -> dict:
    api.registered("base", BASE)
    return api.registered("outer", OUTER, references=[REF])


def test_references_are_stored_and_returned(api: Api, referenced: dict) -> None:
    assert referenced["references"] == [REF]
    assert api.version("outer", 1).json["references"] == [REF]
    assert api.get(f"/schemas/ids/{referenced['id']}").json["references"] == [REF]


def test_referencedby_lists_the_referring_ids(api: Api, referenced: dict) -> None:
    assert api.get("/subjects/base/versions/1/referencedby").json == [referenced["id"]]
    assert api.get("/subjects/base/versions/latest/referencedby").json == [referenced["id"]]


def test_referencedby_of_an_unreferenced_version_is_empty(api: Api) -> None:
    api.registered("base", BASE)
    assert api.get("/subjects/base/versions/1/referencedby").json == []


def test_referencedby_hides_soft_deleted_referrers_unless_asked(api: Api, referenced: dict) -> None:
    api.delete_subject("outer")
    assert api.get("/subjects/base/versions/1/referencedby").json == []
    assert api.get("/subjects/base/versions/1/referencedby", deleted="true").json == [referenced["id"]]


@pytest.mark.parametrize("path, code", [
    ("/subjects/nobody/versions/1/referencedby", 40401),
    ("/subjects/base/versions/9/referencedby", 40402),
    ("/subjects/base/versions/x/referencedby", 42202),
])
def test_referencedby_errors(api: Api, referenced: dict, path: str, code: int) -> None:
    assert api.get(path).error_code == code


def test_referenced_version_cannot_be_deleted(api: Api, referenced: dict) -> None:
    assert api.delete_version("base", 1).error_code == 42206
    assert api.delete_subject("base").error_code == 42206
    assert api.versions("base").json == [1]


def test_referrer_can_be_deleted_then_the_target(api: Api, referenced: dict) -> None:
    api.delete_subject("outer")
    api.delete_subject("outer", permanent="true")
    assert api.delete_subject("base").json == [1]


@pytest.mark.parametrize("reference, why", [
    ({"name": BASE_NAME, "subject": "base", "version": 2}, "missing version"),
    ({"name": BASE_NAME, "subject": "nobody", "version": 1}, "missing subject"),
    ({"name": BASE_NAME, "subject": "base"}, "no version"),
    ({"subject": "base", "version": 1}, "no name"),
])
def test_unresolvable_reference_is_42201(api: Api, reference: dict, why: str) -> None:
    api.registered("base", BASE)
    reply = api.register("outer", OUTER, references=[reference])
    assert reply.error_code == 42201, why


def test_reference_to_latest_is_stored_with_the_real_version(api: Api) -> None:
    api.registered("base", BASE)
    api.registered("base", record("Base", [{"name": "id", "type": "long"}, {"name": "x", "type": "int", "default": 0}],
                                  namespace="com.example"))
    reply = api.registered("outer", OUTER, references=[{**REF, "version": -1}])
    assert reply["references"] == [{**REF, "version": 2}]
