"""The UI in a real browser: a user's walk through list → subject → version → diff → schema by
id → search by field → check form (compatible and incompatible) → a subject with `/` → a
context, failing on any dialog, page error, CSP violation or request to another origin."""
from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

import pytest

import demo_data
from ui_browser import Watch, browser_missing, demo_server, launched
from ui_client import enc

pytestmark = pytest.mark.slow


@pytest.fixture(scope="session")
def browser() -> Iterator[Any]:
    from ui_ci import require_or_skip

    require_or_skip(browser_missing())
    with launched() as browser:
        yield browser


@pytest.fixture(scope="session")
def base_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with demo_server(tmp_path_factory.mktemp("ui-browser")) as url:
        yield url


@pytest.fixture
def page(browser: Any, base_url: str) -> Iterator[tuple[Any, Watch]]:
    context = browser.new_context(base_url=base_url)
    tab = context.new_page()
    watch = Watch(base_url)
    watch.attach(tab)
    yield tab, watch
    watch.check(tab)
    context.close()


def _main_text(tab: Any) -> str:
    return tab.locator("main").inner_text()


def _titled(tab: Any, pattern: str) -> None:
    """Wait for the page a click opened: its title names what it shows."""
    from playwright.sync_api import expect

    expect(tab).to_have_title(re.compile(pattern))


def test_walk_from_list_to_context(page: tuple[Any, Watch]) -> None:
    tab, watch = page
    tab.goto("/ui/")
    _titled(tab, "^Subjects")
    tab.locator("main table").get_by_role("link", name="orders-value", exact=True).click()
    _titled(tab, "orders-value")
    assert tab.locator('[data-config="compatibility"]').inner_text() == "BACKWARD"
    assert tab.locator("section.outline details").count() >= 1
    watch.check(tab)

    tab.locator("main table").last.locator("td:first-child").get_by_role("link", name="2", exact=True).click()
    _titled(tab, "version 2")
    tab.get_by_role("link", name="Diff with latest").click()
    _titled(tab, "v2 → v3")
    assert tab.locator('[data-verdict="compatible"]').count() == 1
    assert tab.locator('[data-change="added"]', has_text="address").count() == 1
    # With scripts on, the text view is one click away and the structural one hides.
    tab.get_by_role("button", name="Text view").click()
    assert tab.locator("#textdiff").is_visible()
    watch.check(tab)

    tab.goto("/ui/subjects/orders-value/versions/3")
    tab.locator("dl.facts").get_by_role("link").first.click()
    _titled(tab, r"^Schema id \d+")
    assert tab.locator("main a", has_text="orders-value v3").count() == 1
    watch.check(tab)

    tab.fill("header input[data-search]", "curren")
    tab.press("header input[data-search]", "Enter")
    _titled(tab, "^Search: curren")
    fields = tab.locator('[data-results="fields"]')
    assert "currency" in fields.inner_text() and "ISO 4217 code" in fields.inner_text()
    watch.check(tab)

    for schema, verdict in ((demo_data.ORDER_COMPATIBLE, "compatible"), (demo_data.ORDER_INCOMPATIBLE, "incompatible")):
        tab.goto("/ui/subjects/orders-value/check")
        form = tab.locator('form[data-form="check"]')
        form.locator('textarea[name="schema"]').fill(json.dumps(schema))
        form.locator('select[name="schemaType"]').select_option("AVRO")
        form.get_by_role("button", name="Check compatibility").click()
        tab.wait_for_load_state()
        result = tab.locator("[data-verdict]").first
        assert result.get_attribute("data-verdict") == verdict
        if verdict == "incompatible":
            # Confluent's raw entries are folded away; the reason reads as a sentence whose
            # link leads to the row of its field.
            assert "{errorType" not in result.inner_text()
            reason = tab.locator('[data-direction="backward"] li').first
            assert "priority" in reason.inner_text()
            reason.locator("a.at").click()
            assert tab.url.endswith("#field-priority")
            target = tab.locator("tr:target")
            assert target.count() == 1 and "priority" in target.inner_text()
            assert target.is_visible()
        assert tab.locator('form[data-form="check"] textarea[name="schema"]').input_value() == json.dumps(schema)
        watch.check(tab)

    tab.goto("/ui/")
    tab.get_by_role("link", name=demo_data.SUBJECT_WITH_SLASH, exact=True).first.click()
    _titled(tab, "com/acme/order.proto")
    assert tab.url.endswith("/ui/subjects/" + enc(demo_data.SUBJECT_WITH_SLASH))
    assert "PROTOBUF" in _main_text(tab)
    watch.check(tab)

    tab.goto("/ui/contexts")
    tab.locator("main").get_by_role("link", name=".staging", exact=True).click()
    _titled(tab, "^Subjects")
    assert tab.url.endswith("/ui/?context=.staging")
    rows = tab.locator("main table tbody tr")
    assert rows.count() == 1 and demo_data.STAGING_SUBJECT in rows.inner_text()
    rows.get_by_role("link", name=demo_data.STAGING_SUBJECT).click()
    _titled(tab, "staging")
    assert tab.url.endswith("/ui/subjects/%3A.staging%3Aorders-value")


def test_slash_focuses_search_and_copy_needs_no_dialog(page: tuple[Any, Watch]) -> None:
    tab, watch = page
    tab.goto("/ui/subjects/orders-value")
    tab.keyboard.press("/")
    assert tab.evaluate("document.activeElement.hasAttribute('data-search')")
    tab.get_by_role("button", name="Wrap lines").first.click()
    assert "wrap" in (tab.locator("pre.schema").first.get_attribute("class") or "")


def test_delete_confirmation_is_a_page_not_a_dialog(page: tuple[Any, Watch]) -> None:
    tab, watch = page
    tab.goto("/ui/subjects/payments-value")
    tab.get_by_role("button", name="Delete subject (soft)").click()
    _titled(tab, "^Confirm")
    tab.get_by_role("link", name="Cancel").click()
    _titled(tab, "payments-value")


def _rest(base_url: str, method: str, path: str, body: dict[str, Any]) -> None:
    import urllib.request

    request = urllib.request.Request(base_url + path, data=json.dumps(body).encode(), method=method,
                                     headers={"Content-Type": "application/vnd.schemaregistry.v1+json"})
    with urllib.request.urlopen(request):
        pass


def test_impact_from_the_subject_page_to_the_check_forms_verdict(page: tuple[Any, Watch], base_url: str) -> None:
    """A shared record's page lists the topic of the subject that references it; checking a
    breaking change says that subject would be affected (issue 40)."""
    tab, watch = page
    common = {"type": "record", "name": "Shared", "namespace": "impact", "fields": [{"name": "at", "type": "long"}]}
    event = {"type": "record", "name": "Event", "namespace": "impact",
             "fields": [{"name": "shared", "type": "impact.Shared"}]}
    _rest(base_url, "POST", "/subjects/impact-shared/versions", {"schema": json.dumps(common)})
    _rest(base_url, "POST", "/subjects/impact-events-value/versions", {
        "schema": json.dumps(event), "references": [{"name": "impact.Shared", "subject": "impact-shared", "version": 1}]})
    _rest(base_url, "POST", "/associations", {
        "resourceName": "impact-events", "resourceNamespace": "lkc-ui", "resourceId": "id-impact-events",
        "resourceType": "topic",
        "associations": [{"subject": "impact-events-value", "associationType": "value", "lifecycle": "WEAK"}]})

    tab.goto("/ui/subjects/impact-shared")
    referrers = tab.locator('[data-section="impact"] [data-impact="referrers"]')
    assert "impact-events-value" in referrers.inner_text() and "impact-events" in referrers.inner_text()
    watch.check(tab)

    tab.get_by_role("link", name="Check a schema").click()
    _titled(tab, "^Check a schema")
    form = tab.locator('form[data-form="check"]')
    form.locator('textarea[name="schema"]').fill(json.dumps({**common, "fields": [{"name": "at", "type": "string"}]}))
    form.get_by_role("button", name="Check compatibility").click()
    tab.wait_for_load_state()
    row = tab.locator('[data-section="impact"] tr[data-referrer="impact-events-value"]')
    assert row.get_attribute("data-affected") == "yes" and "impact-events" in row.inner_text()
