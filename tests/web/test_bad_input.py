"""The issue's "what the user sees on bad input", row by row: an HTML page with the right
status and wording, never a 500 and never JSON."""
from __future__ import annotations

import json

import pytest

from ui_client import Page, Ui, enc

pytestmark = pytest.mark.usefixtures("demo")


def _html(page) -> None:
    assert page.headers["Content-Type"].startswith("text/html")
    assert "Content-Security-Policy" in page.headers


def test_unknown_subject_is_a_404_naming_it_with_links(ui: Ui) -> None:
    page = ui.get(f"/ui/subjects/{enc('no-such <thing>')}")
    assert page.status == 404
    _html(page)
    assert "No subject named “no-such <thing>”" in page.main.text
    assert page.main.find("a", href="/ui/") is not None
    assert page.main.find("a", href="/ui/search?q=no-such+%3Cthing%3E") is not None


def test_soft_deleted_subject_says_so_and_links_to_deleted(ui: Ui) -> None:
    page = ui.get("/ui/subjects/legacy-value")
    assert page.status == 404
    assert "only as soft-deleted" in page.main.text
    assert page.main.find("a", href="/ui/subjects/legacy-value?deleted=1") is not None
    assert ui.get("/ui/subjects/legacy-value", deleted="1").status == 200


@pytest.mark.parametrize("path", [
    "/ui/subjects/orders-value/versions/9",
    "/ui/subjects/orders-value/diff?from=9",
    "/ui/subjects/orders-value/diff?to=9",
])
def test_unknown_version_is_a_404_listing_the_versions(ui: Ui, path: str) -> None:
    page = ui.get(path)
    assert page.status == 404
    _html(page)
    assert "has no version 9" in page.main.text
    assert [a.text for a in page.main.find_all("a") if "/versions/" in a.attrs["href"]] == ["1", "2", "3"]


def test_unknown_schema_id_is_a_404_with_the_go_to_id_box(ui: Ui) -> None:
    page = ui.get("/ui/schemas/999")
    assert page.status == 404
    assert "No schema with id 999" in page.main.text
    assert page.main.find("input", name="q", type="number") is not None


@pytest.mark.parametrize(("path", "parameter"), [
    ("/ui/subjects/orders-value/diff?from=abc", "from"),
    ("/ui/subjects/orders-value/diff?to=1.5", "to"),
    ("/ui/?page=x", "page"),
    ("/ui/?per_page=-", "per_page"),
    ("/ui/search?q=ord&page=two", "page"),
    ("/ui/schemas/abc", "id"),
    ("/ui/?q=" + "x" * 201, "q"),
    ("/ui/search?q=" + "y" * 201, "q"),
    ("/ui/subjects/orders-value/versions/abc", "version"),
])
def test_malformed_parameters_are_a_400_naming_them(ui: Ui, path: str, parameter: str) -> None:
    page = ui.get(path)
    assert page.status == 400
    _html(page)
    assert f"parameter {parameter} " in page.main.text


def test_same_from_and_to_says_identical(ui: Ui) -> None:
    page = ui.get("/ui/subjects/orders-value/diff", **{"from": "2", "to": "2"})
    assert page.status == 200
    assert "identical" in page.main.text


def test_one_version_subject_has_nothing_to_diff_and_links_to_check(ui: Ui) -> None:
    page = ui.get("/ui/subjects/customers-value/diff")
    assert page.status == 200
    assert "nothing to diff" in page.main.text
    assert page.main.find("a", href="/ui/subjects/customers-value/check") is not None


def test_invalid_schema_in_the_check_form_keeps_input_and_writes_nothing(ui: Ui, service) -> None:
    text = '{"type": "record", "name": "Order", "fields": [}'
    page = ui.post("/ui/subjects/orders-value/check", {"schema": text, "schemaType": "AVRO"})
    assert page.status == 422
    assert "Invalid schema" in page.main.find(role="alert").text
    assert page.main.find("textarea", name="schema").text == text
    assert service.list_versions("orders-value") == [1, 2, 3]


def test_forbidden_action_is_a_403_page(app_with) -> None:
    from ui_client import DenyWrites

    ui = Ui(app_with(DenyWrites()).test_client())
    page = ui.post("/ui/subjects/orders-value/delete", {"confirm": "yes"})
    assert page.status == 403
    assert "not allowed" in page.main.text


def test_missing_csrf_token_is_a_400_and_nothing_is_written(ui: Ui, service) -> None:
    page = ui.post("/ui/subjects/orders-value/delete", {"confirm": "yes"}, csrf=False)
    assert page.status == 400
    assert "security token" in page.main.text
    assert service.list_versions("orders-value") == [1, 2, 3]


def test_unexpected_error_is_a_500_page_with_a_request_id(app_with, monkeypatch) -> None:
    app = app_with()
    app.testing = False  # let the handler answer as in production, instead of re-raising

    def broken(*args, **kwargs):
        raise RuntimeError("secret internals")

    monkeypatch.setattr(app.extensions["registry"].browse, "registry_summary", broken)
    page = Ui(app.test_client()).get("/ui/contexts")
    assert page.status == 500
    _html(page)
    assert "secret internals" not in page.body and "Traceback" not in page.body
    assert page.main.find("code").text.isalnum()


def test_unknown_path_under_ui_is_an_html_404(ui: Ui) -> None:
    page = ui.get("/ui/nowhere/at/all")
    assert page.status == 404
    _html(page)


@pytest.mark.parametrize(("method", "path", "allowed"), [
    ("PUT", "/ui/", {"GET"}),
    ("DELETE", "/ui/subjects/orders-value", {"GET"}),
    ("PATCH", "/ui/nowhere/at/all", {"GET", "POST"}),
    ("POST", "/ui/search", {"GET"}),  # a page, posted to (with its CSRF token)
    ("GET", "/ui/subjects/orders-value/delete", {"POST"}),  # an action, opened as a page
])
def test_wrong_method_under_ui_is_the_ui_405_page(ui: Ui, method: str, path: str, allowed: set[str]) -> None:
    response = ui.client.open(path, method=method, data={"csrf_token": ui.token()} if method == "POST" else None)
    page = Page(response)
    assert page.status == 405
    _html(page)
    assert response.headers["X-Content-Type-Options"] == "nosniff"
    assert response.headers["Referrer-Policy"] == "same-origin"
    assert allowed <= {m.strip() for m in response.headers["Allow"].split(",")}
    assert "does not answer that method" in page.main.text
    assert page.tree.find("form", action="/ui/search") is not None  # the UI's own layout, header search box


@pytest.mark.parametrize(("method", "path"), [
    ("PUT", "/subjects"), ("DELETE", "/schemas/types"), ("PATCH", "/subjects/orders-value"),
])
def test_wrong_method_on_the_api_stays_confluent_json(ui: Ui, method: str, path: str) -> None:
    response = ui.client.open(path, method=method)
    assert response.status_code == 405
    assert response.get_json() == {"error_code": 405, "message": "HTTP 405 Method Not Allowed"}
    assert "Allow" in response.headers and "Content-Security-Policy" not in response.headers


def test_unknown_path_anywhere_else_stays_confluent_json(ui: Ui) -> None:
    api = ui.client.get("/nowhere")
    assert api.status_code == 404 and api.get_json()["error_code"] == 404
    assert json.loads(ui.client.get("/subjects").get_data()) is not None
