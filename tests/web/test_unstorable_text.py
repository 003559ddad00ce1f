"""The UI refuses a path value, query parameter, form field or uploaded file holding NUL with
its own 400 page naming the field, before any page runs, so nothing is written; and a stored
schema whose text spells a lone surrogate as an escape (accepted at registration, stored as
written) renders on every page, escaped, instead of failing the page."""
from __future__ import annotations

import io
import json
import zipfile

import pytest

import demo_data
from ui_client import Ui

pytestmark = pytest.mark.usefixtures("demo")

ORDER = json.dumps(demo_data.CUSTOMER)


def refused(page, name: str) -> None:
    assert page.status == 400, page
    assert page.headers["Content-Type"].startswith("text/html")
    assert name in page.main.text and "NUL" in page.main.text


@pytest.mark.parametrize("form", [
    {"subject": "fresh\x00-value", "schema": ORDER, "schemaType": "AVRO"},
    {"subject": "fresh-value", "schema": ORDER.replace("Customer", "Cust\x00omer"), "schemaType": "AVRO"},
    {"subject": "fresh-value", "schema": ORDER, "schemaType": "AVRO\x00"},
    {"subject": "fresh-value", "schema": ORDER, "schemaType": "AVRO", "ref_name": "a\x00", "ref_subject": "s",
     "ref_version": "1"},
    {"subject": "fresh-value", "schema": ORDER, "schemaType": "AVRO", "x\x00": "1"},
], ids=["subject", "schema", "schemaType", "ref_name", "field-name"])
def test_new_schema_form_with_a_nul_is_a_400_page_and_registers_nothing(ui: Ui, service, form) -> None:
    page = ui.post("/ui/new", form)
    refused(page, next(name for name, value in form.items() if "\x00" in name + value).replace("\x00", "\\u0000"))
    assert "fresh-value" not in service.list_subjects(None)
    assert not any("\x00" in s for s in service.list_subjects(None))


def test_settings_and_delete_forms_with_a_nul_change_nothing(ui: Ui, service) -> None:
    refused(ui.post("/ui/subjects/orders-value/settings", {"what": "compatibility", "value": "FULL\x00"}), "value")
    refused(ui.post("/ui/config", {"scope": ":.a\x00:", "what": "compatibility", "value": "NONE"}), "scope")
    refused(ui.post("/ui/subjects/orders-value/delete", {"confirm": "yes\x00"}), "confirm")
    assert service.list_versions("orders-value") == [1, 2, 3]
    from app.core.errors import SubjectCompatibilityNotConfigured

    with pytest.raises(SubjectCompatibilityNotConfigured):
        service.get_config("orders-value")


def test_query_and_path_values_with_a_nul_are_a_400_page(ui: Ui) -> None:
    refused(ui.get("/ui/search", q="a\x00"), "q")
    refused(ui.get("/ui/subjects/orders%00-value"), "subject")


def test_an_uploaded_file_with_a_nul_is_a_400_page(ui: Ui, service) -> None:
    data = {"csrf_token": ui.token(), "subject": "fresh-value", "schemaType": "AVRO", "schema": "",
            "schema_file": (io.BytesIO(ORDER.replace("Customer", "Cu\x00st").encode()), "s.avsc")}
    page = ui.client.post("/ui/new", data=data, content_type="multipart/form-data")
    assert page.status_code == 400 and "schema_file" in page.get_data(as_text=True)
    assert "fresh-value" not in service.list_subjects(None)


ESCAPED = json.dumps({"type": "record", "name": "Tagged", "doc": "\\ud800", "fields": [
    {"name": "f", "type": "string", "doc": "d\\ud800", "confluent:tags": ["PII\\ud800"]}]})
# Version 2 changes the field's doc, so that the diff page has a row to show.
ESCAPED_V2 = ESCAPED.replace('"d\\\\ud800"', '"e\\\\ud800"')
DOC = '<span class="doc">d\\ud800</span>'  # a field's doc in the outline


@pytest.mark.parametrize("path, shown", [
    ("/ui/subjects/tagged-value", '<span class="doc">e\\ud800</span>'),  # the latest version
    ("/ui/subjects/tagged-value/versions/1", DOC),
    ("/ui/schemas/{id}", DOC),
    # The search index keeps a repaired copy of a doc (U+FFFD for the surrogate), which it shows.
    ("/ui/search?q=f", "<td><code>f</code></td><td>string</td><td>e\ufffd</td>"),  # latest versions
    ("/ui/subjects/tagged-value/diff?from=1&to=2", "d\\ud800"),
    ("/ui/subjects/tagged-value/versions/1/download", '"doc":"d\\ud800"'),
    ("/ui/subjects/tagged-value/export.zip", '"doc":"d\\ud800"'),
])
def test_a_schema_spelling_a_lone_surrogate_renders_escaped_on_every_page(ui: Ui, service, path: str,
                                                                          shown: str) -> None:
    from app.core.types import SchemaRequest

    # As JSON text the schema holds the six characters `\ud800`, not the code point.
    registered = service.register("tagged-value", SchemaRequest(schema=ESCAPED.replace("\\\\", "\\")))
    service.register("tagged-value", SchemaRequest(schema=ESCAPED_V2.replace("\\\\", "\\")))
    response = ui.client.get(path.format(id=registered.schema.id))
    assert response.status_code == 200, (path, response.status_code)
    body = response.get_data()
    if path.endswith(".zip"):
        with zipfile.ZipFile(io.BytesIO(body)) as archive:
            body = archive.read("tagged-value-v1.avsc")
    assert shown in body.decode("utf-8").replace("\\uD800", "\\ud800")


@pytest.mark.parametrize("target", ["/ui/subjects/a%ED%A0%80b", "/ui/subjects/a%FFb/versions/1"])
def test_a_path_that_is_not_utf8_is_a_400_page(ui: Ui, target: str) -> None:
    """Under gunicorn the path arrives undecoded; bytes that are not UTF-8 become lone
    surrogates in the subject, which no page could show or look up."""
    from urllib.parse import unquote_to_bytes

    response = ui.client.get(target, environ_overrides={"PATH_INFO": unquote_to_bytes(target).decode("latin-1")})
    assert response.status_code == 400
    assert "subject" in response.get_data(as_text=True) and "surrogate" in response.get_data(as_text=True)


@pytest.mark.parametrize("path", ["/ui/new", "/ui/subjects/orders-value/check"])
def test_a_refusal_quoting_an_escaped_lone_surrogate_renders(ui: Ui, service, path: str) -> None:
    page = ui.post(path, {"subject": "fresh-value", "schema": '{"type": "\\ud800"}', "schemaType": "AVRO"})
    assert page.status == 422, page
    assert "\\ud800" in page.body
    assert "fresh-value" not in service.list_subjects(None)
