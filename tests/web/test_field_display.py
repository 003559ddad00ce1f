"""How fields and reasons read on the version and diff pages: declarations as each format's
language writes them, reasons as Confluent's sentence with the error type as a label and a
link to the row of the field they are filed under, and Confluent's raw entries folded away."""
from __future__ import annotations

from typing import Any
from urllib.parse import unquote

from demo_data import register
from ui_client import Ui

PROTO_V1 = (
    'syntax = "proto3";\npackage shop;\nmessage Item {\n  int64 id = 1;\n  repeated string tags = 4;\n'
    "  map<string, int32> counts = 5;\n  oneof payment {\n    string card = 6;\n    string iban = 7;\n  }\n}\n"
)
PROTO_V2 = PROTO_V1.replace("repeated string tags = 4;", "string tags = 4;").replace("    string iban = 7;\n", "")


def two_versions(service: Any, subject: str, old: Any, new: Any, schema_type: str) -> None:
    service.update_config(subject, {"compatibility": "NONE"})
    register(service, subject, old, schema_type)
    register(service, subject, new, schema_type)
    service.update_config(subject, {"compatibility": "BACKWARD"})


def test_version_page_declares_protobuf_fields_as_the_proto_text_does(ui: Ui, service: Any) -> None:
    register(service, "shop", PROTO_V1, "PROTOBUF")

    outline = ui.get("/ui/subjects/shop/versions/1").main.find("section", **{"class": "outline"})

    lines = [" ".join(code.text.split()) for code in outline.find_all("code", **{"class": "decl"})]
    assert "repeated string tags = 4" in lines
    assert "map<string, int32> counts = 5" in lines
    assert "oneof payment { string card = 6; string iban = 7; }" in lines
    assert "label:" not in outline.text and "number:" not in outline.text


def test_diff_rows_show_both_declarations_of_a_changed_field(ui: Ui, service: Any) -> None:
    two_versions(service, "shop", PROTO_V1, PROTO_V2, "PROTOBUF")

    page = ui.get("/ui/subjects/shop/diff")

    tags = page.main.find("tr", id="field-Item.tags")
    assert " ".join(tags.find("div", **{"class": "was-now"}).text.split()) == (
        "repeated string tags = 4 → string tags = 4"
    )


def test_a_reason_is_a_sentence_with_its_error_type_and_a_link_to_its_row(ui: Ui, service: Any) -> None:
    two_versions(service, "shop", PROTO_V1, PROTO_V2, "PROTOBUF")

    page = ui.get("/ui/subjects/shop/diff")

    reason = page.main.find(data_direction="backward").find("li")
    assert reason.find("span", **{"class": "sentence"}).text.startswith("The new schema is missing a oneof field")
    assert reason.find("span", **{"class": "badge errtype"}).text == "ONEOF_FIELD_REMOVED"
    assert "{errorType" not in reason.text
    link = reason.find("a", **{"class": "at"})
    assert link.text == "Item.iban"
    assert page.main.find("tr", id=link.attrs["href"][1:]).attrs["data-change"] == "removed"


def test_a_link_finds_the_row_of_a_property_whose_name_needs_escaping(ui: Ui, service: Any) -> None:
    name = 'a b#"c"'
    old = {"type": "object", "properties": {name: {"type": "integer"}}}
    new = {"type": "object", "properties": {name: {"type": "string"}}}
    two_versions(service, "odd", old, new, "JSON")

    page = ui.get("/ui/subjects/odd/diff")

    link = page.main.find(data_direction="backward").find("a", **{"class": "at"})
    target = link.attrs["href"][1:]
    assert page.main.find("tr", id=target) is not None
    assert unquote(target) == f"field-{name}"


def test_confluents_raw_entries_are_folded_under_the_verdict(ui: Ui, service: Any) -> None:
    two_versions(service, "shop", PROTO_V1, PROTO_V2, "PROTOBUF")

    verdict = ui.get("/ui/subjects/shop/diff").main.find(data_verdict=True)

    raw = verdict.find("details", **{"class": "raw"})
    assert raw is not None and "{errorType:" in raw.text
    outside = [li for li in verdict.find_all("li") if raw not in _ancestors(li)]
    assert outside == []


def test_a_changed_flag_reads_as_words(ui: Ui, service: Any) -> None:
    old = {"type": "object", "properties": {"id": {"type": "integer"}}}
    new = {**old, "required": ["id"]}
    two_versions(service, "req", old, new, "JSON")

    row = ui.get("/ui/subjects/req/diff").main.find("tr", id="field-id")

    assert row.find("ul", **{"class": "changes"}).text == "now required"


def test_check_page_folds_the_raw_entries_of_each_version(ui: Ui, service: Any) -> None:
    register(service, "shop", PROTO_V1, "PROTOBUF")

    page = ui.post("/ui/subjects/shop/check", {"schema": PROTO_V2, "schemaType": "PROTOBUF",
                                               "target": "registration"})

    per_version = page.main.find("section", **{"class": "per-version"})
    assert per_version.find("details", **{"class": "raw"}) is not None
    assert page.main.find(data_direction="backward").find("span", **{"class": "badge errtype"}) is not None


def test_avro_outline_reads_unions_and_logical_types(ui: Ui, service: Any) -> None:
    register(service, "users", {"type": "record", "name": "User", "fields": [
        {"name": "email", "type": ["null", "string"], "default": None},
        {"name": "created", "type": {"type": "long", "logicalType": "timestamp-millis"}},
    ]})

    outline = ui.get("/ui/subjects/users").main.find("section", **{"class": "outline"})

    lines = [" ".join(code.text.split()) for code in outline.find_all("code", **{"class": "decl"})]
    assert lines == ["email null | string = null", "created long (timestamp-millis)"]


def _ancestors(element: Any) -> list[Any]:
    found = []
    while element.parent is not None:
        element = element.parent
        found.append(element)
    return found
