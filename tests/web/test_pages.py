"""Every UI route on the demo registry: status, one <main>, a title naming what is shown, the
stable hooks the issue fixes, and the REST root left alone."""
from __future__ import annotations

import io
import json
import zipfile

import pytest

from ui_client import Ui, enc
from demo_data import STAGING_SUBJECT, SUBJECT_WITH_SLASH

pytestmark = pytest.mark.usefixtures("demo")


def test_rest_root_still_answers_empty_json(ui: Ui) -> None:
    response = ui.client.get("/")
    assert response.status_code == 200
    assert response.get_json() == {}


def test_ui_without_slash_redirects_to_the_list(ui: Ui) -> None:
    response = ui.client.get("/ui")
    assert response.status_code in (301, 308)
    assert response.headers["Location"].endswith("/ui/")


def test_list_shows_every_live_subject_with_its_columns(ui: Ui) -> None:
    page = ui.get("/ui/")
    assert page.status == 200 and "Subjects" in page.title
    rows = page.main.find("table").find_all("tr")[1:]
    names = [r.find("td").text.split(" deleted")[0].strip() for r in rows]
    # By context ("." first), then name.
    assert names == sorted(names, key=lambda n: (n.startswith(":"), n))
    assert {"orders-value", "customers-value", SUBJECT_WITH_SLASH, STAGING_SUBJECT} <= set(names)
    assert "legacy-value" not in names
    orders = next(r for r in rows if r.find("td").text.strip() == "orders-value")
    cells = [td.text.strip() for td in orders.find_all("td")]
    assert cells[1:5] == ["AVRO", "3", "3", "3"]
    assert cells[5] == "BACKWARD"
    assert page.main.find(data_config="compatibility").text == "BACKWARD"
    assert page.main.find(data_config="compatibility").attrs["data-source"] == "default"


def test_list_filters_by_name_context_type_and_deleted(ui: Ui) -> None:
    def names(**params: str) -> set[str]:
        page = ui.get("/ui/", **params)
        assert page.status == 200
        return {r.find("td").find("a").text for r in page.main.find("table").find_all("tr")[1:]}

    assert names(q="ORDERS") == {"orders-value", STAGING_SUBJECT}
    assert names(context=".staging") == {STAGING_SUBJECT}
    assert names(type="JSON") == {"payments-value"}
    assert names(level="FULL_TRANSITIVE", own="1") == {"payments-value"}
    assert "legacy-value" in names(deleted="1")


def test_own_filter_keeps_subjects_with_their_own_config_not_only_a_mode(ui: Ui, service) -> None:
    service.update_mode("orders-value", "READONLY")
    service.update_config(STAGING_SUBJECT, {"normalize": True})  # a config without a level is one too

    def names(path: str, **params: str) -> set[str]:
        page = ui.get(path, **params)
        assert page.status == 200
        return {r.find("td").find("a").text for r in page.main.find_all("table")[-1].find_all("tr")[1:]}

    assert names("/ui/", own="1") == {"payments-value", STAGING_SUBJECT}
    # The configuration page lists every subject overriding a setting, a mode included.
    assert names("/ui/config") == {"payments-value", STAGING_SUBJECT, "orders-value"}


def test_list_pages_with_prev_and_next_links(ui: Ui) -> None:
    first = ui.get("/ui/", per_page="2")
    assert "1–2 of" in first.main.text
    assert first.main.find("a", rel="next") is not None and first.main.find("a", rel="prev") is None
    second = ui.get("/ui/", per_page="2", page="2")
    assert "3–4 of" in second.main.text
    assert second.main.find("a", rel="prev") is not None


def test_per_page_over_the_maximum_is_clamped(ui: Ui) -> None:
    page = ui.get("/ui/", per_page="100000")
    assert page.status == 200
    assert page.main.find("form", **{"class": "filters"}) is not None
    assert "per_page=500" in ui.get("/ui/", per_page="100000", page="2").main.find("a", rel="prev").attrs["href"]


def test_unknown_context_filter_gives_an_empty_list_with_a_notice(ui: Ui) -> None:
    page = ui.get("/ui/", context=".nowhere")
    assert page.status == 200
    assert "no context named .nowhere" in page.main.text
    assert len(page.main.find("table").find_all("tr")) == 1


def test_subject_page_shows_settings_tree_versions_and_links(ui: Ui) -> None:
    page = ui.get("/ui/subjects/orders-value")
    assert page.status == 200 and "orders-value" in page.title
    level = page.main.find(data_config="compatibility")
    assert (level.text, level.attrs["data-source"]) == ("BACKWARD", "default")
    assert page.main.find(data_config="mode").text == "READWRITE"
    versions = [r.find("td").find("a").text for r in page.main.find_all("table")[-1].find_all("tr")[1:]]
    assert versions == ["3", "2", "1"]
    hrefs = {a.attrs.get("href") for a in page.main.find_all("a")}
    assert "/ui/subjects/orders-value/diff" in hrefs
    assert "/ui/subjects/orders-value/check" in hrefs
    assert "/ui/subjects/orders-value/export.zip" in hrefs
    assert page.main.find(data_refs="uses") is not None and page.main.find(data_refs="used-by") is not None


def test_own_level_is_shown_with_its_source(ui: Ui) -> None:
    page = ui.get("/ui/subjects/payments-value")
    level = page.main.find(data_config="compatibility")
    assert (level.text, level.attrs["data-source"]) == ("FULL_TRANSITIVE", "subject")


def test_references_link_both_ways(ui: Ui) -> None:
    invoices = ui.get("/ui/subjects/invoices-value")
    uses = invoices.main.find(data_refs="uses")
    assert uses.find("a", href="/ui/subjects/customers-value/versions/1") is not None
    customers = ui.get("/ui/subjects/customers-value/versions/1")
    used_by = customers.main.find(data_refs="used-by")
    assert used_by.find("a", href="/ui/subjects/invoices-value/versions/1") is not None


@pytest.mark.parametrize("subject", ["orders-value", SUBJECT_WITH_SLASH, STAGING_SUBJECT])
def test_subject_pages_open_by_their_encoded_name(ui: Ui, subject: str) -> None:
    page = ui.get(f"/ui/subjects/{enc(subject)}")
    assert page.status == 200
    assert subject in page.main.find("h1").text


def test_subject_links_are_encoded_with_nothing_safe(ui: Ui) -> None:
    page = ui.get("/ui/")
    hrefs = {a.attrs.get("href") for a in page.main.find_all("a")}
    assert "/ui/subjects/com%2Facme%2Forder.proto" in hrefs
    assert "/ui/subjects/%3A.staging%3Aorders-value" in hrefs


def test_version_page_shows_facts_text_and_diff_links(ui: Ui) -> None:
    page = ui.get("/ui/subjects/orders-value/versions/2")
    assert page.status == 200 and "version 2" in page.title
    assert "Order number" in page.main.text
    hrefs = {a.attrs.get("href") for a in page.main.find_all("a")}
    assert "/ui/subjects/orders-value/diff?from=1&to=2" in hrefs
    assert "/ui/subjects/orders-value/diff?from=2&to=3" in hrefs
    assert "/ui/subjects/orders-value/versions/2/download" in hrefs


def test_latest_version_page_is_the_newest_live_one(ui: Ui) -> None:
    assert "version 3" in ui.get("/ui/subjects/orders-value/versions/latest").title


def test_soft_deleted_version_has_a_banner(ui: Ui, service) -> None:
    service.delete_version("orders-value", "1")
    page = ui.get("/ui/subjects/orders-value/versions/1")
    assert page.status == 200
    assert "soft-deleted" in page.main.find("p", role="note").text
    listed = ui.get("/ui/subjects/orders-value")
    assert [r.find("td").find("a").text for r in listed.main.find_all("table")[-1].find_all("tr")[1:]] == ["3", "2"]
    with_deleted = ui.get("/ui/subjects/orders-value", deleted="1")
    rows = with_deleted.main.find_all("table")[-1].find_all("tr")[1:]
    assert "deleted" in rows[-1].text


def test_diff_defaults_to_previous_against_latest_with_verdicts(ui: Ui) -> None:
    page = ui.get("/ui/subjects/orders-value/diff")
    assert page.status == 200 and "v2 → v3" in page.title
    verdict = page.main.find(data_verdict=True)
    assert verdict.attrs["data-verdict"] == "compatible"
    directions = {d.attrs["data-direction"]: d.attrs["data-ok"] for d in page.main.find_all(data_direction=True)}
    assert directions == {"backward": "true", "forward": "true"}


def test_text_view_shows_both_texts_side_by_side(ui: Ui) -> None:
    page = ui.get("/ui/subjects/orders-value/diff", **{"from": "1", "to": "2", "view": "text"})
    assert page.status == 200
    changed = [tr.text for tr in page.main.find_all("tr", **{"class": "changed"})]
    added = [tr.text for tr in page.main.find_all("tr", **{"class": "added"})]
    assert any('"int"' in row and '"long"' in row for row in changed)
    assert any("currency" in row for row in added + changed)


def test_diff_under_none_says_nothing_is_checked(ui: Ui, service) -> None:
    service.update_config("orders-value", {"compatibility": "NONE"})
    page = ui.get("/ui/subjects/orders-value/diff")
    assert "nothing is checked" in page.main.find(data_verdict=True).text


def test_diff_under_a_transitive_level_names_what_registration_compares(ui: Ui, service) -> None:
    service.update_config("orders-value", {"compatibility": "BACKWARD_TRANSITIVE"})
    page = ui.get("/ui/subjects/orders-value/diff")
    verdict = page.main.find(data_verdict=True)
    assert "3, 2, 1" in verdict.text
    assert verdict.find("a", href="/ui/subjects/orders-value/check") is not None


def test_schema_by_id_lists_its_holders(ui: Ui) -> None:
    page = ui.get("/ui/schemas/4")
    assert page.status == 200 and "Schema id 4" in page.title
    holders = {a.attrs["href"] for a in page.main.find_all("a") if "/versions/" in a.attrs.get("href", "")}
    assert "/ui/subjects/customers-value/versions/1" in holders


def test_schema_by_id_lists_other_contexts_and_opens_them(ui: Ui) -> None:
    page = ui.get("/ui/schemas/1")
    assert page.main.find("a", href="/ui/schemas/1?context=.staging") is not None
    staging = ui.get("/ui/schemas/1", context=".staging")
    assert staging.status == 200 and ".staging" in staging.title
    assert staging.main.find("a", href="/ui/subjects/%3A.staging%3Aorders-value/versions/1") is not None


def test_search_finds_subjects_by_name_and_numbers_go_to_the_id(ui: Ui) -> None:
    page = ui.get("/ui/search", q="custom")
    assert page.status == 200
    subjects = page.main.find(data_results="subjects")
    assert subjects.find("a", href="/ui/subjects/customers-value") is not None
    jump = ui.client.get("/ui/search?q=4")
    assert jump.status_code == 303 and jump.headers["Location"].endswith("/ui/schemas/4")


def test_check_form_is_there_with_its_hooks(ui: Ui) -> None:
    page = ui.get("/ui/subjects/orders-value/check")
    form = page.main.find("form", data_form="check")
    assert form is not None
    assert form.find("textarea", name="schema") is not None
    assert form.find("select", name="schemaType") is not None
    assert form.find("button", type="submit") is not None


@pytest.mark.parametrize(
    ("schema", "verdict"),
    [("ORDER_COMPATIBLE", "compatible"), ("ORDER_INCOMPATIBLE", "incompatible")],
)
def test_check_form_evaluates_a_candidate_and_keeps_the_text(ui: Ui, service, schema: str, verdict: str) -> None:
    import demo_data

    text = json.dumps(getattr(demo_data, schema))
    page = ui.post("/ui/subjects/orders-value/check", {"schema": text, "schemaType": "AVRO"})
    assert page.status == 200
    found = page.main.find(data_verdict=True)
    assert found.attrs["data-verdict"] == verdict
    if verdict == "incompatible":
        assert "priority" in found.text
    assert page.main.find("textarea", name="schema").text == text
    assert service.list_versions("orders-value") == [1, 2, 3]


def test_the_check_verdicts_first_line_names_the_field(ui: Ui) -> None:
    import demo_data

    page = ui.post("/ui/subjects/orders-value/check",
                   {"schema": json.dumps(demo_data.ORDER_INCOMPATIBLE), "schemaType": "AVRO"})
    heading = page.main.find(data_verdict=True).find("h2")
    assert " ".join(heading.text.split()) == "Incompatible under BACKWARD: field priority (default)"
    assert [code.text for code in heading.find_all("code")] == ["priority"]


def test_a_diff_verdicts_first_line_names_the_fields_of_the_checked_direction(ui: Ui) -> None:
    page = ui.get("/ui/subjects/orders-value/diff", **{"from": "3", "to": "1"})
    heading = page.main.find(data_verdict=True).find("h2")
    assert heading.text.split(":")[0].strip() == "Incompatible under BACKWARD"
    assert "amount" in [code.text for code in heading.find_all("code")]


def test_check_against_one_version(ui: Ui) -> None:
    import demo_data

    text = json.dumps(demo_data.ORDER_V1)
    page = ui.post("/ui/subjects/orders-value/check", {"schema": text, "schemaType": "AVRO", "target": "1"})
    assert page.main.find(data_verdict=True).attrs["data-verdict"] == "compatible"
    assert "with version 1" in page.main.text


def test_contexts_page_lists_contexts_with_counts(ui: Ui) -> None:
    page = ui.get("/ui/contexts")
    assert page.status == 200
    rows = {r.find("td").text: r.find_all("td")[1].text for r in page.main.find("table").find_all("tr")[1:]}
    assert rows[".staging"] == "1"
    assert page.main.find("a", href="/ui/?context=.staging") is not None


def test_config_page_lists_overriding_subjects(ui: Ui) -> None:
    page = ui.get("/ui/config")
    assert page.status == 200
    assert page.main.find("a", href="/ui/subjects/payments-value") is not None


def test_download_serves_the_schema_as_a_file(ui: Ui) -> None:
    response = ui.client.get("/ui/subjects/orders-value/versions/1/download")
    assert response.status_code == 200
    assert 'filename="orders-value-v1.avsc"' in response.headers["Content-Disposition"]
    assert json.loads(response.get_data(as_text=True))["name"] == "Order"
    proto = ui.client.get(f"/ui/subjects/{enc(SUBJECT_WITH_SLASH)}/versions/1/download")
    assert proto.headers["Content-Disposition"].endswith('.proto"')


def test_export_zip_holds_every_version_and_a_manifest(ui: Ui, service) -> None:
    service.delete_version("orders-value", "1")
    response = ui.client.get("/ui/subjects/orders-value/export.zip")
    assert response.status_code == 200 and response.mimetype == "application/zip"
    archive = zipfile.ZipFile(io.BytesIO(response.get_data()))
    manifest = json.loads(archive.read("manifest.json"))
    assert [(v["version"], v["id"], v["deleted"]) for v in manifest["versions"]] == [(1, 1, True), (2, 2, False), (3, 3, False)]
    assert set(archive.namelist()) == {"manifest.json", *(v["file"] for v in manifest["versions"])}


def test_static_files_are_served_with_the_headers(ui: Ui) -> None:
    for name in ("ui.css", "ui.js"):
        response = ui.client.get(f"/ui/static/{name}")
        assert response.status_code == 200
        assert "default-src 'self'" in response.headers["Content-Security-Policy"]
        assert response.headers["X-Content-Type-Options"] == "nosniff"


def test_search_finds_fields_by_name_prefix_with_type_and_doc(ui: Ui) -> None:
    page = ui.get("/ui/search", q="curr")
    fields = page.main.find(data_results="fields")
    rows = [[td.text for td in tr.find_all("td")] for tr in fields.find_all("tr")[1:]]
    assert ["orders-value v3", "currency", "string", "ISO 4217 code"] in rows
    assert all(not r[0].startswith("orders-value v2") for r in rows)
    older = ui.get("/ui/search", q="curr", scope="all").main.find(data_results="fields")
    assert "orders-value v2" in older.text


def test_search_finds_named_types(ui: Ui) -> None:
    types = ui.get("/ui/search", q="address").main.find(data_results="types")
    assert "com.acme.Address" in types.text
    assert types.find("a", href="/ui/subjects/orders-value/versions/3") is not None


def test_field_tree_shows_nested_fields_with_type_default_and_doc(ui: Ui) -> None:
    page = ui.get("/ui/subjects/orders-value")
    tree = page.main.find("section", **{"class": "outline"})
    assert tree is not None
    text = tree.text
    assert "currency" in text and '"EUR"' in text and "ISO 4217 code" in text
    assert "city" in text and tree.find("details") is not None


def test_diff_rows_name_the_fields_that_changed(ui: Ui) -> None:
    page = ui.get("/ui/subjects/orders-value/diff", **{"from": "1", "to": "3"})
    rows = {(r.attrs["data-change"], r.find("code").text) for r in page.main.find_all(data_change=True)}
    assert ("changed", "amount") in rows
    assert ("added", "currency") in rows
    assert ("added", "address") in rows


def test_diff_reasons_point_at_the_field_both_ways(ui: Ui) -> None:
    page = ui.get("/ui/subjects/orders-value/diff", **{"from": "3", "to": "1"})
    verdict = page.main.find(data_verdict=True)
    assert verdict.attrs["data-verdict"] == "incompatible"
    back = page.main.find(data_direction="backward")
    assert back.attrs["data-ok"] == "false"
    assert "amount" in back.text


def test_diff_rows_show_combination_members_and_every_reason(ui: Ui, service) -> None:
    from demo_data import register

    def member(kind: str) -> dict:
        return {"type": "object", "properties": {"a": {"type": kind}, "b": {"type": kind}},
                "additionalProperties": False}

    service.update_config("pay-json", {"compatibility": "NONE"})
    register(service, "pay-json", {"oneOf": [{"type": "string"}, member("string")]}, "JSON")
    register(service, "pay-json", {"oneOf": [{"type": "string"}, member("integer")]}, "JSON")

    page = ui.get("/ui/subjects/pay-json/diff")

    rows = {r.find("code").text: r for r in page.main.find_all("tr", data_change="changed")}
    assert set(rows) == {"(root)", "oneOf[1].a", "oneOf[1].b"}
    # Which members pair up is not in the field tree: the reason sits on the root's own row.
    assert "A change the field tree does not show" in rows["(root)"].text
    assert "COMBINED_TYPE_SUBSCHEMAS_CHANGED" in rows["(root)"].text
    for direction in ("backward", "forward"):
        listed = page.main.find(data_direction=direction)
        assert listed.attrs["data-ok"] == "false" and "COMBINED_TYPE_SUBSCHEMAS_CHANGED" in listed.text


@pytest.mark.parametrize("subject", [
    "100%-value", "what?-value", "hash#tag", "with space", "<angle>", "Zürich-ünïcode-value", "a/b/c", "%2F-literal",
])
def test_awkward_subject_names_open_their_own_pages(ui: Ui, service, subject: str) -> None:
    from demo_data import CUSTOMER, register

    register(service, subject, CUSTOMER)
    listing = ui.get("/ui/", q=subject)
    link = listing.main.find("a", href=f"/ui/subjects/{enc(subject)}")
    assert link is not None and link.text == subject
    for path in (f"/ui/subjects/{enc(subject)}", f"/ui/subjects/{enc(subject)}/versions/1",
                 f"/ui/subjects/{enc(subject)}/check", f"/ui/subjects/{enc(subject)}/diff"):
        page = ui.get(path)
        assert page.status == 200, path
        assert subject in page.main.find("h1").text
