"""`sqlregistry check` and `register` against a registry enforcing the auth file take their
credentials as the migration commands do: userinfo in the URL, or REGISTRY_TO_AUTH as
`basic:USER:PASSWORD` or `bearer:TOKEN`; without them the registry's 401 ends in exit 2."""
from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from app.cli.check import check_main, register_main
from app.security.passwords import hash_password
from support.live import LiveServer, start_server

AUTH_FILE = """
[authentication]
methods = ["basic", "bearer"]

[bearer]
jwks_url = "{jwks_url}"
issuer = "{issuer}"
audience = "sqlregistry"
algorithms = ["RS256"]
groups_claim = "realm_access.roles"

[[users]]
name = "ci"
password = "{password}"
groups = ["publishers"]

[[grants]]
principal = "group:publishers"
role = "write"
subjects = ["*"]
"""
SCHEMA = {"type": "record", "name": "User", "fields": [{"name": "id", "type": "string"}]}


@pytest.fixture
def secured(tmp_path: Path, idp) -> Iterator[LiveServer]:
    auth = tmp_path / "auth.toml"
    auth.write_text(AUTH_FILE.format(jwks_url=idp.jwks_url, issuer=idp.issuer,
                                     password=hash_password("ci-secret", ln=14)))
    server = start_server(f"sqlite:///{tmp_path / 'registry.db'}", tmp_path / "server.log", workers=1,
                          env={"REGISTRY_AUTH_FILE": str(auth)})
    yield server
    server.stop()


@pytest.fixture
def schema_file(tmp_path: Path) -> Path:
    path = tmp_path / "user.avsc"
    path.write_text(json.dumps(SCHEMA))
    return path


def test_userinfo_in_the_url_authenticates(secured: LiveServer, schema_file: Path, monkeypatch) -> None:
    monkeypatch.delenv("REGISTRY_TO_AUTH", raising=False)
    url = secured.url.replace("http://", "http://ci:ci-secret@")
    assert register_main([str(schema_file), "--subject", "users-value", "--url", url]) == 0
    assert check_main([str(schema_file), "--subject", "users-value", "--url", url]) == 0


def test_registry_to_auth_takes_basic_and_bearer(secured: LiveServer, schema_file: Path, idp, monkeypatch) -> None:
    monkeypatch.setenv("REGISTRY_TO_AUTH", "basic:ci:ci-secret")
    assert register_main([str(schema_file), "--subject", "users-value", "--url", secured.url]) == 0
    token = idp.token({"realm_access": {"roles": ["publishers"]}}, sub="pipeline")
    monkeypatch.setenv("REGISTRY_TO_AUTH", f"bearer:{token}")
    assert check_main([str(schema_file), "--subject", "users-value", "--url", secured.url]) == 0


def test_without_credentials_the_401_is_exit_2_in_one_line(
    secured: LiveServer, schema_file: Path, monkeypatch, capsys
) -> None:
    monkeypatch.delenv("REGISTRY_TO_AUTH", raising=False)
    assert check_main([str(schema_file), "--subject", "users-value", "--url", secured.url]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "401" in err[0]


def test_a_malformed_registry_to_auth_is_a_usage_error(schema_file: Path, monkeypatch, capsys) -> None:
    monkeypatch.setenv("REGISTRY_TO_AUTH", "token-without-kind")
    assert check_main([str(schema_file), "--subject", "users-value", "--url", "http://127.0.0.1:1"]) == 2
    assert "REGISTRY_TO_AUTH must be basic:USER:PASSWORD or bearer:TOKEN" in capsys.readouterr().err
