"""A subject must be UTF-8: `%FF` is refused with 42208 rather than stored as U+FFFD.

Replacing undecodable bytes would make `/subjects/%FF` and `/subjects/%EF%BF%BD` two paths to
one subject. The Flask test client computes PATH_INFO with that replacement itself, so these
requests set PATH_INFO the way gunicorn does (the raw bytes, one latin-1 character each);
one test goes through gunicorn for real.
"""
from __future__ import annotations

import json
import urllib.error
import urllib.request
from typing import Any, Callable
from urllib.parse import unquote_to_bytes

import pytest

from api_client import V1_JSON, Api, Reply
from api_samples import RECORD_V1

SCHEMA_BODY = {"schema": RECORD_V1}

# Every endpoint that names a subject in its path, `{s}` standing for the subject.
SUBJECT_ENDPOINTS = [
    ("POST", "/subjects/{s}", SCHEMA_BODY),
    ("DELETE", "/subjects/{s}", None),
    ("GET", "/subjects/{s}/metadata", None),
    ("GET", "/subjects/{s}/versions", None),
    ("POST", "/subjects/{s}/versions", SCHEMA_BODY),
    ("GET", "/subjects/{s}/versions/1", None),
    ("GET", "/subjects/{s}/versions/latest/schema", None),
    ("DELETE", "/subjects/{s}/versions/1", None),
    ("GET", "/subjects/{s}/versions/1/referencedby", None),
    ("POST", "/subjects/{s}/versions/1/tags", {"tagsToAdd": []}),
    ("POST", "/compatibility/subjects/{s}/versions", SCHEMA_BODY),
    ("POST", "/compatibility/subjects/{s}/versions/latest", SCHEMA_BODY),
    ("GET", "/config/{s}", None),
    ("PUT", "/config/{s}", {"compatibility": "NONE"}),
    ("DELETE", "/config/{s}", None),
    ("GET", "/mode/{s}", None),
    ("PUT", "/mode/{s}", {"mode": "READONLY"}),
    ("DELETE", "/mode/{s}", None),
]


def raw_call(api: Api, method: str, target: str, body: Any = None) -> Reply:
    """A request whose PATH_INFO holds the target's bytes undecoded, as under gunicorn."""
    path, _, query = target.partition("?")
    path_info = unquote_to_bytes(path).decode("latin-1")
    return Reply(api.client.open(
        target, method=method, data=json.dumps(body) if body is not None else None,
        headers={"Content-Type": V1_JSON} if body is not None else {},
        environ_overrides={"PATH_INFO": path_info},
    ))


@pytest.fixture
def arranged(api: Api) -> Api:
    """A subject with one version, so nothing is refused merely for being absent."""
    api.registered("s", RECORD_V1)
    return api


@pytest.mark.parametrize("method, template, body", SUBJECT_ENDPOINTS, ids=[f"{m} {t}" for m, t, _ in SUBJECT_ENDPOINTS])
@pytest.mark.parametrize("subject", ["%FF", "s%FF", "%C3", "%ED%A0%80", ":.ctx:%FE"])
def test_a_subject_that_is_not_utf8_is_42208_everywhere(arranged: Api, method: str, template: str, body: Any,
                                                         subject: str) -> None:
    before = arranged.snapshot()
    reply = raw_call(arranged, method, template.format(s=subject), body)
    assert (reply.status, reply.error_code) == (422, 42208), reply
    assert "\\x" in reply.json["message"]  # the offending bytes, shown escaped
    assert arranged.snapshot() == before


def test_a_valid_replacement_character_is_an_ordinary_subject(api: Api) -> None:
    assert raw_call(api, "POST", "/subjects/%EF%BF%BD/versions", SCHEMA_BODY).status == 200
    assert api.get("/subjects").json == ["\ufffd"]
    assert raw_call(api, "GET", "/subjects/%FF/versions").error_code == 42208


def test_media_types_are_checked_before_the_subject(api: Api) -> None:
    reply = Reply(api.client.get("/subjects/%FF/versions", headers={"Accept": "text/html"},
                                 environ_overrides={"PATH_INFO": "/subjects/\xff/versions"}))
    assert reply.error_code == 406


@pytest.mark.parametrize("target", [
    "/contexts/.ctx/subjects/%FF/versions",
    "/contexts/%FF/subjects/s/versions",
    "/contexts/%FF/config",
])
def test_context_urls_keep_the_bytes_and_refuse_them(arranged: Api, target: str) -> None:
    method, body = ("PUT", {"compatibility": "NONE"}) if target.endswith("config") else ("POST", SCHEMA_BODY)
    before = arranged.snapshot()
    assert raw_call(arranged, method, target, body).error_code == 42208
    assert arranged.snapshot() == before


@pytest.mark.parametrize("target", [
    "/schemas/ids/1?subject=%FF",
    "/schemas/ids/1/schema?subject=s%FF",
    "/schemas/ids/1/subjects?subject=%FF",
    "/schemas/ids/1/versions?deleted=true&subject=%FF",
    "/contexts/.ctx/schemas/ids/1?subject=%FF",
])
def test_a_subject_hint_that_is_not_utf8_is_42208(arranged: Api, target: str) -> None:
    assert raw_call(arranged, "GET", target).error_code == 42208


def test_a_subject_hint_with_a_valid_replacement_character_is_just_unknown(arranged: Api) -> None:
    reply = raw_call(arranged, "GET", "/schemas/ids/1?subject=%EF%BF%BD")
    assert reply.status in (200, 404) and reply.error_code != 42208


def test_raw_bytes_that_are_not_utf8_in_the_query_string_are_400(arranged: Api) -> None:
    reply = Reply(arranged.client.get("/schemas/ids/1", environ_overrides={"QUERY_STRING": "subject=\xff"}))
    assert (reply.status, reply.error_code) == (400, 400)


def test_under_gunicorn_a_subject_that_is_not_utf8_is_refused(
    live_server: str, unique_subject: Callable[[str], str]
) -> None:
    target = f"{live_server}/subjects/{unique_subject('bad')}%FF/versions"
    request = urllib.request.Request(
        target, data=json.dumps(SCHEMA_BODY).encode(), method="POST", headers={"Content-Type": V1_JSON}
    )
    with pytest.raises(urllib.error.HTTPError) as failure:
        urllib.request.urlopen(request, timeout=30)
    assert failure.value.code == 422
    assert json.loads(failure.value.read())["error_code"] == 42208
    with urllib.request.urlopen(f"{live_server}/subjects", timeout=30) as listing:
        assert not any("\ufffd" in subject for subject in json.loads(listing.read()))
