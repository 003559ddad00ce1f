"""The transfer commands against registries that enforce the auth file of the security
issue: Basic credentials from URL userinfo and from REGISTRY_TO_AUTH, and a bearer token
from the identity provider, reach both sides; a caller without the needed grant stops at the
first write with one line, and nothing is written."""
from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from app.security.passwords import hash_password
from support.live import start_server
from transfer_helpers import Rest, record, run_cli

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
name = "migrator"
password = "{migrator}"

[[users]]
name = "reader"
password = "{reader}"

[[grants]]
principal = "user:migrator"
role = "admin"
scope = "global"

[[grants]]
principal = "group:migrators"
role = "admin"
scope = "global"

[[grants]]
principal = "user:reader"
role = "read"
subjects = ["*"]
contexts = ["*"]
"""


@pytest.fixture
def secured(tmp_path: Path, idp) -> Iterator[Callable[[str], str]]:
    """`secured(name)` starts a registry on its own SQLite database with the auth file on:
    Basic users, and bearer tokens of the loopback identity provider (`group:migrators` from
    the token's roles is a global admin)."""
    text = AUTH_FILE.format(migrator=hash_password("m-secret", ln=14), reader=hash_password("r-secret", ln=14),
                            jwks_url=idp.jwks_url, issuer=idp.issuer)
    servers = []

    def start(name: str) -> str:
        workdir = tmp_path / name
        workdir.mkdir()
        (workdir / "auth.toml").write_text(text)
        server = start_server(f"sqlite:///{workdir / 'registry.db'}", workdir / "server.log", workers=1,
                              env={"REGISTRY_AUTH_FILE": str(workdir / "auth.toml")})
        servers.append(server)
        return server.url

    yield start
    for server in servers:
        server.stop()


def test_mirror_between_registries_that_enforce_the_auth_file(secured, tmp_path: Path) -> None:
    source, target = secured("source"), secured("target")
    writer = Rest(source)
    writer.http.auth = ("migrator", "m-secret")
    writer.register("orders-value", record("Order", ("id", "string")))
    writer.register("customers-value", record("Customer", ("name", "string")))

    done = run_cli("mirror", "--from", source.replace("http://", "http://migrator:m-secret@"), "--to", target,
                   "--verify", env={"REGISTRY_TO_AUTH": "basic:migrator:m-secret"})

    assert done.returncode == 0, done.stdout + done.stderr
    assert "m-secret" not in done.stdout + done.stderr
    check = Rest(target)
    check.http.auth = ("migrator", "m-secret")
    assert check.call("GET", "/subjects") == ["customers-value", "orders-value"]


def test_import_with_a_bearer_token_from_the_identity_provider(secured, idp, tmp_path: Path) -> None:
    source, target = secured("source"), secured("target")
    writer = Rest(source)
    writer.http.auth = ("migrator", "m-secret")
    writer.register("orders-value", record("Order", ("id", "string")))
    dump = tmp_path / "orders.dump"
    assert run_cli("export", "--from", source.replace("http://", "http://migrator:m-secret@"),
                   "--output", str(dump)).returncode == 0
    token = idp.token({"realm_access": {"roles": ["migrators"]}}, sub="ci-migration")

    done = run_cli("import", "--to", target, str(dump), env={"REGISTRY_TO_AUTH": f"bearer:{token}"})

    assert done.returncode == 0, done.stdout + done.stderr
    assert token not in done.stdout + done.stderr
    check = Rest(target)
    check.http.auth = ("migrator", "m-secret")
    assert check.call("GET", "/subjects") == ["orders-value"]


def test_a_reader_cannot_import_and_nothing_is_written(secured, tmp_path: Path) -> None:
    source, target = secured("source"), secured("target")
    writer = Rest(source)
    writer.http.auth = ("migrator", "m-secret")
    writer.register("orders-value", record("Order", ("id", "string")))
    dump = tmp_path / "orders.dump"
    assert run_cli("export", "--from", source.replace("http://", "http://reader:r-secret@"),
                   "--output", str(dump)).returncode == 0

    done = run_cli("import", "--to", target, str(dump), env={"REGISTRY_TO_AUTH": "basic:reader:r-secret"})

    assert done.returncode == 1
    errors = [line for line in done.stderr.splitlines() if line.startswith("error: ")]
    assert len(errors) == 1 and "40301" in errors[0] and "Traceback" not in done.stderr, done.stderr
    check = Rest(target)
    check.http.auth = ("migrator", "m-secret")
    assert check.call("GET", "/subjects") == []
