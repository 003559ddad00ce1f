"""The plain hot reads answered outside Flask (app/api/hot_reads.py) must be exactly the
replies Flask gives: every request below is sent twice, once to the whole app and once to
Flask itself (the middleware stepped over), and status, headers and body must agree. The
requests the middleware leaves to Flask (errors, query strings, escapes, contexts, refused
callers) must reach Flask, and the ones it answers must not."""
from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from flask import Flask, request_started
from werkzeug.test import EnvironBuilder, run_wsgi_app

from app.api.hot_reads import HotReads
from app.server.factory import create_app
from app.settings import Settings
from app.wiring import build_registry
from support.authorizers import DenySecret
from support.change_token import wait_for_change_token

CT = "application/vnd.schemaregistry.v1+json"


def record(name: str, *fields: str) -> str:
    return json.dumps({"type": "record", "name": name, "fields": [
        {"name": f, "type": "string", "default": ""} for f in fields]})


@contextmanager
def stepped_over(app: Flask) -> Iterator[None]:
    """The app with its hot-reads middleware passing everything on to Flask."""
    layer: Any = app.wsgi_app
    while not isinstance(layer, HotReads):
        layer = layer.wsgi_app
    layer._answer = lambda path, environ: None  # type: ignore[method-assign]
    try:
        yield
    finally:
        del layer._answer


def send(wsgi: Any, path: str, headers: dict[str, str]) -> tuple[str, list[tuple[str, str]], bytes]:
    environ = EnvironBuilder(path=path, headers=headers).get_environ()
    body, status, reply_headers = run_wsgi_app(wsgi, environ)
    return status, sorted(reply_headers.to_wsgi_list()), b"".join(body)


def flask_calls(app: Flask, path: str, headers: dict[str, str]) -> int:
    calls: list[object] = []

    def count(sender: object, **extra: object) -> None:
        calls.append(sender)

    with request_started.connected_to(count, app):
        send(app.wsgi_app, path, headers)
    return len(calls)


@pytest.fixture
def registry_app(settings: Settings) -> Iterator[Flask]:
    """Seeded by an open registry, then served by one whose authorizer refuses "secret"."""
    seeder = create_app(settings)
    client = seeder.test_client()
    for subject, schemas in {
        "orders": [record("O", "a"), record("O", "a", "b"), record("O", "a", "b", "c")],
        "a.b_c~d-e": [record("Odd", "x")],
        "top-secret": [record("S", "s")],
        ":.other:elsewhere": [record("E", "e")],
    }.items():
        for text in schemas:
            assert client.post(f"/subjects/{subject}/versions", json={"schema": text}).status_code == 200
    assert client.delete("/subjects/orders/versions/2").status_code == 200  # soft-deleted
    seeder.extensions["registry"].storage.close()
    app = create_app(settings, build_registry(settings, authorizer=DenySecret()))
    yield app
    app.extensions["registry"].storage.close()


PATHS = [
    "/schemas/ids/1", "/schemas/ids/3", "/schemas/ids/01", "/schemas/ids/999", "/schemas/ids/2147483647",
    "/schemas/ids/2147483648", "/schemas/ids/99999999999", "/schemas/ids/-1", "/schemas/ids/1/",
    "/subjects/orders/versions/1", "/subjects/orders/versions/2", "/subjects/orders/versions/3",
    "/subjects/orders/versions/latest", "/subjects/orders/versions/-1", "/subjects/orders/versions/0",
    "/subjects/orders/versions/99", "/subjects/orders/versions/abc", "/subjects/orders/versions/2147483648",
    "/subjects/a.b_c~d-e/versions/1", "/subjects/nobody/versions/1", "/subjects/top-secret/versions/1",
    "/subjects/elsewhere/versions/1", "/subjects/:.other:elsewhere/versions/1", "/subjects/orders/versions/1/",
    "/subjects/ord%65rs/versions/1", "/subjects/orders/versions/1?deleted=true", "/schemas/ids/1?subject=orders",
    "/contexts/.other/subjects/elsewhere/versions/1", "/schemas/ids/4",
]
ACCEPTS = [
    {}, {"Accept": "*/*"}, {"Accept": "application/json"}, {"Accept": CT},
    {"Accept": "application/vnd.schemaregistry.v1+json, application/vnd.schemaregistry+json, application/json"},
    {"Accept": "text/html"}, {"Accept": "application/json; q=0.5, application/vnd.schemaregistry+json"},
]


@pytest.mark.parametrize("headers", ACCEPTS, ids=lambda h: h.get("Accept", "no-accept"))
def test_every_hot_read_is_answered_as_flask_answers_it(registry_app: Flask, headers: dict[str, str]) -> None:
    for path in PATHS:
        answered = send(registry_app.wsgi_app, path, headers)
        with stepped_over(registry_app):
            assert answered == send(registry_app.wsgi_app, path, headers), path


def test_only_plain_reads_skip_flask(registry_app: Flask) -> None:
    through_flask = {path for path in PATHS if flask_calls(registry_app, path, {}) == 1}
    assert through_flask == {
        "/schemas/ids/2147483648", "/schemas/ids/99999999999", "/schemas/ids/-1", "/schemas/ids/1/",
        "/subjects/:.other:elsewhere/versions/1", "/subjects/orders/versions/1/", "/subjects/ord%65rs/versions/1",
        "/subjects/orders/versions/1?deleted=true", "/schemas/ids/1?subject=orders",
        "/contexts/.other/subjects/elsewhere/versions/1",
    }
    assert flask_calls(registry_app, "/subjects/orders/versions/1", {"Accept": "text/html"}) == 1


def test_a_hot_read_is_timed_under_its_route_template(settings: Settings) -> None:
    app = create_app(settings)
    try:
        client = app.test_client()
        assert client.post("/subjects/timed/versions", json={"schema": record("T", "t")}).status_code == 200
        assert client.get("/subjects/timed/versions/1").status_code == 200
        assert client.get("/schemas/ids/1").status_code == 200
        metrics = client.get("/metrics").get_data(as_text=True)
        assert 'route="/subjects/<subject:subject>/versions/<segment:version>"' in metrics
        assert 'route="/schemas/ids/<segment:id_>"' in metrics
    finally:
        app.extensions["registry"].storage.close()


# ------------------------------------------------------------------ re-registrations
def post(wsgi: Any, path: str, body: bytes, headers: dict[str, str]) -> tuple[str, list[tuple[str, str]], bytes]:
    environ = EnvironBuilder(path=path, method="POST", data=body, headers=headers).get_environ()
    reply, status, reply_headers = run_wsgi_app(wsgi, environ)
    return status, sorted(reply_headers.to_wsgi_list()), b"".join(reply)


def metric_lines(app: Flask) -> dict[str, str]:
    text = app.test_client().get("/metrics").get_data(as_text=True)
    return {line.rpartition(" ")[0]: line.rpartition(" ")[2] for line in text.splitlines()
            if line.startswith(("sqlregistry_writes_total", "sqlregistry_registrations_total",
                                'sqlregistry_cache_lookups_total{cache="reply"'))}


EXISTING = record("O", "a", "b", "c")
POSTS = [
    ("/subjects/orders/versions", json.dumps({"schema": EXISTING}).encode(), {"Content-Type": CT}),
    ("/subjects/orders/versions", json.dumps({"schema": EXISTING}).encode(), {"Content-Type": "application/json"}),
    ("/subjects/orders/versions", json.dumps({"schema": EXISTING}).encode(),
     {"Content-Type": "application/json; charset=utf-8", "Accept": "application/json"}),
    ("/subjects/orders/versions", json.dumps({"schema": EXISTING}).encode(), {}),
    ("/subjects/orders/versions", json.dumps({"schema": EXISTING, "schemaType": "AVRO"}).encode(), {"Content-Type": CT}),
    ("/subjects/orders/versions", json.dumps({"schema": record("O", "a", "b", "c", "d")}).encode(), {"Content-Type": CT}),
    ("/subjects/fresh/versions", json.dumps({"schema": record("F", "f")}).encode(), {"Content-Type": CT}),
    ("/subjects/orders/versions", json.dumps({"schema": record("O", "x")}).encode(), {"Content-Type": CT}),  # 409
    ("/subjects/orders/versions", b'{"schema": ', {"Content-Type": CT}),
    ("/subjects/orders/versions", b'["not", "an", "object"]', {"Content-Type": CT}),
    ("/subjects/orders/versions", b'{"schema": 5}', {"Content-Type": CT}),
    ("/subjects/orders/versions", b'{}', {"Content-Type": CT}),
    ("/subjects/orders/versions", b'', {"Content-Type": CT}),
    ("/subjects/orders/versions", json.dumps({"schema": EXISTING}).encode(), {"Content-Type": "text/plain"}),
    ("/subjects/orders/versions", json.dumps({"schema": EXISTING}).encode(), {"Content-Type": CT, "Accept": "text/html"}),
    ("/subjects/orders/versions?normalize=true", json.dumps({"schema": EXISTING}).encode(), {"Content-Type": CT}),
    ("/subjects/orders/versions", json.dumps({"schema": EXISTING, "references": [
        {"name": "x", "subject": "nobody", "version": 1}]}).encode(), {"Content-Type": CT}),
]


@pytest.fixture
def open_app(app: Flask) -> Flask:
    """The default registry (no authorizer): re-registrations are cached and may skip Flask."""
    client = app.test_client()
    for text in (record("O", "a"), record("O", "a", "b"), EXISTING):
        assert client.post("/subjects/orders/versions", json={"schema": text}).status_code == 200
    wait_for_change_token(app.extensions["registry"])  # until then, nothing is cached (PostgreSQL)
    return app


def test_every_registration_is_answered_as_flask_answers_it(open_app: Flask) -> None:
    for path, body, headers in POSTS:
        with stepped_over(open_app):
            by_flask = post(open_app.wsgi_app, path, body, headers)
        assert post(open_app.wsgi_app, path, body, headers) == by_flask, (path, body, headers)


def test_only_a_plain_re_registration_the_cache_holds_skips_flask(open_app: Flask) -> None:
    def through_flask(path: str, body: bytes, headers: dict[str, str]) -> int:
        calls: list[object] = []
        with request_started.connected_to(lambda sender, **extra: calls.append(sender), open_app):
            post(open_app.wsgi_app, path, body, headers)
        return len(calls)

    existing = json.dumps({"schema": EXISTING}).encode()
    assert through_flask("/subjects/orders/versions", existing, {"Content-Type": CT}) == 1  # caches the answer
    assert through_flask("/subjects/orders/versions", existing, {"Content-Type": CT}) == 0
    assert through_flask("/subjects/orders/versions", existing, {}) == 0
    assert through_flask("/subjects/orders/versions?normalize=true", existing, {"Content-Type": CT}) == 1
    new = json.dumps({"schema": record("O", "a", "b", "c", "e")}).encode()
    assert through_flask("/subjects/orders/versions", new, {"Content-Type": CT}) == 1  # registers: a commit
    assert through_flask("/subjects/orders/versions", existing, {"Content-Type": CT}) == 1  # the commit moved the token


def test_a_re_registration_counts_the_same_with_or_without_flask(open_app: Flask) -> None:
    existing = json.dumps({"schema": EXISTING}).encode()
    post(open_app.wsgi_app, "/subjects/orders/versions", existing, {"Content-Type": CT})  # cached now
    before = metric_lines(open_app)
    with stepped_over(open_app):
        post(open_app.wsgi_app, "/subjects/orders/versions", existing, {"Content-Type": CT})
    by_flask = metric_lines(open_app)
    post(open_app.wsgi_app, "/subjects/orders/versions", existing, {"Content-Type": CT})
    hot = metric_lines(open_app)
    changed = {name for name in by_flask if by_flask[name] != before.get(name)}
    assert changed and changed == {name for name in hot if hot[name] != by_flask.get(name)}
    for name in changed:
        assert float(hot[name]) - float(by_flask[name]) == float(by_flask[name]) - float(before.get(name, 0))
