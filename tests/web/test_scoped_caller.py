"""A caller restricted by grants, in the web UI: it is shown exactly the contexts `GET
/contexts` shows it, and its writes, allowed or refused, are in the audit trail as a REST
caller's are (address, method, path, user agent; `denied` rows for refusals). Both databases."""
from __future__ import annotations

import pytest
from flask import Flask

from app.core.store.audit import AuditQuery
from app.security.authorizer import GrantAuthorizer
from support.grants import auth_file, grant
from ui_client import Ui

# The UI's caller is anonymous here (no authentication configured in front of it): it may
# write the default context's `orders` subjects and read nothing else.
ORDERS_WRITER = auth_file(grant("anonymous", "write", "prefix:orders", contexts=(".",)))
STAGING_READER = auth_file(grant("anonymous", "read", "*", contexts=(".staging",)))
AGENT = "pytest-browser/1.0"


@pytest.fixture
def scoped(app_with) -> Flask:
    return app_with(GrantAuthorizer(lambda: ORDERS_WRITER))


def trail(app: Flask) -> list:
    """The rows of requests, oldest first (loading the demo data wrote rows without a request)."""
    rows = app.extensions["registry"].storage.audit_events(AuditQuery(limit=1000))
    return [r for r in reversed(rows) if r.entry.origin.method is not None]


@pytest.mark.parametrize(("grants", "shown"), [(ORDERS_WRITER, ["."]), (STAGING_READER, [".", ".staging"])],
                         ids=["default-only", "staging-reader"])
def test_the_ui_lists_the_contexts_get_contexts_lists(app_with, grants, shown: list[str]) -> None:
    """The default context is always listed; `.staging` (which holds a subject) only to
    a caller who may read one of its subjects."""
    app = app_with(GrantAuthorizer(lambda: grants))
    assert app.test_client().get("/contexts").get_json() == shown
    ui = Ui(app.test_client())
    for path in ("/ui/", "/ui/contexts", "/ui/config"):
        page = ui.get(path)
        assert page.status == 200, path
        assert (".staging" in page.body) == (".staging" in shown), path


def test_a_filter_on_a_hidden_context_looks_like_one_that_does_not_exist(scoped: Flask) -> None:
    ui = Ui(scoped.test_client())
    hidden, missing = ui.get("/ui/", context=".staging"), ui.get("/ui/", context=".nowhere")
    assert hidden.status == missing.status == 200
    assert hidden.body.replace(".staging", ".nowhere") == missing.body


def test_a_ui_write_records_where_it_came_from(scoped: Flask) -> None:
    ui = Ui(scoped.test_client())
    ui.client.environ_base["HTTP_USER_AGENT"] = AGENT
    page = ui.post("/ui/new", {"subject": "orders-archive", "schema": '"string"', "schemaType": "AVRO"})
    assert page.status == 303, page.body[:300]
    (row,) = trail(scoped)
    origin = row.entry.origin
    assert (row.entry.action, row.entry.subject, row.entry.status) == ("REGISTER", "orders-archive", 303)
    assert (origin.remote_addr, origin.method, origin.path, origin.user_agent) == (
        "127.0.0.1", "POST", "/ui/new", AGENT)


@pytest.mark.parametrize(("path", "form", "action"), [
    ("/ui/subjects/customers-value/register", {"schema": '"string"', "schemaType": "AVRO"}, "REGISTER"),
    ("/ui/subjects/orders-value/delete", {"confirm": "yes", "permanent": "1"}, "DELETE_SUBJECT"),
    ("/ui/subjects/orders-value/settings", {"what": "mode", "value": "IMPORT"}, "SET_MODE"),
    ("/ui/config", {"scope": ":.staging:", "what": "compatibility", "value": "NONE"}, "SET_CONFIG"),
])
def test_a_refused_ui_write_is_recorded_as_denied(scoped: Flask, path: str, form: dict, action: str) -> None:
    ui = Ui(scoped.test_client())
    ui.client.environ_base["HTTP_USER_AGENT"] = AGENT
    page = ui.post(path, form)
    assert page.status == 403
    (row,) = trail(scoped)
    entry = row.entry
    assert (entry.action, entry.outcome, entry.status, entry.error_code) == (action, "denied", 403, 40301)
    assert (entry.origin.method, entry.origin.path, entry.origin.user_agent) == ("POST", path, AGENT)
    assert entry.origin.remote_addr == "127.0.0.1"


def test_a_ui_write_the_registry_refuses_is_recorded_as_rejected(scoped: Flask) -> None:
    ui = Ui(scoped.test_client())
    page = ui.post("/ui/subjects/orders-value/register", {"schema": '{"type": "record"', "schemaType": "AVRO"})
    assert 400 <= page.status < 500 and page.status != 403
    (row,) = trail(scoped)
    assert (row.entry.action, row.entry.outcome, row.entry.subject) == ("REGISTER", "rejected", "orders-value")
    assert row.entry.error_code == 42201
