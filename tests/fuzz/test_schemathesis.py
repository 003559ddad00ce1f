"""Schemathesis 4.x against the published contract: gunicorn on PostgreSQL with an
auth file, every operation of `GET /openapi.json` through the examples, coverage and fuzzing
phases with an administrator's Basic credentials, checked for server errors and for statuses,
content types and bodies the document does not describe; then a short run without credentials,
in which every operation that is not open must answer 401 (unauthenticated_check.py).

Each run's JUnit report is kept under `reports/` (git-ignored) for CI to keep as an artifact;
the figures (operations, test cases, seconds) go to `reports/<run>-summary.json`. Operations the
document lists ahead of the branch that routes them are left out (see tests/api/test_openapi.py's
LANDING); a routing 404 is told apart by an unauthenticated 401 only, so that is looked up with
the administrator's credentials.
"""
from __future__ import annotations

import base64
import json
import os
import re
import subprocess
import sys
import time
import urllib.error
import urllib.request
import xml.etree.ElementTree as ElementTree
from collections.abc import Iterator
from pathlib import Path

import pytest
from support.commands import run_command
from support.live import REPO_ROOT, LiveServer, start_server
from support.postgres import PostgresCluster

from app.security.passwords import hash_password

pytestmark = [pytest.mark.fuzz, pytest.mark.postgres, pytest.mark.slow, pytest.mark.timeout(1800)]

REPORTS = REPO_ROOT / "reports"
CHECKS = "not_a_server_error,status_code_conformance,content_type_conformance,response_schema_conformance"
ADMIN, PASSWORD = "fuzz-admin", "fuzz-admin-secret"
AUTH_FILE = """\
[authentication]
realm = "sqlregistry"
methods = ["basic"]
allow_anonymous = false

[[users]]
name = "{name}"
password = "{hash}"

[[grants]]
principal = "user:{name}"
role = "admin"
scope = "global"
"""
ADMIN_HEADERS = {"Authorization": "Basic " + base64.b64encode(f"{ADMIN}:{PASSWORD}".encode()).decode()}
UNAUTHENTICATED_CHECK = Path(__file__).with_name("unauthenticated_check.py")
CONFIG = Path(__file__).with_name("schemathesis.toml")
# Something for the examples phase to find: the documented example subject, in each format.
SEED = (
    ("orders-value", {"schema": '{"type":"record","name":"Order","fields":[{"name":"id","type":"string"}]}'}),
    ("orders-json", {"schema": '{"type":"object","properties":{"id":{"type":"string"}}}', "schemaType": "JSON"}),
    ("orders-proto", {"schema": 'syntax = "proto3";\nmessage Order { string id = 1; }', "schemaType": "PROTOBUF"}),
)


@pytest.fixture(scope="session")
def fuzz_server(pg_cluster: PostgresCluster, tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    """A server of its own: the run changes global config and mode, deletes and registers at will.
    One per xdist worker that runs a slice (session scope: a module-scoped fixture would put
    the module's slices on one worker, tests/conftest.py), so that the slices run side by side."""
    workdir = tmp_path_factory.mktemp("fuzz")
    auth_file = workdir / "auth.toml"
    # The cheapest accepted scrypt cost: the credential cache makes it one hash per worker anyway.
    auth_file.write_text(AUTH_FILE.format(name=ADMIN, hash=hash_password(PASSWORD, ln=14)))
    name = pg_cluster.create_database("fuzz")
    server = start_server(pg_cluster.url(name), workdir / "server.log", workers=2,
                          env={"REGISTRY_AUTH_FILE": str(auth_file)})
    try:
        for subject, body in SEED:
            request = urllib.request.Request(
                f"{server.url}/subjects/{subject}/versions", json.dumps(body).encode(),
                {"Content-Type": "application/vnd.schemaregistry.v1+json", **ADMIN_HEADERS}, method="POST")
            with urllib.request.urlopen(request, timeout=30) as reply:
                assert reply.status == 200
        yield server
    finally:
        server.stop()
        pg_cluster.drop_database(name)


def unrouted_paths(base_url: str) -> list[str]:
    """Documented paths this build does not route yet (a routing 404 names no subject or id)."""
    with urllib.request.urlopen(f"{base_url}/openapi.json", timeout=30) as reply:
        paths = json.load(reply)["paths"]
    return [path for path in paths if "{" not in path and _routing_404(f"{base_url}{path}")]


def _routing_404(url: str) -> bool:
    try:
        with urllib.request.urlopen(urllib.request.Request(url, headers=ADMIN_HEADERS), timeout=30):
            return False
    except urllib.error.HTTPError as error:
        return error.code == 404 and json.loads(error.read()) == {"error_code": 404, "message": "HTTP 404 Not Found"}


def run_schemathesis(
    server: LiveServer, name: str, *options: str, env: dict[str, str] | None = None
) -> dict[str, int | float]:
    """One run; its figures, after asserting it passed (exit status 0, no JUnit failure or error)."""
    REPORTS.mkdir(exist_ok=True)
    report = REPORTS / f"{name}.xml"
    command = [
        sys.executable, "-m", "schemathesis.cli", "--config-file", str(CONFIG), "run", f"{server.url}/openapi.json",
        "--report", "junit", "--report-junit-path", str(report), "--seed", "18", "--no-color", *options,
    ]
    for path in unrouted_paths(server.url):
        command += ["--exclude-path", path]
    started = time.monotonic()
    # In reports/, so that the run's own cache (.schemathesis/) lands there too.
    result = run_command(command, cwd=REPORTS, capture_output=True, text=True,
                         stdin=subprocess.DEVNULL, env={**os.environ, **(env or {})})
    seconds = time.monotonic() - started
    output = result.stdout + result.stderr
    assert result.returncode == 0, output[-6000:] + "\nserver log:\n" + server.log_tail()
    suites = ElementTree.parse(report).getroot()
    cases = re.search(r"(\d+) generated", output)
    assert cases is not None, output[-2000:]
    figures: dict[str, int | float] = {
        "operations": int(suites.attrib["tests"]), "test_cases": int(cases.group(1)), "seconds": round(seconds, 1),
        "failures": int(suites.attrib["failures"]), "errors": int(suites.attrib["errors"]),
    }
    (REPORTS / f"{name}-summary.json").write_text(json.dumps(figures, indent=2) + "\n")
    assert (figures["failures"], figures["errors"]) == (0, 0)
    return figures


# The administrator's run in three slices of the document's operations, so that a parallel run
# (pytest-xdist) spreads them over its workers; together they cover every operation once.
SLICED = "^/(subjects|dek-registry|exporters)"
SLICES = [
    pytest.param(("--include-path-regex", "^/subjects"), id="subjects"),
    pytest.param(("--include-path-regex", "^/(dek-registry|exporters)"), id="dek-and-exporters"),
    pytest.param(("--exclude-path-regex", SLICED), id="the-rest"),
]
METHODS = ("get", "put", "post", "delete", "patch")


def operations_in(base_url: str, option: str, pattern: str) -> int:
    """How many routed operations of the document a slice's filter selects (Schemathesis
    leaves out the one that serves the document it reads)."""
    with urllib.request.urlopen(f"{base_url}/openapi.json", timeout=30) as reply:
        paths = json.load(reply)["paths"]
    unrouted = {*unrouted_paths(base_url), "/openapi.json"}
    selected = [path for path in paths if (re.search(pattern, path) is not None) == (option.startswith("--include"))]
    return sum(method in METHODS for path in selected if path not in unrouted for method in paths[path])


@pytest.mark.parametrize("chosen", SLICES)
def test_with_an_administrators_credentials_no_operation_fails_any_check(
        fuzz_server: LiveServer, chosen: tuple[str, str], request: pytest.FixtureRequest) -> None:
    figures = run_schemathesis(
        fuzz_server, f"schemathesis-{request.node.callspec.id}", *chosen,
        "--auth", f"{ADMIN}:{PASSWORD}", "--checks", CHECKS,
        "--phases", "examples,coverage,fuzzing", "--max-examples", "10",
        # A free-text path parameter (a context's name) loses many drawn values to what a URL
        # path cannot carry; Hypothesis's generation health check is no finding about the server.
        "--suppress-health-check", "filter_too_much",
    )
    assert figures["operations"] == operations_in(fuzz_server.url, *chosen) > 0
    assert "Unhandled error" not in fuzz_server.log_tail(10_000_000)


def test_without_credentials_every_operation_that_is_not_open_is_401(fuzz_server: LiveServer) -> None:
    figures = run_schemathesis(
        fuzz_server, "schemathesis-unauthenticated",
        "--checks", CHECKS + ",refused_without_credentials",
        "--phases", "examples,fuzzing", "--max-examples", "5",
        env={"SCHEMATHESIS_HOOKS": str(UNAUTHENTICATED_CHECK)},
    )
    assert figures["operations"] >= 44
