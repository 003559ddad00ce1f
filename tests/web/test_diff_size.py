"""The diff and check pages stay small: a type shared on every level of a deep chain is one
reason, and long lists show their first 100 rows or reasons and a line counting the rest."""
from __future__ import annotations

import json
from typing import Any

from demo_data import register
from support.shared_types import avro_shared_chain as shared_chain
from support.shared_types import avro_wide_record as wide
from ui_client import Ui


def two_versions(service: Any, subject: str, old: dict[str, Any], new: dict[str, Any]) -> None:
    service.update_config(subject, {"compatibility": "NONE"})
    register(service, subject, old)
    register(service, subject, new)


def test_diff_of_a_type_shared_on_forty_levels_is_a_small_page(ui: Ui, service: Any) -> None:
    two_versions(service, "chain", shared_chain(40, "string"), shared_chain(40, "int"))
    service.update_config("chain", {"compatibility": "BACKWARD"})

    page = ui.get("/ui/subjects/chain/diff")

    assert page.status == 200
    back = page.main.find(data_direction="backward")
    assert back.attrs["data-ok"] == "false"
    assert len(back.find_all("li")) == 1
    assert page.main.find(data_verdict=True).attrs["data-verdict"] == "incompatible"
    assert len(page.main.find(id="structural").text) < 5_000
    # the text view shows both texts in full, pretty-printed: 2 x 70 kB at this depth, nearly
    # all of it indentation (a chain 40 records deep is indented 120 levels)
    assert len(page.body) < 300_000


def test_diff_lists_the_first_hundred_rows_and_reasons_and_counts_the_rest(ui: Ui, service: Any) -> None:
    two_versions(service, "wide", wide(150, "string"), wide(150, "int"))

    page = ui.get("/ui/subjects/wide/diff")

    assert page.status == 200
    assert len(page.main.find_all("tr", data_change="changed")) == 100
    more = [p.attrs["data-more"] for p in page.main.find_all("p", **{"class": "more"})]
    # 50 more reasons in each direction, then 50 more rows (the root's row is unchanged)
    assert more == ["50", "50", "50"]
    for direction in ("backward", "forward"):
        assert len(page.main.find(data_direction=direction).find_all("li")) == 100


def test_check_page_lists_the_first_hundred_reasons(ui: Ui, service: Any) -> None:
    register(service, "wide", wide(120, "string"))

    page = ui.post("/ui/subjects/wide/check", {"schema": json.dumps(wide(120, "int")), "schemaType": "AVRO",
                                               "target": "registration"})

    assert page.status == 200
    assert len(page.main.find(data_direction="backward").find_all("li")) == 100
    assert len(page.main.find_all("tr", data_change="changed")) == 100
    assert "{moreIncompatibilities: 20, note: " in page.body  # the verdict's list, capped by the core
