"""Write actions appear only where the authorizer allows them, every POST checks again, an
unreadable subject does not exist for the caller, REGISTRY_UI_READONLY hides and refuses all
writes, and a POST without its CSRF token does nothing."""
from __future__ import annotations

import pytest

from ui_client import DenyWrites, HideSubject, Ui, enc

WRITE_POSTS = [
    ("/ui/subjects/orders-value/delete", {"confirm": "yes"}),
    ("/ui/subjects/orders-value/versions/3/delete", {"confirm": "yes"}),
    ("/ui/subjects/orders-value/settings", {"what": "compatibility", "value": "NONE"}),
    ("/ui/subjects/orders-value/settings", {"what": "mode", "value": "READONLY"}),
    ("/ui/subjects/orders-value/register", {"schema": '"string"', "schemaType": "AVRO"}),
    ("/ui/new", {"subject": "fresh-value", "schema": '"string"', "schemaType": "AVRO"}),
    ("/ui/config", {"scope": "", "what": "compatibility", "value": "NONE"}),
    ("/ui/config", {"scope": ":.staging:", "what": "mode", "value": "READONLY"}),
]


def _state(service) -> tuple:
    return (
        service.list_subjects(None), service.list_versions("orders-value", deleted=True),
        service.get_config("orders-value", default_to_global=True), service.get_mode(None),
        service.get_mode(":.staging:", default_to_global=True), service.get_config(None),
    )


def _write_forms(page) -> list:
    return [f for f in page.main.find_all("form") if f.attrs.get("method") == "post" and f.attrs.get("data-form") != "check"]


@pytest.mark.parametrize("kind", ["denying", "readonly"])
def test_no_write_form_is_rendered(app_with, kind: str) -> None:
    app = app_with(DenyWrites()) if kind == "denying" else app_with(ui_readonly=True)
    ui = Ui(app.test_client())
    for path in ("/ui/", "/ui/subjects/orders-value", "/ui/subjects/orders-value/versions/2", "/ui/config", "/ui/new"):
        page = ui.get(path)
        assert page.status == 200
        assert _write_forms(page) == [], path
    check = ui.get("/ui/subjects/orders-value/check")
    assert check.main.find("form", data_form="check") is not None
    result = ui.post("/ui/subjects/orders-value/check", {"schema": '{"type": "record", "name": "Order", "namespace": "com.acme", "fields": []}', "schemaType": "AVRO"})
    assert result.main.find("form", action="/ui/subjects/orders-value/register") is None


@pytest.mark.parametrize("kind", ["denying", "readonly"])
@pytest.mark.parametrize(("path", "form"), WRITE_POSTS)
def test_every_write_post_is_refused_and_changes_nothing(app_with, kind: str, path: str, form: dict) -> None:
    app = app_with(DenyWrites()) if kind == "denying" else app_with(ui_readonly=True)
    service = app.extensions["registry"]
    before = _state(service)
    page = Ui(app.test_client()).post(path, form)
    assert page.status == 403
    assert _state(service) == before


def test_allowed_principal_sees_the_write_forms(app_with) -> None:
    ui = Ui(app_with().test_client())
    assert _write_forms(ui.get("/ui/subjects/orders-value"))
    assert _write_forms(ui.get("/ui/config"))


def test_unreadable_subject_is_absent_everywhere_and_404(app_with) -> None:
    hidden = "customers-value"
    ui = Ui(app_with(HideSubject(hidden)).test_client())
    listing = ui.get("/ui/")
    assert hidden not in listing.main.text
    everything = ui.get("/ui/", deleted="1")
    assert hidden not in everything.main.text
    search = ui.get("/ui/search", q="customers")
    assert hidden not in search.main.text
    by_field = ui.get("/ui/search", q="email")
    assert hidden not in by_field.main.text and "Contact address" not in by_field.main.text
    assert "Contact address" in Ui(app_with().test_client()).get("/ui/search", q="email").main.text
    counts = ui.get("/ui/contexts")
    default_row = next(r for r in counts.main.find("table").find_all("tr")[1:] if r.find("td").text == ".")
    allowed = Ui(app_with().test_client()).get("/ui/contexts")
    allowed_row = next(r for r in allowed.main.find("table").find_all("tr")[1:] if r.find("td").text == ".")
    assert int(default_row.find_all("td")[1].text) == int(allowed_row.find_all("td")[1].text) - 1
    for path in (f"/ui/subjects/{hidden}", f"/ui/subjects/{hidden}/versions/1", f"/ui/subjects/{hidden}/diff",
                 f"/ui/subjects/{hidden}/check", f"/ui/subjects/{hidden}/export.zip"):
        page = ui.get(path)
        assert page.status == 404, path
        assert f"No subject named “{hidden}”" in page.main.text
    # Its schema id is also held by the soft-deleted legacy-value: the id page lists only that one.
    schema = ui.get("/ui/schemas/4", deleted="1")
    assert schema.status == 200
    assert hidden not in schema.main.text and "legacy-value" in schema.main.text


@pytest.mark.usefixtures("demo")
@pytest.mark.parametrize(("path", "form"), WRITE_POSTS)
def test_post_without_csrf_token_is_400_and_changes_nothing(ui: Ui, service, path: str, form: dict) -> None:
    before = _state(service)
    page = ui.post(path, form, csrf=False)
    assert page.status == 400
    assert _state(service) == before


@pytest.mark.usefixtures("demo")
def test_post_with_a_stale_token_is_refused(ui: Ui, service) -> None:
    ui.token()
    before = _state(service)
    response = ui.client.post("/ui/subjects/orders-value/delete", data={"confirm": "yes", "csrf_token": "stale"})
    assert response.status_code == 400
    assert _state(service) == before


def test_subject_with_slash_writes_through_its_encoded_path(app_with) -> None:
    app = app_with()
    ui = Ui(app.test_client())
    page = ui.post(f"/ui/subjects/{enc('com/acme/order.proto')}/settings", {"what": "compatibility", "value": "FULL"})
    assert page.status == 303
    assert app.extensions["registry"].get_config("com/acme/order.proto")["compatibility"] == "FULL"
