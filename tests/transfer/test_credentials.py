"""Credentials reach the registry as the operator gave them (URL userinfo as Basic,
REGISTRY_FROM_AUTH / REGISTRY_TO_AUTH as Basic or bearer), wrong ones end in one error line,
and none of them shows in the dump or any output.

The registries here check the Authorization header with a test middleware, which lets these
tests pin exactly what is sent; test_auth_file.py runs against the real auth file."""
from __future__ import annotations

import base64
from pathlib import Path

from transfer_helpers import Rest, record, run_cli, snapshot

BASIC = "Basic " + base64.b64encode(b"migrator:p%ss w0rd").decode()
BEARER = "Bearer tok-3xyz"


def test_userinfo_and_auth_variables_authenticate_and_never_leak(registry, tmp_path: Path) -> None:
    plain_source = registry("sqlite")
    Rest(plain_source).register("orders-value", record("Order", ("id", "string")))
    source = registry("sqlite", authorization=[BASIC],
                      database_url=registry.databases[plain_source])
    target = registry("sqlite", authorization=[BEARER])
    with_userinfo = source.replace("http://", "http://migrator:p%25ss%20w0rd@")
    dump = tmp_path / "auth.dump"
    done = run_cli("export", "--from", with_userinfo, "--output", str(dump))
    assert done.returncode == 0, done.stderr
    done = run_cli("import", "--to", target, str(dump), env={"REGISTRY_TO_AUTH": "bearer:tok-3xyz"})
    assert done.returncode == 0, done.stderr
    done = run_cli("mirror", "--from", source, "--to", target, "--verify",
                   env={"REGISTRY_FROM_AUTH": "basic:migrator:p%ss w0rd", "REGISTRY_TO_AUTH": "bearer:tok-3xyz"})
    assert done.returncode == 0, done.stdout + done.stderr
    everything = dump.read_text() + done.stdout + done.stderr
    assert "w0rd" not in everything and "tok-3xyz" not in everything and "migrator" not in everything


def test_wrong_credentials_fail_in_one_line_and_write_nothing(registry, tmp_path: Path) -> None:
    source = registry("sqlite")
    Rest(source).register("orders-value", record("Order", ("id", "string")))
    dump = tmp_path / "a.dump"
    assert run_cli("export", "--from", source, "--output", str(dump)).returncode == 0
    target = registry("sqlite", authorization=[BEARER])
    done = run_cli("import", "--to", target, str(dump), env={"REGISTRY_TO_AUTH": "bearer:wrong-token"})
    assert done.returncode == 1
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and "40101" in lines[0]
    assert "wrong-token" not in done.stderr and "Traceback" not in done.stderr
    done = run_cli("export", "--from", target.replace("http://", "http://who:nope@"),
                   "--output", str(tmp_path / "never.dump"))
    assert done.returncode == 1 and "nope" not in done.stderr and not (tmp_path / "never.dump").exists()
    open_target = registry("sqlite", database_url=registry.databases[target])
    assert snapshot(open_target)["subjects"] == []
