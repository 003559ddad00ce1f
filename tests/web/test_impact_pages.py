"""The UI's impact (issue 40): a subject's page shows the topics associated with it and the
subjects referencing it transitively; the check form says which of them a candidate would
affect. On SQLite and PostgreSQL."""
from __future__ import annotations

import json

from flask.testing import FlaskClient

from ui_client import Ui

V1 = "application/vnd.schemaregistry.v1+json"
COMMON = {"type": "record", "name": "Common", "namespace": "shop", "fields": [{"name": "at", "type": "long"}]}
EVENT = {"type": "record", "name": "Event", "namespace": "shop", "fields": [{"name": "common", "type": "shop.Common"}]}
AUDIT = {"type": "record", "name": "Audit", "namespace": "shop", "fields": [{"name": "event", "type": "shop.Event"}]}
BREAKING = json.dumps({**COMMON, "fields": [{"name": "at", "type": "string"}]})


def _send(client: FlaskClient, path: str, body: dict, method: str = "POST") -> None:
    reply = client.open(path, method=method, data=json.dumps(body), headers={"Content-Type": V1})
    assert reply.status_code == 200, reply.get_data()


def chain(client: FlaskClient) -> None:
    """common <- events-value <- audit-value; topic `events` on events-value, `commons` on common."""
    _send(client, "/subjects/common/versions", {"schema": json.dumps(COMMON)})
    _send(client, "/subjects/events-value/versions", {
        "schema": json.dumps(EVENT), "references": [{"name": "shop.Common", "subject": "common", "version": 1}]})
    _send(client, "/subjects/audit-value/versions", {
        "schema": json.dumps(AUDIT), "references": [{"name": "shop.Event", "subject": "events-value", "version": 1}]})
    _send(client, "/config/events-value", {"compatibility": "NONE"}, "PUT")
    for topic, subject in (("commons", "common"), ("events", "events-value")):
        _send(client, "/associations", {
            "resourceName": topic, "resourceNamespace": "lkc-1", "resourceId": f"id-{topic}", "resourceType": "topic",
            "associations": [{"subject": subject, "associationType": "value", "lifecycle": "WEAK"}]})


def test_the_subject_page_shows_its_topics_and_its_referrers_transitively(ui: Ui) -> None:
    chain(ui.client)
    section = ui.get("/ui/subjects/common").main.find(data_section="impact")
    assert [li.attrs["data-topic"] for li in section.find(data_impact="topics").find_all("li")] == ["commons"]
    referrers = section.find(data_impact="referrers").find_all("li")
    assert [li.attrs["data-referrer"] for li in referrers] == ["events-value", "audit-value"]
    assert "events" in referrers[0].text and "through events-value" in referrers[1].text
    assert section.find(data_impact="truncated") is None


def test_the_check_form_says_which_referrers_and_topics_a_candidate_would_affect(ui: Ui) -> None:
    chain(ui.client)
    ui.get("/ui/subjects/common/check")
    page = ui.post("/ui/subjects/common/check", {"schema": BREAKING, "schemaType": "AVRO"})
    assert page.status == 200
    section = page.main.find(data_section="impact")
    assert "Affected" in section.find(data_impact="topics").text
    rows = {tr.attrs["data-referrer"]: tr for tr in section.find(data_impact="referrers").find_all("tr")[1:]}
    # events-value is under NONE: its own level lets it take the change; audit-value's does not
    assert {name: tr.attrs["data-affected"] for name, tr in rows.items()} == {"events-value": "no", "audit-value": "yes"}
    assert "NONE" in rows["events-value"].text and "BACKWARD" in rows["audit-value"].text
    assert "events" in rows["events-value"].text


def test_a_subject_without_referrers_or_topics_says_none(ui: Ui) -> None:
    chain(ui.client)
    section = ui.get("/ui/subjects/audit-value").main.find(data_section="impact")
    assert section.find(data_impact="topics").text.strip().endswith("None.")
    assert section.find(data_impact="referrers").text.strip().endswith("None.")
