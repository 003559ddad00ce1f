"""Media types: what replies are labelled with, which bodies are accepted."""
from __future__ import annotations

import json

import pytest

from api_client import Api
from api_samples import RECORD_V1

V1 = "application/vnd.schemaregistry.v1+json"
SR = "application/vnd.schemaregistry+json"
JSON = "application/json"


@pytest.mark.parametrize("accept, expected", [
    (None, V1),
    ("*/*", V1),
    ("application/*", V1),
    (V1, V1),
    (SR, SR),
    (JSON, JSON),
    ("application/json; charset=utf-8", JSON),
    (f"{V1}, {SR}, {JSON}", V1),  # what the Python client sends
    (f"{JSON}, {SR}", SR),  # server qualities break the tie
    (f"{V1};q=0.1, {JSON}", JSON),  # 0.1*1.0 < 1.0*0.5
    ("text/html, */*;q=0.2", V1),
    # Jersey: a wildcard type matches every media type whatever its subtype, and a range
    # without a subtype is `<type>/*` (Java's HttpURLConnection sends a bare `*`).
    ("*/anything", V1),
    ("*", V1),
    ("text/html, image/gif, image/jpeg, *; q=.2, */*; q=.2", V1),
    ("application", V1),
])
def test_reply_media_type_is_negotiated(api: Api, accept: str | None, expected: str) -> None:
    reply = api.call("GET", "/subjects", headers={"Accept": accept} if accept else {})
    assert reply.status == 200 and reply.headers["Content-Type"] == expected


@pytest.mark.parametrize("accept", [
    "text/html", "application/xml", "text/*", "text", f"{V1};q=0, {SR};q=0, {JSON};q=0", "*;q=0",
])
def test_unsatisfiable_accept_is_406(api: Api, accept: str) -> None:
    reply = api.call("GET", "/subjects", headers={"Accept": accept})
    assert (reply.status, reply.error_code) == (406, 406)
    assert reply.headers["Content-Type"] == V1


def test_406_names_the_media_types_replies_come_in(api: Api) -> None:
    message = api.call("GET", "/subjects", headers={"Accept": "text/html"}).json["message"]
    assert message.startswith("HTTP 406 Not Acceptable")
    assert all(media_type in message for media_type in (V1, SR, JSON))


def test_errors_use_the_negotiated_type_too(api: Api) -> None:
    reply = api.call("GET", "/subjects/nobody/versions", headers={"Accept": JSON})
    assert reply.error_code == 40401 and reply.headers["Content-Type"] == JSON


@pytest.mark.parametrize("content_type", [
    V1, SR, JSON, "application/octet-stream", f"{V1}; charset=UTF-8", "APPLICATION/JSON", None])
def test_accepted_request_content_types(api: Api, content_type: str | None) -> None:
    headers = {"Content-Type": content_type} if content_type else {}
    response = api.client.post("/subjects/s/versions", data=json.dumps({"schema": RECORD_V1}), headers=headers)
    assert response.status_code == 200, response.data


@pytest.mark.parametrize("content_type", ["text/plain", "application/xml", "application/x-www-form-urlencoded"])
def test_other_request_content_types_are_415(api: Api, content_type: str) -> None:
    reply = api.call("POST", "/subjects/s/versions", {"schema": RECORD_V1}, headers={"Content-Type": content_type})
    assert (reply.status, reply.error_code) == (415, 415)
    assert api.get("/subjects").json == []


def test_415_names_the_accepted_media_types(api: Api) -> None:
    reply = api.call("POST", "/subjects/s/versions", {"schema": RECORD_V1}, headers={"Content-Type": "text/plain"})
    assert reply.json["message"].startswith("HTTP 415 Unsupported Media Type")
    assert all(media_type in reply.json["message"] for media_type in (V1, SR, JSON, "application/octet-stream"))


def test_unknown_path_wins_over_a_bad_accept(api: Api) -> None:
    reply = api.call("GET", "/nowhere", headers={"Accept": "text/html"})
    assert (reply.status, reply.error_code) == (404, 404)
