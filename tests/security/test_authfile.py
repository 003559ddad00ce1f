"""The auth file format: the issue's complete example loads into the records the
authenticators and the authorizer read, and every way of getting the file wrong is refused
with the entry and the problem named (at load, by `auth check-file`, and at server start)."""
from __future__ import annotations

import logging
import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from auth_support import hashed, users_text, write_file
from support.commands import run_command

from app.security.authfile import load_auth_file, parse_auth_file
from app.security.errors import AuthFileError
from app.security.records import PatternKind, Role
from app.server.serving import prepare_authentication
from app.settings import Settings

REPO_ROOT = Path(__file__).resolve().parents[2]

EXAMPLE = """
[authentication]
realm = "sqlregistry"                 # realm in WWW-Authenticate
methods = ["basic", "bearer", "mtls"] # any subset
allow_anonymous = false
cache_seconds = 300
max_failures_per_minute = 20

[bearer]
jwks_url = "https://idp.example.com/realms/data/protocol/openid-connect/certs"
issuer = "https://idp.example.com/realms/data"
audience = "sqlregistry"
algorithms = ["RS256", "ES256"]
principal_claim = "sub"
groups_claim = "realm_access.roles"
leeway_seconds = 30

[mtls]
principal_from = "cn"

[[users]]
name = "ci-publisher"
password = "$scrypt$ln=15,r=8,p=1$pPZ0Vdqk1sQ2M8b0b0YQ3Q$0d6Z0jQm6n3eZ6r0Xw7Wj8a1mD9kq3bq2b7t9Qy2e1E"
groups = ["payments"]

[[users]]
name = "billing-gateway"              # no password: a client-certificate identity that needs groups
groups = ["payments"]

[[grants]]
principal = "user:ops"
role = "admin"
scope = "global"

[[grants]]
principal = "group:payments"
role = "write"
subjects = ["prefix:payments.", "regex:^billing-(key|value)$"]
contexts = [".", ".staging"]

[[grants]]
principal = "*"
role = "read"
subjects = ["prefix:shared."]
"""


def test_the_issues_complete_example_loads_into_records():
    file = parse_auth_file(EXAMPLE)
    auth = file.authentication
    assert (auth.realm, auth.methods, auth.allow_anonymous, auth.cache_seconds, auth.max_failures_per_minute) == (
        "sqlregistry", frozenset({"basic", "bearer", "mtls"}), False, 300, 20)
    bearer = file.bearer
    assert bearer.jwks_url.startswith("https://idp.example.com/") and bearer.jwks_file is None
    assert (bearer.issuer, bearer.audience, bearer.algorithms) == (
        "https://idp.example.com/realms/data", "sqlregistry", ("RS256", "ES256"))
    assert (bearer.principal_claim, bearer.groups_claim, bearer.leeway_seconds) == ("sub", "realm_access.roles", 30)
    assert file.mtls.principal_from == "cn"
    assert [(u.name, u.groups) for u in file.users] == [
        ("ci-publisher", ("payments",)), ("billing-gateway", ("payments",))]
    assert file.users_by_name["billing-gateway"].password is None
    admin, write, read = file.grants
    assert (admin.principal, admin.role, admin.global_scope, admin.subjects) == ("user:ops", Role.ADMIN, True, ())
    assert (write.principal, write.role, write.contexts) == ("group:payments", Role.WRITE, (".", ".staging"))
    prefix, regex = write.subjects
    assert (prefix.kind, prefix.text) == (PatternKind.PREFIX, "payments.")
    assert regex.kind is PatternKind.REGEX and regex.regex.fullmatch("billing-value")
    assert not regex.regex.fullmatch("billing-value-x")
    assert (read.principal, read.role, read.contexts) == ("*", Role.READ, (".",))


def test_defaults_when_sections_and_keys_are_left_out():
    file = parse_auth_file(users_text())
    auth = file.authentication
    assert (auth.realm, auth.methods, auth.allow_anonymous, auth.cache_seconds, auth.max_failures_per_minute) == (
        "sqlregistry", frozenset({"basic"}), False, 300, 20)
    assert file.bearer is None and file.mtls is None and file.grants == ()


def test_mtls_enabled_without_its_section_takes_the_common_name():
    file = parse_auth_file('[authentication]\nmethods = ["mtls"]\n')
    assert file.mtls.principal_from == "cn"


def test_a_jwks_url_on_a_loopback_host_may_be_plain_http():
    for host in ("127.0.0.1:8443", "localhost", "[::1]:9000", "127.3.2.1"):
        text = f'[bearer]\njwks_url = "http://{host}/jwks"\nalgorithms = ["RS256"]\n'
        assert parse_auth_file(text).bearer.jwks_url == f"http://{host}/jwks"


def test_a_bearer_section_with_a_jwks_file():
    file = parse_auth_file('[bearer]\njwks_file = "/etc/sqlregistry/jwks.json"\nalgorithms = ["EdDSA", "PS256"]\n')
    assert (file.bearer.jwks_file, file.bearer.jwks_url, file.bearer.algorithms) == (
        "/etc/sqlregistry/jwks.json", None, ("EdDSA", "PS256"))


def test_subject_pattern_kinds():
    file = parse_auth_file(textwrap.dedent('''
        [[grants]]
        principal = "anonymous"
        role = "read"
        subjects = ["*", "exact:orders-value", "prefix:a.b*", "regex:orders-(key|value)"]
        contexts = ["*"]
    '''))
    any_, exact, prefix, regex = file.grants[0].subjects
    assert any_.kind is PatternKind.ANY
    assert (exact.kind, exact.text) == (PatternKind.EXACT, "orders-value")
    assert (prefix.kind, prefix.text, prefix.regex) == (PatternKind.PREFIX, "a.b*", None)  # no regex meaning
    assert regex.regex.pattern == "orders-(key|value)"
    assert file.grants[0].contexts == ("*",)


def test_kek_patterns_load_beside_or_instead_of_subject_patterns():
    file = parse_auth_file(textwrap.dedent('''
        [[grants]]
        principal = "group:payments"
        role = "write"
        keks = ["exact:payments_kek", "prefix:pay_", "regex:team-(a|b)", "*"]
        contexts = [".", ".staging"]

        [[grants]]
        principal = "user:alice"
        role = "admin"
        subjects = ["prefix:alice."]
        keks = ["prefix:alice_"]
    '''))
    only_keks, both = file.grants
    assert only_keks.subjects == ()
    assert [(p.kind, p.text) for p in only_keks.keks] == [
        (PatternKind.EXACT, "payments_kek"), (PatternKind.PREFIX, "pay_"), (PatternKind.REGEX, "team-(a|b)"),
        (PatternKind.ANY, "")]
    assert only_keks.keks[2].regex.pattern == "team-(a|b)"
    assert only_keks.contexts == (".", ".staging")
    assert ([p.text for p in both.subjects], [p.text for p in both.keks]) == (["alice."], ["alice_"])


def test_check_file_validates_kek_patterns(tmp_path: Path):
    bad = '\n[[grants]]\nprincipal = "*"\nrole = "read"\nkeks = ["exact:"]\n'
    path = write_file(tmp_path / "auth.toml", EXAMPLE + bad)
    result = run_cli("auth", "check-file", str(path))
    assert result.returncode == 1
    assert result.stderr.splitlines() == [
        f"sqlregistry: error: auth file {path}: grants[3].keks[0]: 'exact:' has nothing after exact:"]


AUTH = "[authentication]\n"
BEARER = '[bearer]\njwks_url = "https://idp/jwks"\n'
GOOD_HASH = "$scrypt$ln=14,r=8,p=1$c3Nzc3Nzc3Nzc3Nzc3Nzcw$a2tra2tra2tra2tra2tra2tra2tra2tra2tra2tra2s"

INVALID = [
    pytest.param("[authentication\n", "(file)", "not valid TOML", id="toml-syntax"),
    pytest.param("[[users]]\nname = \"a\"\n[[users]]\nname = \"a\"\n", "users[1].name", "duplicate user 'a'",
                 id="duplicate-user"),
    pytest.param("[extra]\n", "(file)", "unknown key 'extra'", id="unknown-section"),
    pytest.param(AUTH + "realms = \"x\"\n", "[authentication]", "unknown key 'realms'", id="unknown-auth-key"),
    pytest.param(AUTH + "methods = [\"basic\", \"kerberos\"]\n", "[authentication].methods",
                 "unknown method 'kerberos'",
                 id="unknown-method"),
    pytest.param(AUTH + "methods = []\n", "[authentication].methods", "at least one", id="no-methods"),
    pytest.param(AUTH + "methods = [\"basic\", \"basic\"]\n", "[authentication].methods", "at most once",
                 id="repeated-method"),
    pytest.param(AUTH + "allow_anonymous = 1\n", "[authentication].allow_anonymous", "must be true or false",
                 id="anonymous-not-bool"),
    pytest.param(AUTH + "cache_seconds = true\n", "[authentication].cache_seconds", "must be an integer",
                 id="cache-seconds-bool"),
    pytest.param(AUTH + "cache_seconds = -1\n", "[authentication].cache_seconds", "between 0 and 86400",
                 id="cache-seconds-negative"),
    pytest.param(AUTH + "max_failures_per_minute = 0\n", "[authentication].max_failures_per_minute", "between 1",
                 id="failures-zero"),
    pytest.param(AUTH + 'realm = "a\\"b"\n', "[authentication].realm", "without quotes", id="realm-quote"),
    pytest.param(AUTH + "methods = [\"bearer\"]\n", "[authentication].methods", "no [bearer] section",
                 id="bearer-without-section"),
    pytest.param(BEARER + 'algorithms = ["none"]\n', "[bearer].algorithms", "'none' is refused", id="alg-none"),
    pytest.param(BEARER + 'algorithms = ["RS256", "HS256"]\n', "[bearer].algorithms", "'HS256' is refused",
                 id="alg-hs256"),
    pytest.param(BEARER + 'algorithms = ["hs512"]\n', "[bearer].algorithms", "'hs512' is refused", id="alg-hs-lower"),
    pytest.param(BEARER + 'algorithms = ["RS999"]\n', "[bearer].algorithms", "unknown algorithm 'RS999'",
                 id="alg-unknown"),
    pytest.param(BEARER + 'algorithms = []\n', "[bearer].algorithms", "at least one", id="alg-empty"),
    pytest.param(BEARER, "[bearer].algorithms", "is required", id="alg-missing"),
    pytest.param('[bearer]\nalgorithms = ["RS256"]\n', "[bearer]", "exactly one of jwks_url and jwks_file",
                 id="jwks-neither"),
    pytest.param(BEARER + 'jwks_file = "/j.json"\nalgorithms = ["RS256"]\n', "[bearer]", "exactly one",
                 id="jwks-both"),
    pytest.param('[bearer]\njwks_url = "http://idp.example.com/jwks"\nalgorithms = ["RS256"]\n', "[bearer].jwks_url",
                 "must use https", id="jwks-plain-http"),
    pytest.param('[bearer]\njwks_url = "http://127.0.0.1.example.com/jwks"\nalgorithms = ["RS256"]\n',
                 "[bearer].jwks_url", "must use https", id="jwks-loopback-lookalike"),
    pytest.param('[bearer]\njwks_url = "file:///etc/jwks"\nalgorithms = ["RS256"]\n', "[bearer].jwks_url",
                 "https:// URL", id="jwks-file-scheme"),
    pytest.param(BEARER + 'algorithms = ["RS256"]\nleeway = 3\n', "[bearer]", "unknown key 'leeway'",
                 id="bearer-unknown-key"),
    pytest.param(BEARER + 'algorithms = ["RS256"]\ngroups_claim = "a..b"\n', "[bearer].groups_claim",
                 "empty path segment", id="groups-claim-path"),
    pytest.param('[mtls]\nprincipal_from = "serial"\n', "[mtls].principal_from", "'serial' is not one of",
                 id="mtls-source"),
    pytest.param("[[users]]\nname = \"a\"\npassword = \"hunter2\"\n", "users[0].password", "not a $scrypt$",
                 id="plaintext-password"),
    pytest.param(f"[[users]]\nname = \"a\"\npassword = \"{GOOD_HASH.replace('ln=14', 'ln=12')}\"\n",
                 "users[0].password", "ln=12 is outside 14-20", id="weak-hash"),
    pytest.param("[[users]]\nname = \"a\"\npassword = [\"hunter2\"]\n", "users[0].password",
                 "must be a string (a $scrypt$ PHC hash)", id="password-not-a-string"),
    pytest.param("[[users]]\nname = \"a\"\nrole = \"admin\"\n", "users[0]", "unknown key 'role'",
                 id="user-unknown-key"),
    pytest.param("[[users]]\ngroups = [\"g\"]\n", "users[0]", "has no name", id="user-without-name"),
    pytest.param("[[users]]\nname = \"\"\n", "users[0].name", "non-empty", id="user-empty-name"),
    pytest.param(f"[[users]]\nname = \"a:b\"\npassword = \"{GOOD_HASH}\"\n", "users[0].name", "':'",
                 id="colon-in-basic-user"),
    pytest.param("[[users]]\nname = \"a\"\ngroups = \"g\"\n", "users[0].groups", "list of strings",
                 id="groups-not-list"),
    pytest.param("[users]\nname = \"a\"\n", "users", "array of tables", id="users-table"),
    pytest.param("[[grants]]\nprincipal = \"user:a\"\nrole = \"owner\"\nscope = \"global\"\n", "grants[0].role",
                 "unknown role 'owner'", id="unknown-role"),
    pytest.param("[[grants]]\nprincipal = \"team:a\"\nrole = \"read\"\nscope = \"global\"\n", "grants[0].principal",
                 "is not user:NAME", id="unknown-principal-kind"),
    pytest.param("[[grants]]\nprincipal = \"user:\"\nrole = \"read\"\nscope = \"global\"\n", "grants[0].principal",
                 "is not user:NAME", id="principal-without-name"),
    pytest.param("[[grants]]\nprincipal = \"*\"\nrole = \"read\"\nscope = \"cluster\"\n", "grants[0].scope",
                 "only scope", id="unknown-scope"),
    pytest.param("[[grants]]\nprincipal = \"*\"\nrole = \"read\"\n", "grants[0]",
                 "scope = \"global\", subjects or keks", id="neither-scope-nor-subjects"),
    pytest.param("[[grants]]\nprincipal = \"*\"\nrole = \"read\"\nscope = \"global\"\nsubjects = [\"*\"]\n",
                 "grants[0].subjects", "cannot be combined", id="scope-and-subjects"),
    pytest.param("[[grants]]\nprincipal = \"*\"\nrole = \"read\"\nsubjects = [\"regex:(\"]\n", "grants[0].subjects[0]",
                 "regex does not compile", id="bad-regex"),
    pytest.param("[[grants]]\nprincipal = \"*\"\nrole = \"read\"\nsubjects = [\"*\", \"glob:a*\"]\n",
                 "grants[0].subjects[1]", "is not \"*\"", id="unknown-pattern-kind"),
    pytest.param("[[grants]]\nprincipal = \"*\"\nrole = \"read\"\nsubjects = [\"prefix:\"]\n", "grants[0].subjects[0]",
                 "nothing after prefix:", id="empty-prefix"),
    pytest.param("[[grants]]\nprincipal = \"*\"\nrole = \"read\"\nsubjects = []\n", "grants[0].subjects",
                 "at least one pattern", id="no-subjects"),
    pytest.param("[[grants]]\nprincipal = \"*\"\nrole = \"read\"\nkeks = []\n", "grants[0].keks",
                 "at least one pattern", id="no-keks"),
    pytest.param("[[grants]]\nprincipal = \"*\"\nrole = \"read\"\nkeks = [\"glob:a*\"]\n", "grants[0].keks[0]",
                 "is not \"*\"", id="unknown-kek-pattern-kind"),
    pytest.param("[[grants]]\nprincipal = \"*\"\nrole = \"read\"\nkeks = [\"regex:(\"]\n", "grants[0].keks[0]",
                 "regex does not compile", id="bad-kek-regex"),
    pytest.param("[[grants]]\nprincipal = \"*\"\nrole = \"read\"\nkeks = [\"exact:9 lives\"]\n",
                 "grants[0].keks[0]", "is not a KEK name", id="exact-kek-no-kek-could-be-named"),
    pytest.param("[[grants]]\nprincipal = \"*\"\nrole = \"admin\"\nscope = \"global\"\nkeks = [\"*\"]\n",
                 "grants[0].keks", "cannot be combined", id="scope-and-keks"),
    pytest.param("[[grants]]\nprincipal = \"*\"\nrole = \"read\"\nkeks = \"*\"\n", "grants[0].keks",
                 "must be a list of strings", id="keks-not-a-list"),
    pytest.param("[[grants]]\nprincipal = \"*\"\nrole = \"read\"\nsubjects = [\"*\"]\ncontexts = [\"staging\"]\n",
                 "grants[0].contexts[0]", "not a context name", id="context-without-dot"),
    pytest.param("[[grants]]\nprincipal = \"*\"\nrole = \"read\"\nsubjects = [\"*\"]\ncontext = [\".\"]\n",
                 "grants[0]", "unknown key 'context'", id="grant-unknown-key"),
    pytest.param("[[grants]]\nrole = \"read\"\nscope = \"global\"\n", "grants[0]", "has no principal",
                 id="grant-without-principal"),
]


@pytest.mark.parametrize(("text", "where", "problem"), INVALID)
def test_an_invalid_file_names_the_entry_and_the_problem(text: str, where: str, problem: str):
    with pytest.raises(AuthFileError) as caught:
        parse_auth_file(text)
    assert caught.value.where == where
    assert problem in caught.value.problem
    assert "hunter2" not in str(caught.value)


def test_a_file_that_is_not_utf8_or_missing_is_invalid(tmp_path: Path):
    path = tmp_path / "auth.toml"
    path.write_bytes(b"[authentication]\nrealm = \"\xff\"\n")
    with pytest.raises(AuthFileError, match="not UTF-8"):
        load_auth_file(path)
    with pytest.raises(AuthFileError, match="cannot read it"):
        load_auth_file(tmp_path / "absent.toml")


def run_cli(*argv: str) -> subprocess.CompletedProcess[str]:
    return run_command([sys.executable, "-m", "app.cli", *argv], capture_output=True, text=True, cwd=REPO_ROOT)


def test_check_file_accepts_a_valid_file(tmp_path: Path):
    path = write_file(tmp_path / "auth.toml", EXAMPLE)
    result = run_cli("auth", "check-file", str(path))
    assert result.returncode == 0, result.stderr
    assert "valid (2 users, 3 grants" in result.stdout


def test_check_file_refuses_an_invalid_file_with_one_line(tmp_path: Path):
    path = write_file(tmp_path / "auth.toml", EXAMPLE.replace('role = "write"', 'role = "writer"'))
    result = run_cli("auth", "check-file", str(path))
    assert result.returncode == 1
    assert result.stderr.splitlines() == [
        f"sqlregistry: error: auth file {path}: grants[1].role: unknown role 'writer' (known: read, write, admin)"
    ]


def test_serve_refuses_to_start_on_an_invalid_file_with_one_line(tmp_path: Path):
    path = write_file(tmp_path / "auth.toml", users_text() + "[[users]]\nname = \"bob\"\n")
    result = run_command([sys.executable, "-m", "app.cli", "serve", "--database-url", f"sqlite:///{tmp_path}/r.db"],
                         capture_output=True, text=True, cwd=REPO_ROOT,
                         env={**_env(), "REGISTRY_AUTH_FILE": str(path)})
    assert result.returncode == 1
    assert result.stderr.splitlines() == [f"sqlregistry: error: auth file {path}: users[3].name: duplicate user 'bob'"]
    assert not (tmp_path / "r.db").exists()  # stopped before the database step


@pytest.mark.parametrize("config", [[], ["-c", "deploy/gunicorn.conf.py"]], ids=["plain", "deploy-config"])
def test_gunicorn_wsgi_app_stops_on_an_invalid_file_naming_it(tmp_path: Path, config: list[str]):
    """`gunicorn wsgi:app`: plain, a worker fails to boot and the master stops; with the
    deploy config, the master checks the file before it forks."""
    from support.postgres import free_port

    path = write_file(tmp_path / "auth.toml",
                      "[[grants]]\nprincipal = \"*\"\nrole = \"read\"\nsubjects = [\"regex:[\"]\n")
    result = run_command(
        [sys.executable, "-m", "gunicorn", *config, "-b", f"127.0.0.1:{free_port()}", "-w", "1", "wsgi:app"],
        capture_output=True, text=True, cwd=REPO_ROOT,
        env={**_env(), "REGISTRY_AUTH_FILE": str(path), "REGISTRY_DATABASE_URL": f"sqlite:///{tmp_path}/r.db",
             "REGISTRY_METRICS": "false"},
    )
    assert result.returncode != 0
    ours = [line for line in result.stderr.splitlines() if line.startswith("sqlregistry: error:")]
    assert ours == [f"sqlregistry: error: auth file {path}: grants[0].subjects[0]: regex does not compile: "
                    "unterminated character set at position 0"]
    assert "Traceback" not in result.stderr


def _env() -> dict[str, str]:
    return {key: value for key, value in os.environ.items() if not key.startswith("REGISTRY_")}


def test_no_auth_file_on_a_non_loopback_address_warns_once(caplog: pytest.LogCaptureFixture):
    with caplog.at_level(logging.WARNING):
        prepare_authentication(Settings(host="0.0.0.0"))
        prepare_authentication(Settings(host="::1"))
        prepare_authentication(Settings(host="127.0.0.1"))
        prepare_authentication(Settings(host="localhost"))
    warnings = [record.getMessage() for record in caplog.records]
    assert len(warnings) == 1
    assert re.search(r"listening on 0\.0\.0\.0 without REGISTRY_AUTH_FILE", warnings[0])


def test_an_auth_file_on_a_non_loopback_address_does_not_warn(tmp_path: Path, caplog: pytest.LogCaptureFixture):
    path = write_file(tmp_path / "auth.toml", f"[[users]]\nname = \"a\"\npassword = \"{hashed('pw')}\"\n")
    with caplog.at_level(logging.WARNING):
        prepare_authentication(Settings(host="0.0.0.0", auth_file=str(path)))
    assert caplog.records == []
