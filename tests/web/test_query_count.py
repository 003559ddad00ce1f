"""The list and search pages run the same number of SQL statements whatever `per_page` is,
and a subject page the same whatever the length of its history:
a count of statements (SQLAlchemy's before_cursor_execute), not a timing."""
from __future__ import annotations

import json
from app.core.types import SchemaRequest
from support.statements import counted
from ui_client import Ui

SUBJECTS = 120


def _fill(service) -> None:
    for n in range(SUBJECTS):
        schema = {"type": "record", "name": f"Row{n}", "fields": [{"name": "amount", "type": "long"},
                                                                  {"name": f"extra{n}", "type": "string"}]}
        service.register(f"sub-{n:04d}-value", SchemaRequest(schema=json.dumps(schema)))


def test_list_and_search_cost_the_same_statements_at_50_and_500_per_page(ui: Ui, service) -> None:
    _fill(service)
    engine = service.storage.engine
    for path, params in (("/ui/", {}), ("/ui/", {"q": "sub"}), ("/ui/search", {"q": "amount"}),
                         ("/ui/search", {"q": "sub", "scope": "all"})):
        counts = []
        for per_page in ("50", "500"):
            ui.get(path, per_page=per_page, **params)  # warm the process caches first
            with counted(engine) as statements:
                page = ui.get(path, per_page=per_page, **params)
            assert page.status == 200
            counts.append(len(statements))
        assert counts[0] == counts[1], (path, params, counts)
    shown = ui.get("/ui/search", q="amount", per_page="500").main.find(data_results="fields")
    assert len(shown.find_all("tr")) - 1 == SUBJECTS


def test_a_subject_page_costs_the_same_statements_at_3_and_12_versions(ui: Ui, service) -> None:
    engine = service.storage.engine
    counts = []
    for subject, versions in (("short-value", 3), ("long-value", 12)):
        service.update_config(subject, {"compatibility": "NONE"})
        for n in range(versions):
            schema = {"type": "record", "name": "Grows", "fields": [{"name": f"f{n}", "type": "long"}]}
            service.register(subject, SchemaRequest(schema=json.dumps(schema)))
        ui.get(f"/ui/subjects/{subject}")  # warm the content caches first
        service.update_config("unrelated-value", {"compatibility": "FULL"})  # any commit: replies are read again
        with counted(engine) as statements:
            page = ui.get(f"/ui/subjects/{subject}")
        assert page.status == 200
        counts.append(len(statements))
    assert counts[0] == counts[1], counts
