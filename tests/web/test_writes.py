"""Writes through the UI: registration from /ui/new and from a check result, deletes behind a
server-rendered confirmation, settings set and cleared, and the registry's refusals shown
with their codes."""
from __future__ import annotations

import json

import pytest

import demo_data
from ui_client import Ui

pytestmark = pytest.mark.usefixtures("demo")


def test_register_from_new_goes_to_the_new_version(ui: Ui, service) -> None:
    page = ui.post("/ui/new", {"subject": "fresh-value", "schema": json.dumps(demo_data.CUSTOMER), "schemaType": "AVRO"})
    assert page.status == 303
    assert page.headers["Location"].endswith("/ui/subjects/fresh-value/versions/1?done=registered")
    assert service.list_versions("fresh-value") == [1]
    shown = ui.get("/ui/subjects/fresh-value/versions/1", done="registered")
    assert "registered" in shown.main.find(role="status").text


def test_register_with_a_reference_row(ui: Ui, service) -> None:
    page = ui.post("/ui/new", {
        "subject": "invoices-2-value", "schema": json.dumps(demo_data.INVOICE), "schemaType": "AVRO",
        "ref_name": "com.acme.Customer", "ref_subject": "customers-value", "ref_version": "1",
    })
    assert page.status == 303
    found = service.get_version("invoices-2-value", "1")
    assert [r.subject for r in found.schema.references] == ["customers-value"]


def test_invalid_schema_on_new_keeps_the_form(ui: Ui, service) -> None:
    page = ui.post("/ui/new", {"subject": "fresh-value", "schema": "{nope", "schemaType": "AVRO"})
    assert page.status == 422
    assert page.main.find("textarea", name="schema").text == "{nope"
    assert page.main.find("input", name="subject").attrs["value"] == "fresh-value"
    assert "fresh-value" not in service.list_subjects(None)


def test_check_result_offers_registration_that_registers(ui: Ui, service) -> None:
    text = json.dumps(demo_data.ORDER_COMPATIBLE)
    result = ui.post("/ui/subjects/orders-value/check", {"schema": text, "schemaType": "AVRO"})
    form = result.main.find("form", action="/ui/subjects/orders-value/register")
    assert form is not None and form.find("input", name="schema").attrs["value"] == text
    done = ui.post("/ui/subjects/orders-value/register", {"schema": text, "schemaType": "AVRO"})
    assert done.status == 303
    assert service.list_versions("orders-value") == [1, 2, 3, 4]


def test_incompatible_registration_shows_40901_with_reasons(ui: Ui, service) -> None:
    page = ui.post("/ui/subjects/orders-value/register",
                   {"schema": json.dumps(demo_data.ORDER_INCOMPATIBLE), "schemaType": "AVRO"})
    assert page.status == 409
    assert "error 40901" in page.main.text and "priority" in page.main.text
    assert service.list_versions("orders-value") == [1, 2, 3]


def test_delete_asks_for_confirmation_first(ui: Ui, service) -> None:
    ask = ui.post("/ui/subjects/orders-value/versions/3/delete", {})
    assert ask.status == 200 and "Confirm" in ask.title
    assert service.list_versions("orders-value") == [1, 2, 3]
    confirm = ask.main.find("form", method="post")
    assert confirm.find("input", name="confirm").attrs["value"] == "yes"
    done = ui.post(confirm.attrs["action"], {"confirm": "yes"})
    assert done.status == 303
    assert service.list_versions("orders-value") == [1, 2]
    assert service.list_versions("orders-value", deleted=True) == [1, 2, 3]


def test_permanent_delete_of_a_soft_deleted_version(ui: Ui, service) -> None:
    service.delete_version("orders-value", "3")
    done = ui.post("/ui/subjects/orders-value/versions/3/delete", {"confirm": "yes", "permanent": "1"})
    assert done.status == 303
    assert service.list_versions("orders-value", deleted=True) == [1, 2]


def test_subject_delete_soft_then_permanent(ui: Ui, service) -> None:
    assert ui.post("/ui/subjects/orders-value/delete", {"confirm": "yes"}).status == 303
    assert service.list_subjects(None, deleted=True).count("orders-value") == 1
    assert "orders-value" not in service.list_subjects(None)
    assert ui.post("/ui/subjects/orders-value/delete", {"confirm": "yes", "permanent": "1"}).status == 303
    assert "orders-value" not in service.list_subjects(None, deleted=True)


def test_referenced_version_delete_shows_42206(ui: Ui, service) -> None:
    page = ui.post("/ui/subjects/customers-value/versions/1/delete", {"confirm": "yes"})
    assert page.status == 422
    assert "error 42206" in page.main.text
    assert service.list_versions("customers-value") == [1]


def test_read_only_mode_shows_42205(ui: Ui, service) -> None:
    service.update_mode("orders-value", "READONLY")
    page = ui.post("/ui/subjects/orders-value/versions/3/delete", {"confirm": "yes"})
    assert page.status == 422
    assert "error 42205" in page.main.text


def test_settings_are_set_and_cleared_on_a_subject(ui: Ui, service) -> None:
    assert ui.post("/ui/subjects/orders-value/settings", {"what": "compatibility", "value": "FULL"}).status == 303
    page = ui.get("/ui/subjects/orders-value")
    level = page.main.find(data_config="compatibility")
    assert (level.text, level.attrs["data-source"]) == ("FULL", "subject")
    assert ui.post("/ui/subjects/orders-value/settings", {"what": "compatibility", "value": ""}).status == 303
    level = ui.get("/ui/subjects/orders-value").main.find(data_config="compatibility")
    assert level.attrs["data-source"] != "subject"
    assert ui.post("/ui/subjects/orders-value/settings", {"what": "mode", "value": "READONLY"}).status == 303
    mode = ui.get("/ui/subjects/orders-value").main.find(data_config="mode")
    assert (mode.text, mode.attrs["data-source"]) == ("READONLY", "subject")


def test_global_and_context_settings(ui: Ui, service) -> None:
    assert ui.post("/ui/config", {"scope": "", "what": "compatibility", "value": "FORWARD"}).status == 303
    assert service.get_config(None)["compatibility"] == "FORWARD"
    assert ui.post("/ui/config", {"scope": ":.staging:", "what": "compatibility", "value": "NONE"}).status == 303
    staged = ui.get("/ui/subjects/%3A.staging%3Aorders-value").main.find(data_config="compatibility")
    assert (staged.text, staged.attrs["data-source"]) == ("NONE", "context")
    plain = ui.get("/ui/subjects/orders-value").main.find(data_config="compatibility")
    assert (plain.text, plain.attrs["data-source"]) == ("FORWARD", "global")


def test_invalid_level_is_refused_readably(ui: Ui) -> None:
    page = ui.post("/ui/subjects/orders-value/settings", {"what": "compatibility", "value": "SIDEWAYS"})
    assert page.status == 422
    assert "error 42203" in page.main.text
