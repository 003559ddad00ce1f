"""The API's rules stay inside the API.

Media type checks (415/406) and JSON error bodies belong to the parent `api` blueprint, so
another part of the site (here a throwaway `/site/` blueprint answering HTML and forms, and the
real `text/plain` `/metrics`) is not subject to them, while API paths, matched or not, still
answer Confluent JSON.
"""
from __future__ import annotations

import pytest
from flask import Blueprint, Flask, request

from api_client import Api
from api_samples import RECORD_V1

V1 = "application/vnd.schemaregistry.v1+json"
FORM = "application/x-www-form-urlencoded"


def _site_blueprint() -> Blueprint:
    site = Blueprint("site", __name__)

    @site.get("/site/ping")
    def ping() -> tuple[str, int, dict[str, str]]:
        return "<p>pong</p>", 200, {"Content-Type": "text/html; charset=utf-8"}

    @site.post("/site/ping")
    def ping_form() -> tuple[str, int, dict[str, str]]:
        return f"<p>{request.form['name']}</p>", 200, {"Content-Type": "text/html; charset=utf-8"}

    @site.get("/site/broken")
    def broken() -> str:
        raise RuntimeError("a bug in the UI")

    return site


@pytest.fixture
def site_app(app: Flask) -> Flask:
    app.register_blueprint(_site_blueprint())
    return app


@pytest.fixture
def site(site_app: Flask) -> Api:
    return Api(site_app.test_client())


def test_a_non_api_page_answers_html_whatever_the_accept_header(site: Api) -> None:
    reply = site.call("GET", "/site/ping", headers={"Accept": "text/html"})
    assert (reply.status, reply.raw) == (200, "<p>pong</p>")
    assert reply.headers["Content-Type"].startswith("text/html")


def test_a_non_api_page_takes_a_form_post(site: Api) -> None:
    reply = site.call("POST", "/site/ping", raw="name=ada", headers={"Content-Type": FORM, "Accept": "text/html"})
    assert (reply.status, reply.raw) == (200, "<p>ada</p>")


def test_a_metrics_endpoint_answers_text_plain(site: Api) -> None:
    reply = site.call("GET", "/metrics", headers={"Accept": "text/plain"})
    assert reply.status == 200
    assert "# TYPE sqlregistry_http_request_duration_seconds histogram" in reply.raw
    assert reply.headers["Content-Type"].startswith("text/plain")


def test_api_paths_still_refuse_the_same_requests_in_json(site: Api) -> None:
    not_acceptable = site.call("GET", "/subjects", headers={"Accept": "text/html"})
    assert (not_acceptable.status, not_acceptable.error_code) == (406, 406)
    unsupported = site.call("POST", "/subjects/s/versions", raw="name=ada", headers={"Content-Type": FORM})
    assert (unsupported.status, unsupported.error_code) == (415, 415)
    assert unsupported.headers["Content-Type"] == V1
    assert site.get("/subjects").json == []


@pytest.mark.parametrize("method, path, status", [
    ("GET", "/subjects/s/nowhere", 404),
    ("GET", "/nowhere", 404),
    ("GET", "/schemas/ids/1/nowhere", 404),
    ("PUT", "/subjects/s/versions", 405),
    ("DELETE", "/", 405),
])
def test_api_paths_no_endpoint_matched_answer_json(site: Api, method: str, path: str, status: int) -> None:
    """Routing errors win over a bad `Accept`, and are JSON even though no API hook ran."""
    reply = site.call(method, path, headers={"Accept": "text/html"})
    assert (reply.status, reply.error_code) == (status, status)
    assert reply.json["message"].startswith(f"HTTP {status} ")
    assert reply.headers["Content-Type"] == V1


def test_a_405_on_an_api_path_names_the_allowed_methods(site: Api) -> None:
    reply = site.call("PUT", "/subjects/s/versions", {"schema": RECORD_V1})
    assert (reply.status, reply.error_code) == (405, 405)
    assert set(reply.headers["Allow"].split(", ")) >= {"GET", "POST"}


def test_errors_under_another_part_of_the_site_are_flasks_own(site: Api) -> None:
    missing = site.call("GET", "/site/nowhere", headers={"Accept": "text/html"})
    assert missing.status == 404 and missing.error_code is None
    assert missing.headers["Content-Type"].startswith("text/html")
    wrong_method = site.call("DELETE", "/site/ping")
    assert wrong_method.status == 405 and wrong_method.error_code is None


def test_a_failure_in_another_part_of_the_site_is_not_answered_as_the_api(site: Api) -> None:
    reply = site.call("GET", "/site/broken")
    assert reply.status == 500 and reply.error_code is None
    assert "a bug in the UI" not in reply.raw
