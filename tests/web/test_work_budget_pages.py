"""The web UI under the request's work budget (`REGISTRY_WORK_BUDGET_SECONDS`): a page whose
parsing or checking runs past it answers 503 with the error page, and nothing is changed.

The budget's CPU clock is the test's own, advancing a second at each reading: the default 5 s
budget runs out at a parse's sixth record field, on any machine."""
from __future__ import annotations

import itertools
import json

import pytest

from app.formats import work_budget
from app.web import BUDGET_SPENT
from ui_client import Ui

pytestmark = pytest.mark.usefixtures("demo")

LARGE = json.dumps({"type": "record", "name": "Rec", "fields": [
    {"name": f"f{i}", "type": "string", "default": ""} for i in range(50)]})


@pytest.fixture(autouse=True)
def ticking(monkeypatch: pytest.MonkeyPatch) -> None:
    ticks = itertools.count()
    monkeypatch.setattr(work_budget, "cpu_clock", lambda: float(next(ticks)))


@pytest.mark.parametrize("path, form", [
    ("/ui/new", {"subject": "orders-value"}),
    ("/ui/subjects/orders-value/check", {}),
    ("/ui/subjects/orders-value/register", {}),
])
def test_a_page_past_the_budget_answers_503_and_changes_nothing(ui: Ui, service, path: str, form: dict) -> None:
    before = service.list_versions("orders-value")
    page = ui.post(path, {**form, "schema": LARGE, "schemaType": "AVRO"})
    assert page.status == 503
    assert BUDGET_SPENT in page.main.text
    assert service.list_versions("orders-value") == before
