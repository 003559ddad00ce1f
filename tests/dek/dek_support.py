"""Helpers of the DEK registry's tests: a client that speaks its JSON, confluent-kafka's
local KMS as a client uses it, and the registry app with a local KMS secret."""
from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from flask import Flask

SECRET = "dek-registry-test-secret"
ROOT = "/dek-registry/v1"


class Reply:
    def __init__(self, response: Any) -> None:
        self.status = response.status_code
        self.raw = response.get_data()
        self.json = json.loads(self.raw) if self.raw else None

    def __repr__(self) -> str:
        return f"<Reply {self.status} {self.raw[:300]!r}>"


class DekApi:
    """Requests under /dek-registry/v1, as a client sends them."""

    def __init__(self, app: Flask) -> None:
        self.client = app.test_client()

    def call(self, method: str, path: str, body: Any = None, headers: dict[str, str] | None = None) -> Reply:
        return Reply(self.client.open(ROOT + path, method=method, json=body, headers=headers or {}))

    def get(self, path: str) -> Reply:
        return self.call("GET", path)

    def post(self, path: str, body: Any = None) -> Reply:
        return self.call("POST", path, body)

    def put(self, path: str, body: Any) -> Reply:
        return self.call("PUT", path, body)

    def delete(self, path: str) -> Reply:
        return self.call("DELETE", path)

    def kek(self, name: str, shared: bool = False, query: str = "") -> Reply:
        return self.post("/keks" + query, {"name": name, "kmsType": "local-kms", "kmsKeyId": f"{name}-id",
                                           "shared": shared})


def client_aead(secret: str = SECRET) -> Any:
    """confluent-kafka's own local KMS, as a client configured with `secret` uses it."""
    from tink import aead

    from confluent_kafka.schema_registry.rules.encryption.localkms.local_client import LocalKmsClient

    aead.register()
    return LocalKmsClient(secret).get_aead("local-kms://any")


def make_app(database_url: str, **overrides: object) -> Flask:
    from app.server.factory import create_app
    from app.settings import Settings

    return create_app(Settings(database_url=database_url, **overrides))


@contextmanager
def live_registry(request: pytest.FixtureRequest, workdir: Path, env: dict[str, str]) -> Iterator[str]:
    """The registry under gunicorn with `env` on `request.param`'s database ("sqlite" in
    `workdir`, or "postgres": a database of its own in the run's cluster); yields its URL."""
    from support.live import start_server

    cleanup = None
    if request.param == "sqlite":
        url = f"sqlite:///{workdir / 'registry.db'}"
    else:
        cluster = request.getfixturevalue("pg_cluster")
        name = cluster.create_database("dek")
        url, cleanup = cluster.url(name), (lambda: cluster.drop_database(name))
    server = start_server(url, workdir / "server.log", env=env)
    try:
        yield server.url
    finally:
        server.stop()
        if cleanup is not None:
            cleanup()
