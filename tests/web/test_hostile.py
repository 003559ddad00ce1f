"""Hostile names and schema text render as text on every route: escaped, never markup, never
template source; no page has an inline script or an on…= attribute; every /ui answer carries
the CSP."""
from __future__ import annotations

import json

import pytest

from ui_client import Ui, enc
from demo_data import register

IMG_SUBJECT = "<img src=x onerror=alert(1)>"
SLASH_SUBJECT = "a/b.proto"
SCRIPT = "<script>alert(1)</script>"
SVG = '"><svg onload=alert(1)>'
TEXTAREA = "</textarea>"
TEMPLATE = "{{7*7}}"

HOSTILE_V1 = {
    "type": "record", "name": "Evil", "doc": SCRIPT,
    "fields": [{"name": "a", "type": "string", "doc": SVG}],
}
HOSTILE_V2 = {
    "type": "record", "name": "Evil", "doc": SCRIPT, "x-note": TEXTAREA, "x-template": TEMPLATE,
    "fields": [
        {"name": "a", "type": "string", "doc": SVG},
        {"name": "b", "type": "string", "default": SVG + TEXTAREA, "doc": TEMPLATE, "x-prop": SCRIPT},
        {"name": "c", "type": {"type": "enum", "name": "Mood", "symbols": ["HAPPY"], "doc": TEXTAREA}, "default": "HAPPY"},
    ],
}


@pytest.fixture
def hostile(service) -> None:
    for subject in (IMG_SUBJECT, SLASH_SUBJECT):
        register(service, subject, HOSTILE_V1)
        register(service, subject, HOSTILE_V2)
    service.update_config(IMG_SUBJECT, {"compatibility": "FULL"})


def _routes(subject: str) -> list[str]:
    s = enc(subject)
    return [
        "/ui/", f"/ui/?q={enc('<img')}", "/ui/?deleted=1&sort=updated", f"/ui/subjects/{s}", f"/ui/subjects/{s}?deleted=1",
        f"/ui/subjects/{s}/versions/1", f"/ui/subjects/{s}/versions/2", f"/ui/subjects/{s}/versions/latest",
        f"/ui/subjects/{s}/diff", f"/ui/subjects/{s}/diff?view=text", f"/ui/subjects/{s}/diff?normalize=1",
        f"/ui/subjects/{s}/check", "/ui/schemas/1", "/ui/schemas/2", f"/ui/search?q={enc(subject[:5])}",
        "/ui/search?q=a", "/ui/contexts", "/ui/config", f"/ui/new?subject={s}", f"/ui/subjects/{s}/versions/7",
        f"/ui/subjects/{enc(subject + 'x')}", f"/ui/subjects/{s}/diff?from=x",
    ]


def assert_inert(page) -> None:
    """Nothing in the page can run: no inline script, no event-handler attribute, no element
    a payload could have injected, no payload left unescaped in the markup."""
    assert page.status < 500, page
    csp = page.headers.get("Content-Security-Policy", "")
    assert "script-src 'self'" in csp and "object-src 'none'" in csp
    assert page.headers.get("X-Content-Type-Options") == "nosniff"
    assert page.headers.get("Referrer-Policy") == "same-origin"
    for element in page.tree.iter():
        assert element.tag not in ("img", "svg", "iframe", "object"), element.tag
        assert not any(name.lower().startswith("on") for name in element.attrs), element.attrs
        if element.tag == "script":
            assert element.attrs.get("src", "").startswith("/ui/static/"), element.attrs
            assert not element.text.strip()
    for raw in (SCRIPT, "<svg", "<img", "\\u003c"):
        assert raw not in page.body
    # The only </textarea> in the markup close the page's own text areas.
    assert page.body.count(TEXTAREA) == len(page.tree.find_all("textarea"))


@pytest.mark.usefixtures("hostile")
@pytest.mark.parametrize("subject", [IMG_SUBJECT, SLASH_SUBJECT])
def test_every_route_renders_hostile_values_as_text(ui: Ui, subject: str) -> None:
    for path in _routes(subject):
        assert_inert(ui.get(path))


@pytest.mark.usefixtures("hostile")
def test_hostile_values_read_as_written(ui: Ui) -> None:
    subject_page = ui.get(f"/ui/subjects/{enc(IMG_SUBJECT)}")
    assert subject_page.status == 200
    assert IMG_SUBJECT in subject_page.main.find("h1").text
    version = ui.get(f"/ui/subjects/{enc(IMG_SUBJECT)}/versions/2")
    text = version.main.text
    assert SCRIPT in text and SVG in text and TEMPLATE in text and TEXTAREA in text
    assert "49" not in version.main.find("pre").text
    assert "&amp;lt;" not in version.body


@pytest.mark.usefixtures("hostile")
def test_check_form_keeps_hostile_input_as_text(ui: Ui) -> None:
    text = json.dumps({**HOSTILE_V2, "doc": SCRIPT + TEXTAREA + TEMPLATE})
    page = ui.post(f"/ui/subjects/{enc(IMG_SUBJECT)}/check", {"schema": text, "schemaType": "AVRO"})
    assert_inert(page)
    assert page.main.find("textarea", name="schema").text == text
    broken = ui.post(f"/ui/subjects/{enc(IMG_SUBJECT)}/check", {"schema": TEXTAREA + SCRIPT, "schemaType": "AVRO"})
    assert broken.status == 422
    assert_inert(broken)
    assert broken.main.find("textarea", name="schema").text == TEXTAREA + SCRIPT


@pytest.mark.usefixtures("hostile")
def test_confirmation_and_refusal_pages_escape_the_subject(ui: Ui) -> None:
    confirm = ui.post(f"/ui/subjects/{enc(IMG_SUBJECT)}/delete", {})
    assert confirm.status == 200
    assert_inert(confirm)
    refused = ui.post(f"/ui/subjects/{enc(IMG_SUBJECT)}/versions/1/delete", {"confirm": "yes", "permanent": "1"})
    assert refused.status == 404
    assert_inert(refused)


def _proto2(*fields: str) -> str:
    return 'syntax = "proto2";\npackage evil;\n\nmessage Evil {\n' + "".join(f"  {f}\n" for f in fields) + "}\n"


def test_protobuf_defaults_render_as_text(ui: Ui, service) -> None:
    # Protobuf string defaults are shown as the text writes them (quotes escaped with `\`).
    first = f'optional string a = 1 [default = "{SCRIPT}"];'
    second = 'optional string b = 2 [default = "\\"><svg onload=alert(1)> {{7*7}}"];'
    register(service, "evil-proto", _proto2(first), "PROTOBUF")
    register(service, "evil-proto", _proto2(first, second), "PROTOBUF")

    for path in ("/ui/subjects/evil-proto", "/ui/subjects/evil-proto/versions/2", "/ui/subjects/evil-proto/diff",
                 "/ui/schemas/2", "/ui/search?q=b"):
        assert_inert(ui.get(path))
    tree = ui.get("/ui/subjects/evil-proto").main.find("section", **{"class": "outline"}).text
    assert f'= "{SCRIPT}"' in tree and '= "\\"><svg onload=alert(1)> {{7*7}}"' in tree
    added = ui.get("/ui/subjects/evil-proto/diff").main.find("tr", data_change="added").text
    assert "Evil.b" in added and '"\\"><svg onload=alert(1)> {{7*7}}"' in added
