"""Helpers of the security tests: password hashes made once per session (scrypt is slow on
purpose), Basic headers, auth files written from text, and a server started over one."""
from __future__ import annotations

import base64
import functools
import textwrap
from pathlib import Path

from app.security.passwords import hash_password

# The cheapest accepted cost keeps the suite quick; the default cost is measured in bench/.
TEST_LN = 14


@functools.cache
def hashed(password: str) -> str:
    return hash_password(password, ln=TEST_LN)


def basic(name: str, password: str) -> dict[str, str]:
    return {"Authorization": "Basic " + base64.b64encode(f"{name}:{password}".encode()).decode()}


def write_file(path: Path, text: str) -> Path:
    path.write_text(textwrap.dedent(text))
    return path


USERS = """
[[users]]
name = "alice"
password = "{alice}"
groups = ["payments", "ops"]

[[users]]
name = "bob"
password = "{bob}"

[[users]]
name = "billing-gateway"
groups = ["payments"]
"""


def users_text() -> str:
    return USERS.format(alice=hashed("alice-secret"), bob=hashed("bob-secret"))


def serve_with_auth_file(workdir: Path, text: str, workers: int = 2):
    """`sqlregistry serve` on SQLite with an auth file of `text` at workdir/auth.toml (the
    server's log, which carries the auth log lines, at workdir/server.log)."""
    from support.live import start_server

    path = write_file(workdir / "auth.toml", text)
    return start_server(f"sqlite:///{workdir / 'registry.db'}", workdir / "server.log", workers=workers,
                        env={"REGISTRY_AUTH_FILE": str(path)})
