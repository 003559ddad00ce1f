"""`sqlregistry audit list` and `audit prune`: the trail read from and pruned in the database
itself, on SQLite and PostgreSQL."""
from __future__ import annotations

import json
import re
import sys
import time
from pathlib import Path

import pytest
from support.commands import run_command
from sqlalchemy import create_engine, text

from app.cli.main import main
from app.core.access import Principal
from app.core.types import SchemaRequest
from app.settings import Settings
from app.wiring import build_registry

REPO_ROOT = Path(__file__).resolve().parents[2]
DAY_MS = 86_400_000


def record(name: str) -> str:
    return json.dumps({"type": "record", "name": name, "fields": [{"name": "a", "type": "string"}]})


@pytest.fixture
def changed(database_url: str) -> str:
    """Three changes: two registrations and a config change, by two callers."""
    service = build_registry(Settings(database_url=database_url))
    try:
        ci = Principal("user:ci", method="basic")
        service.register("orders-value", SchemaRequest(schema=record("Order")), principal=ci)
        service.register("users-value", SchemaRequest(schema=record("User")))
        service.update_config("orders-value", {"compatibility": "FULL"})
    finally:
        service.storage.close()  # type: ignore[attr-defined]
    return database_url


def lines(capsys: pytest.CaptureFixture[str], *argv: str) -> list[dict[str, object]]:
    assert main(list(argv)) == 0
    return [json.loads(line) for line in capsys.readouterr().out.splitlines()]


def test_audit_list_prints_json_lines_newest_first(changed: str, capsys) -> None:
    every = lines(capsys, "audit", "list", "--database-url", changed)
    assert [(e["action"], e["subject"]) for e in every] == [
        ("SET_CONFIG", "orders-value"), ("REGISTER", "users-value"), ("REGISTER", "orders-value")]
    assert every[-1]["principal"] == "user:ci" and every[-1]["authMethod"] == "basic"
    assert every[-1]["version"] == 1 and every[-1]["outcome"] == "success"
    orders = lines(capsys, "audit", "list", "--database-url", changed, "--subject", "orders-value")
    assert [e["action"] for e in orders] == ["SET_CONFIG", "REGISTER"]
    assert len(lines(capsys, "audit", "list", "--database-url", changed, "--limit", "2")) == 2


def test_audit_list_since_takes_iso_8601_or_epoch_milliseconds(changed: str, capsys) -> None:
    every = lines(capsys, "audit", "list", "--database-url", changed)
    newest_ts = every[0]["ts"]
    assert isinstance(newest_ts, str)
    since_iso = lines(capsys, "audit", "list", "--database-url", changed, "--since", newest_ts)
    assert since_iso[0]["id"] == every[0]["id"] and all(e["ts"] >= newest_ts for e in since_iso)
    future = str(time.time_ns() // 1_000_000 + DAY_MS)
    assert lines(capsys, "audit", "list", "--database-url", changed, "--since", future) == []


def test_audit_prune_deletes_only_rows_older_than_the_duration(changed: str, capsys) -> None:
    engine = create_engine(changed)
    try:
        with engine.begin() as conn:  # the two registrations happened 400 days ago
            conn.execute(text("UPDATE audit_events SET ts = ts - :age WHERE action = 'REGISTER'"),
                         {"age": 400 * DAY_MS})
    finally:
        engine.dispose()
    assert main(["audit", "prune", "--older-than", "365d", "--database-url", changed]) == 0
    out = capsys.readouterr().out
    assert out.startswith("pruned 2 audit events older than ")
    assert [e["action"] for e in lines(capsys, "audit", "list", "--database-url", changed)] == ["SET_CONFIG"]


def test_a_bad_time_or_duration_is_a_usage_error(changed: str, capsys) -> None:
    for argv in (["list", "--since", "last tuesday"], ["prune", "--older-than", "a year"]):
        with pytest.raises(SystemExit) as exited:
            main(["audit", *argv, "--database-url", changed])
        assert exited.value.code == 2
        assert "audit" in capsys.readouterr().err


def test_python_dash_m_app_cli_runs_the_same_command(changed: str) -> None:
    done = run_command(
        [sys.executable, "-m", "app.cli", "audit", "list", "--database-url", changed, "--subject", "users-value"],
        cwd=REPO_ROOT, capture_output=True, text=True,
    )
    assert done.returncode == 0, done.stderr
    (entry,) = [json.loads(line) for line in done.stdout.splitlines()]
    assert (entry["action"], entry["subject"], entry["principal"]) == ("REGISTER", "users-value", "anonymous")
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z", str(entry["ts"]))
