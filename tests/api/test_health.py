"""`/health/live` and `/health/ready`: probes outside Confluent's paths.

Liveness never asks the database; readiness asks it one question and answers 503 with the
storage's error code (Confluent's JSON shape) while it cannot answer.
"""
from __future__ import annotations

from pathlib import Path

import pytest
from flask import Flask

from api_client import Api


def break_database(app: Flask, url: str) -> None:
    """Replace the SQLite file by bytes that are no database, with no pooled connection left
    holding the old one open: every new connection fails (SQLITE_NOTADB)."""
    storage = app.extensions["registry"].storage
    storage.engine.dispose()
    path = Path(url.removeprefix("sqlite:///"))
    for leftover in (path, Path(f"{path}-wal"), Path(f"{path}-shm")):
        leftover.unlink(missing_ok=True)
    path.write_bytes(b"this is not an SQLite database" * 100)


def test_live_answers_up_without_json_negotiation(api: Api) -> None:
    reply = api.call("GET", "/health/live", headers={"Accept": "text/html"})
    assert (reply.status, reply.json) == (200, {"status": "UP"})
    assert reply.headers["Content-Type"] == "application/json"


def test_ready_answers_up_when_the_database_answers(api: Api) -> None:
    reply = api.get("/health/ready")
    assert (reply.status, reply.json) == (200, {"status": "UP"})


# SQLite only: a PostgreSQL outage is covered over HTTP by tests/fleet/test_fleet_outage.py.
@pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)
def test_ready_is_503_with_the_store_error_while_live_stays_up(app: Flask, api: Api, database_url: str) -> None:
    break_database(app, database_url)

    ready = api.get("/health/ready")
    assert ready.status == 503
    assert ready.json == {"status": "DOWN", "error_code": 50001, "message": "Error in the backend data store"}
    assert api.get("/health/live").status == 200


def test_unknown_health_paths_are_not_confluent_errors(api: Api) -> None:
    reply = api.get("/health/nowhere")
    assert reply.status == 404
    assert reply.error_code is None  # Flask's own page: the API's JSON errors stay in the API
