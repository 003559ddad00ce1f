"""Subject names in URLs: encoded `/`, odd characters, raw URI sources, slashes."""
from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from api_client import Api, enc
from api_samples import RECORD_V1

ODD_SUBJECTS = [
    "a/b", "a/b/c-value", ".", "..", " ", "with space", "dots.and-dash_es", "colon:inside",
    "ünïcødé-ß", "主题", "100%", "a+b",
]


@pytest.mark.parametrize("subject", ODD_SUBJECTS)
def test_odd_subject_names_round_trip(api: Api, subject: str) -> None:
    assert api.register(subject, RECORD_V1).status == 200
    assert api.get("/subjects").json == [subject]
    assert api.versions(subject).json == [1]
    assert api.version(subject, 1).json["subject"] == subject
    assert api.post(f"/subjects/{enc(subject)}", {"schema": RECORD_V1}).json["subject"] == subject
    assert api.put(f"/config/{enc(subject)}", {"compatibility": "NONE"}).status == 200
    assert api.get(f"/config/{enc(subject)}").json == {"compatibilityLevel": "NONE"}


@pytest.mark.parametrize("drop", [["RAW_URI"], ["REQUEST_URI"]], ids=["request-uri-only", "raw-uri-only"])
def test_encoded_slash_works_with_either_raw_uri_variable(api: Api, drop: list) -> None:
    api.registered("a/b", RECORD_V1)
    response = api.client.get("/subjects/a%2Fb/versions", environ_overrides={key: None for key in drop})
    assert response.status_code == 200 and response.get_json(force=True) == [1]


def test_without_a_raw_uri_the_decoded_path_is_used(api: Api) -> None:
    api.registered("é x", RECORD_V1)
    response = api.client.get("/subjects/%C3%A9%20x/versions",
                              environ_overrides={"RAW_URI": None, "REQUEST_URI": None})
    assert response.status_code == 200 and response.get_json(force=True) == [1]


@pytest.mark.parametrize("method, path, body", [
    ("GET", "/subjects/", None),
    ("GET", "/subjects/s/versions/", None),
    ("GET", "/subjects/s/versions/1/", None),
    ("GET", "/subjects/s/versions/1/schema/", None),
    ("GET", "/schemas/", None),
    ("GET", "/schemas/ids/1/", None),
    ("GET", "/schemas/types/", None),
    ("GET", "/config/", None),
    ("GET", "/mode/", None),
    ("GET", "/contexts/", None),
    ("POST", "/subjects/s/", {"schema": RECORD_V1}),
    ("POST", "/subjects/s/versions/", {"schema": RECORD_V1}),
    ("POST", "/compatibility/subjects/s/versions/latest/", {"schema": RECORD_V1}),
    ("PUT", "/config/s/", {"compatibility": "FULL"}),
])
def test_trailing_slash_is_accepted_without_redirect(api: Api, method: str, path: str, body: dict | None) -> None:
    api.registered("s", RECORD_V1)
    reply = api.call(method, path, body)
    assert reply.status == 200, reply


def test_unknown_path_and_wrong_method(api: Api) -> None:
    assert (api.get("/subjects/s/nothing").status, api.get("/subjects/s/nothing").error_code) == (404, 404)
    reply = api.get("/subjects/s")  # only POST (lookup) and DELETE exist there
    assert (reply.status, reply.error_code) == (405, 405)


# Any printable name that does not start with ':' (which would make it a qualified name).
subject_names = st.text(
    alphabet=st.characters(blacklist_categories=("Cc", "Cs")), min_size=1, max_size=30
).filter(lambda s: not s.startswith(":") and s not in ("__GLOBAL", "__EMPTY"))


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(subject=subject_names)
def test_any_subject_name_survives_the_path(api: Api, subject: str) -> None:
    assert api.register(subject, RECORD_V1).status == 200
    reply = api.version(subject, "latest")
    assert reply.status == 200 and reply.json["subject"] == subject
