"""The diff and check pages stay small: a type shared on every level of a deep chain is one
reason, and long lists show their first 100 rows or reasons and a line counting the rest."""
from __future__ import annotations

import json
from typing import Any

import pytest

from demo_data import register

from app.web import texts
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
    # both texts pretty-printed are 2 x 70 kB at this depth, nearly all of it indentation (a
    # chain 40 records deep is indented 120 levels): the text view shows the changed line in
    # its context
    assert len(page.body.encode()) < 20_000
    assert len(page.main.find(id="textdiff").find_all("tr", **{"class": "gap"})) == 2


def test_text_view_of_a_pair_past_the_line_budget_shows_their_first_lines_uncompared(
    ui: Ui, service: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(texts, "LINE_DIFF_BUDGET", 1_000)  # a field is 4 lines pretty-printed
    two_versions(service, "huge", wide(300, "string"), wide(300, "int"))

    page = ui.get("/ui/subjects/huge/diff", view="text")

    assert page.status == 200
    assert page.main.find(data_textdiff="uncompared") is not None
    rows = page.main.find(id="textdiff").find_all("tr")[1:]
    assert len(rows) == texts.SHOWN_ROWS
    assert all(r.attrs["class"] == "plain" for r in rows)
    old_more, new_more = page.main.find("p", data_more_lines=True).attrs["data-more-lines"].split()
    assert int(old_more) == int(new_more) == 1_206 - texts.SHOWN_ROWS


def test_text_view_of_a_long_pair_shows_its_changes_in_context(ui: Ui, service: Any) -> None:
    fields = [{"name": f"f{i}", "type": "string"} for i in range(625)]
    changed = [*fields[:600], {"name": "f600", "type": "int"}, *fields[601:]]
    two_versions(service, "long", {"type": "record", "name": "W", "fields": fields},
                 {"type": "record", "name": "W", "fields": changed})

    page = ui.get("/ui/subjects/long/diff", view="text")

    table = page.main.find(id="textdiff")
    assert [r.attrs["class"] for r in table.find_all("tr")[1:]] == ["gap", *["equal"] * texts.CONTEXT, "changed",
                                                                    *["equal"] * texts.CONTEXT, "gap"]
    changed_row = table.find("tr", **{"class": "changed"})
    assert '"int"' in changed_row.text and '"string"' in changed_row.text
    assert "unchanged lines" in table.find("tr", **{"class": "gap"}).text
    assert page.main.find("p", data_more_lines=True) is None
    # 100 changed rows and 100 reasons a direction at most; here one of each
    assert len(page.body.encode()) < 20_000


def test_text_view_of_a_pair_within_the_line_budget_compares_every_line(ui: Ui, service: Any) -> None:
    two_versions(service, "small", wide(20, "string"), wide(20, "int"))

    page = ui.get("/ui/subjects/small/diff", view="text")

    assert page.main.find(data_textdiff="uncompared") is None
    assert page.main.find("p", data_more_lines=True) is None
    assert len(page.main.find(id="textdiff").find_all("tr", **{"class": "changed"})) == 20


def test_a_line_longer_than_a_page_is_shown_cut(ui: Ui, service: Any) -> None:
    doc = "x" * (texts.SHOWN_CHARS * 3)
    two_versions(service, "long-doc", {**wide(1, "string"), "doc": doc + "a"}, {**wide(1, "string"), "doc": doc + "b"})

    page = ui.get("/ui/subjects/long-doc/diff", view="text")

    shown = page.main.find(id="textdiff")
    assert any(code.text.endswith("…") for code in shown.find_all("code"))
    assert len(page.body.encode()) < texts.SHOWN_CHARS * 2


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


def test_text_view_shows_deep_indentation_from_a_bounded_column(ui: Ui, service: Any) -> None:
    two_versions(service, "deep", shared_chain(40, "string"), shared_chain(40, "int"))

    page = ui.get("/ui/subjects/deep/diff", view="text")

    shown = [code.text for code in page.main.find(id="textdiff").find_all("code")]
    indents = [len(line) - len(line.lstrip(" ")) for line in shown]
    assert max(indents) <= texts.INDENT_SHOWN
    assert any(line.lstrip(" ").startswith("… ") for line in shown)
