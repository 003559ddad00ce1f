"""Basic authentication in front of the registry: who gets in as whom, the exact 401 every
refusal gets, what scrypt work each request costs (cache, unknown users, the failure
limit), and that no Authorization header whatsoever gets anything but 200 or 401."""
from __future__ import annotations

import base64
import hmac
import json
import logging
import threading

import pytest
from auth_support import basic, hashed, users_text
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from support.commands import run_command

from app.core.access import Principal
from app.security.authenticate import challenges
from app.security.basic import CACHE_CAPACITY, CredentialCache, FailureLimiter
from app.security.records import AuthenticationSettings

UNAUTHORIZED = b'{"error_code":401,"message":"Unauthorized"}'
MEDIA_TYPE = "application/vnd.schemaregistry.v1+json"
BASIC_CHALLENGE = 'Basic realm="sqlregistry", charset="UTF-8"'


def auth_section(**values: object) -> str:
    """`[authentication]` with these keys; json's literals are TOML's for strings, ints and bools."""
    return "[authentication]\n" + "".join(f"{key} = {json.dumps(value)}\n" for key, value in values.items())


@pytest.fixture
def client(auth_app):
    return auth_app(users_text()).test_client()


def assert_unauthorized(reply, challenges=(BASIC_CHALLENGE,)) -> None:
    assert reply.status_code == 401
    assert reply.data == UNAUTHORIZED
    assert reply.headers["Content-Type"] == MEDIA_TYPE
    assert reply.headers.getlist("WWW-Authenticate") == list(challenges)


def test_a_valid_credential_is_the_user_with_the_groups_of_its_entry(client):
    reply = client.get("/test/whoami", headers=basic("alice", "alice-secret"))
    assert reply.status_code == 200
    assert reply.json == {"name": "user:alice", "groups": ["group:ops", "group:payments"], "method": "basic"}
    assert client.get("/test/whoami", headers=basic("bob", "bob-secret")).json == {
        "name": "user:bob", "groups": [], "method": "basic"}


def test_a_valid_credential_reaches_the_api(auth_app):
    grants = '[[grants]]\nprincipal = "group:payments"\nrole = "write"\nsubjects = ["*"]\n'
    client = auth_app(users_text() + grants).test_client()
    reply = client.get("/subjects", headers=basic("alice", "alice-secret"))
    assert (reply.status_code, reply.json) == (200, [])
    registered = client.post("/subjects/orders-value/versions", headers=basic("alice", "alice-secret"),
                             json={"schema": '"string"'}, content_type=MEDIA_TYPE)
    assert registered.status_code == 200, registered.data
    # bob has no grant: authenticated, then refused by authorization.
    refused = client.post("/subjects/orders-value/versions", headers=basic("bob", "bob-secret"),
                          json={"schema": '"string"'}, content_type=MEDIA_TYPE)
    assert (refused.status_code, refused.json["error_code"]) == (403, 40301)


def encoded(raw: bytes) -> str:
    return base64.b64encode(raw).decode()


@pytest.mark.parametrize("headers", [
    pytest.param({}, id="no-credentials"),
    pytest.param({"Authorization": ""}, id="empty-header"),
    pytest.param({"Authorization": "Basic"}, id="basic-without-credentials"),
    pytest.param({"Authorization": "Basic !!!not-base64"}, id="bad-base64"),
    pytest.param({"Authorization": "Basic " + encoded(b"alice-without-colon")}, id="no-colon"),
    pytest.param({"Authorization": "Basic " + encoded(b"\xff\xfe:alice-secret")}, id="name-not-utf8"),
    pytest.param({"Authorization": "Digest username=alice"}, id="unknown-scheme"),
    pytest.param({"Authorization": "Bearer eyJhbGciOiJSUzI1NiJ9.e30.c2ln"}, id="bearer-not-enabled"),
    pytest.param({"Authorization": "alice-secret"}, id="bare-secret"),
    pytest.param(basic("mallory", "alice-secret"), id="unknown-user"),
    pytest.param(basic("alice", "wrong"), id="wrong-password"),
    pytest.param(basic("alice", "alice-secret "), id="password-with-extra-space"),
    pytest.param(basic("ALICE", "alice-secret"), id="name-is-case-sensitive"),
    pytest.param(basic("billing-gateway", ""), id="certificate-only-user"),
])
def test_every_failure_kind_gets_the_same_401(client, headers):
    assert_unauthorized(client.get("/subjects", headers=headers))


def test_refusals_come_before_routing_and_media_type_checks(client):
    assert_unauthorized(client.get("/no/such/path"))
    assert_unauthorized(client.post("/subjects/s/versions", data="not json", content_type="text/plain"))
    assert_unauthorized(client.delete("/config"))
    assert_unauthorized(client.post("/"))


def test_the_open_paths_need_no_credentials(client):
    for path in ("/", "/health/live", "/health/ready", "/metrics"):
        assert client.get(path).status_code == 200, path


def test_the_scheme_name_is_case_insensitive(client):
    token = encoded(b"alice:alice-secret")
    for scheme in ("basic", "BASIC", "bAsIc"):
        assert client.get("/subjects", headers={"Authorization": f"{scheme} {token}"}).status_code == 200


def test_a_password_may_hold_colons_and_non_ascii(auth_app):
    client = auth_app(f'[[users]]\nname = "zoë"\npassword = "{hashed("a:b:ç")}"\n').test_client()
    header = {"Authorization": "Basic " + encoded("zoë:a:b:ç".encode())}
    assert client.get("/test/whoami", headers=header).json["name"] == "user:zoë"


def test_the_realm_of_the_file_is_in_the_challenge(auth_app):
    client = auth_app(auth_section(realm="corp-registry") + users_text()).test_client()
    assert_unauthorized(client.get("/subjects"), ['Basic realm="corp-registry", charset="UTF-8"'])


@pytest.mark.parametrize(("methods", "token_presented", "expected"), [
    (["basic"], False, [BASIC_CHALLENGE]),
    (["basic", "bearer"], False, [BASIC_CHALLENGE, 'Bearer realm="sqlregistry"']),
    (["basic", "bearer", "mtls"], True, [BASIC_CHALLENGE, 'Bearer realm="sqlregistry", error="invalid_token"']),
    (["bearer"], True, ['Bearer realm="sqlregistry", error="invalid_token"']),
    (["mtls"], False, []),
])
def test_one_challenge_per_enabled_scheme(methods: list[str], token_presented: bool, expected: list[str]):
    assert challenges(AuthenticationSettings(methods=frozenset(methods)), token_presented) == expected


def test_with_only_client_certificates_enabled_a_request_without_one_is_refused(auth_app):
    client = auth_app(auth_section(methods=["mtls"]) + users_text()).test_client()
    assert_unauthorized(client.get("/subjects"), [])
    assert_unauthorized(client.get("/subjects", headers=basic("alice", "alice-secret")), [])


def test_anonymous_callers_when_the_file_allows_them(auth_app):
    client = auth_app(auth_section(allow_anonymous=True) + users_text()).test_client()
    assert client.get("/test/whoami").json == {"name": "anonymous", "groups": [], "method": "anonymous"}
    assert client.get("/test/whoami", headers=basic("bob", "bob-secret")).json["name"] == "user:bob"
    # Presented credentials are checked even then: a wrong password is not anonymous.
    assert_unauthorized(client.get("/subjects", headers=basic("bob", "wrong")))


def test_without_an_auth_file_every_caller_gets_in_as_before(app):
    reply = app.test_client().get("/subjects", headers=basic("anyone", "anything"))
    assert reply.status_code == 200


# ------------------------------------------------------------------ scrypt work per request
def test_a_cached_credential_costs_no_scrypt(client, scrypt_calls):
    assert client.get("/subjects", headers=basic("alice", "alice-secret")).status_code == 200
    assert scrypt_calls.take() == 1
    for _ in range(5):
        assert client.get("/subjects", headers=basic("alice", "alice-secret")).status_code == 200
    assert scrypt_calls.take() == 0
    # The cache remembers the pair, not the user: another password is checked (and fails).
    assert_unauthorized(client.get("/subjects", headers=basic("alice", "other")))
    assert scrypt_calls.take() == 1


def concurrently(client, headers: dict[str, str], threads: int = 8) -> list[int]:
    """The status each of `threads` simultaneous requests with `headers` gets."""
    barrier = threading.Barrier(threads)
    statuses: list[int] = []

    def one() -> None:
        barrier.wait()
        statuses.append(client.get("/subjects", headers=headers).status_code)

    workers = [threading.Thread(target=one) for _ in range(threads)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    return statuses


def test_simultaneous_requests_with_one_credential_share_one_scrypt(client, scrypt_calls):
    assert concurrently(client, basic("alice", "alice-secret")) == [200] * 8
    assert scrypt_calls.take() == 1
    assert concurrently(client, basic("bob", "wrong")) == [401] * 8
    assert scrypt_calls.take() == 1


def test_cache_seconds_zero_hashes_every_request(auth_app, scrypt_calls):
    client = auth_app(auth_section(cache_seconds=0) + users_text()).test_client()
    for _ in range(3):
        assert client.get("/subjects", headers=basic("bob", "bob-secret")).status_code == 200
    assert scrypt_calls.take() == 3


def test_an_unknown_user_costs_a_verification_like_a_wrong_password(client, scrypt_calls):
    assert_unauthorized(client.get("/subjects", headers=basic("mallory", "x")))
    assert scrypt_calls.take() == 1
    assert_unauthorized(client.get("/subjects", headers=basic("billing-gateway", "x")))
    assert scrypt_calls.take() == 1
    assert_unauthorized(client.get("/subjects", headers=basic("alice", "x")))
    assert scrypt_calls.take() == 1


def test_the_unknown_user_decoy_costs_what_the_files_users_cost(auth_app, monkeypatch):
    import hashlib

    seen: list[int] = []
    real = hashlib.scrypt

    def recording(*args, **kwargs):
        seen.append(kwargs["n"])
        return real(*args, **kwargs)

    client = auth_app(users_text()).test_client()  # every user hashed at ln=14
    monkeypatch.setattr(hashlib, "scrypt", recording)
    client.get("/subjects", headers=basic("mallory", "x"))
    client.get("/subjects", headers=basic("alice", "x"))
    assert seen == [2**14, 2**14]


def test_past_the_failure_limit_a_user_is_refused_without_hashing_from_that_address(auth_app, scrypt_calls):
    client = auth_app(auth_section(max_failures_per_minute=3) + users_text()).test_client()
    for _ in range(3):
        assert_unauthorized(client.get("/subjects", headers=basic("alice", "guess")))
    assert scrypt_calls.take() == 3
    assert_unauthorized(client.get("/subjects", headers=basic("alice", "guess")))
    assert_unauthorized(client.get("/subjects", headers=basic("alice", "alice-secret")))  # even the right one
    assert scrypt_calls.take() == 0
    other = {"REMOTE_ADDR": "10.1.2.3"}
    assert client.get("/subjects", headers=basic("alice", "alice-secret"), environ_base=other).status_code == 200
    assert scrypt_calls.take() == 1


def test_a_flood_of_guesses_for_one_user_does_not_lock_out_another_from_the_same_address(auth_app, scrypt_calls):
    client = auth_app(auth_section(max_failures_per_minute=3) + users_text()).test_client()
    for _ in range(50):
        assert_unauthorized(client.get("/subjects", headers=basic("alice", "guess")))
    assert scrypt_calls.take() == 3  # the rest were refused without hashing, and not counted
    assert client.get("/subjects", headers=basic("bob", "bob-secret")).status_code == 200


def test_spraying_many_user_names_from_one_address_is_limited_too(auth_app, scrypt_calls):
    from app.security.failures import ADDRESS_FACTOR

    client = auth_app(auth_section(max_failures_per_minute=2) + users_text()).test_client()
    for i in range(2 * ADDRESS_FACTOR):
        assert_unauthorized(client.get("/subjects", headers=basic(f"user-{i}", "guess")))
    assert scrypt_calls.take() == 2 * ADDRESS_FACTOR
    assert_unauthorized(client.get("/subjects", headers=basic("bob", "bob-secret")))
    assert scrypt_calls.take() == 0


def test_behind_a_trusted_proxy_failures_count_per_forwarded_client(auth_app, scrypt_calls):
    app = auth_app(auth_section(max_failures_per_minute=2) + users_text(), trusted_proxies="10.0.0.0/8")
    client = app.test_client()

    def attempt(user: str, password: str, forwarded: str, peer: str = "10.0.0.5") -> int:
        headers = {**basic(user, password), "X-Forwarded-For": forwarded}
        return client.get("/subjects", headers=headers, environ_base={"REMOTE_ADDR": peer}).status_code

    # The guesser's own X-Forwarded-For entry (left of the proxy's) does not move its count.
    assert [attempt("alice", "guess", f"203.0.113.{i}, 198.51.100.7") for i in range(3)] == [401, 401, 401]
    assert scrypt_calls.take() == 2  # the third was refused without hashing
    assert attempt("bob", "bob-secret", "198.51.100.8") == 200  # another client behind the same balancer
    # The guesser, through a second trusted proxy, even with alice's right (not yet cached) password.
    assert attempt("alice", "alice-secret", "198.51.100.7, 10.0.0.9") == 401
    assert scrypt_calls.take() == 1
    assert attempt("alice", "alice-secret", "198.51.100.8") == 200  # alice from her own address
    scrypt_calls.take()
    # An untrusted peer's header is not believed: its failures count against the peer.
    assert [attempt("carol", "guess", f"198.51.100.{i}", peer="192.0.2.1") for i in range(3)] == [401] * 3
    assert attempt("carol", "guess", "198.51.100.99", peer="192.0.2.1") == 401
    assert scrypt_calls.take() == 2


def test_the_client_address_is_the_rightmost_untrusted_forwarded_hop():
    from ipaddress import ip_network

    from app.security.proxies import client_address

    proxies = (ip_network("10.0.0.0/8"),)
    cases = [
        ({"REMOTE_ADDR": "10.0.0.1", "HTTP_X_FORWARDED_FOR": "1.1.1.1, 2.2.2.2, 10.0.0.2"}, "2.2.2.2"),
        ({"REMOTE_ADDR": "10.0.0.1", "HTTP_X_FORWARDED_FOR": "10.0.0.3, 10.0.0.2"}, "10.0.0.3"),
        ({"REMOTE_ADDR": "10.0.0.1", "HTTP_X_FORWARDED_FOR": " , "}, "10.0.0.1"),
        ({"REMOTE_ADDR": "10.0.0.1"}, "10.0.0.1"),
        ({"REMOTE_ADDR": "8.8.8.8", "HTTP_X_FORWARDED_FOR": "1.1.1.1"}, "8.8.8.8"),
        ({"REMOTE_ADDR": "10.0.0.1", "HTTP_X_FORWARDED_FOR": "not-an-address"}, "not-an-address"),
    ]
    assert [client_address(environ, proxies) for environ, _ in cases] == [expected for _, expected in cases]
    assert client_address({"REMOTE_ADDR": "10.0.0.1", "HTTP_X_FORWARDED_FOR": "1.1.1.1"}, ()) == "10.0.0.1"


def test_a_cached_credential_still_gets_in_from_a_blocked_address(auth_app, scrypt_calls):
    client = auth_app(auth_section(max_failures_per_minute=2) + users_text()).test_client()
    assert client.get("/subjects", headers=basic("bob", "bob-secret")).status_code == 200
    for _ in range(3):
        client.get("/subjects", headers=basic("bob", "guess"))
    scrypt_calls.take()
    assert client.get("/subjects", headers=basic("bob", "bob-secret")).status_code == 200
    assert scrypt_calls.take() == 0


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_the_failure_window_ends_after_a_minute():
    clock = Clock()
    limiter = FailureLimiter(None, clock)
    for _ in range(2):
        limiter.record("10.0.0.1", "alice")
    assert limiter.blocked("10.0.0.1", "alice", 2) and not limiter.blocked("10.0.0.1", "alice", 3)
    assert not limiter.blocked("10.0.0.2", "alice", 2)
    assert not limiter.blocked("10.0.0.1", "bob", 2)
    clock.now += 59.9
    assert limiter.blocked("10.0.0.1", "alice", 2)
    clock.now += 0.2
    assert not limiter.blocked("10.0.0.1", "alice", 2)
    limiter.record("10.0.0.1", "alice")  # a new window starts with this failure
    assert not limiter.blocked("10.0.0.1", "alice", 2)


def test_limiters_over_one_file_share_their_counts(tmp_path):
    """What two gunicorn workers of a host do: each has its own limiter over the host's file."""
    clock = Clock()
    path = tmp_path / "failures.db"
    first, second = FailureLimiter(path, clock), FailureLimiter(path, clock)
    first.record("10.0.0.1", "alice")
    second.record("10.0.0.1", "alice")
    assert first.blocked("10.0.0.1", "alice", 2) and second.blocked("10.0.0.1", "alice", 2)
    assert not second.blocked("10.0.0.1", "bob", 2)


def test_processes_share_the_failure_count(tmp_path):
    """Failures recorded by other processes block here: five workers let no more through than one."""
    import sys

    path = tmp_path / "failures.db"
    script = ("import sys; from pathlib import Path; from app.security.failures import FailureLimiter; "
              "FailureLimiter(Path(sys.argv[1])).record('203.0.113.9', 'alice')")
    for _ in range(3):
        run_command([sys.executable, "-c", script, str(path)], check=True)
    limiter = FailureLimiter(path)
    assert limiter.blocked("203.0.113.9", "alice", 3)
    assert not limiter.blocked("203.0.113.9", "alice", 4)
    assert not limiter.blocked("203.0.113.9", "bob", 3)


def test_without_a_usable_directory_failures_are_counted_in_the_process(tmp_path):
    blocked = tmp_path / "file"
    blocked.write_text("")
    limiter = FailureLimiter(blocked / "sub" / "failures.db")
    limiter.record("10.0.0.1", "alice")
    assert limiter.blocked("10.0.0.1", "alice", 1)


def credentials(name: str, password: str) -> str:
    """What a Basic header carries after the scheme."""
    return base64.b64encode(f"{name}:{password}".encode()).decode()


def test_cached_credentials_expire_after_cache_seconds():
    clock = Clock()
    cache = CredentialCache(300, clock)
    principal = Principal("user:a", frozenset(), "basic")
    cache.put(cache.digest(credentials("a", "pw")), principal)
    assert cache.cached(credentials("a", "pw")) is principal
    assert cache.cached(credentials("a", "pw2")) is None
    clock.now += 299.9
    assert cache.cached(credentials("a", "pw")) is principal
    clock.now += 0.2
    assert cache.cached(credentials("a", "pw")) is None


def test_the_credential_cache_holds_at_most_ten_thousand_entries():
    clock = Clock()
    cache = CredentialCache(300, clock)
    principal = Principal("user:a", frozenset(), "basic")
    for i in range(CACHE_CAPACITY + 50):
        cache.put(cache.digest(credentials("a", str(i))), principal)
    assert len(cache) == CACHE_CAPACITY
    assert cache.cached(credentials("a", "0")) is None  # the oldest went first
    assert cache.cached(credentials("a", str(CACHE_CAPACITY + 49))) is principal


def test_the_cache_key_is_hmac_sha256_of_the_credentials_as_sent():
    key = bytes(range(32))
    sent = credentials("alice", "pw:1")
    assert CredentialCache(300, key=key).digest(sent) == hmac.digest(key, sent.encode(), "sha256")
    # Strings that are not latin-1 (no WSGI server sends them) still get keys of their own.
    cache = CredentialCache(300, key=key)
    assert len({cache.digest(text) for text in ("a\udcff", "a\udcfe", "a\u0100", "a?")}) == 4


def test_the_cache_key_is_per_process():
    assert CredentialCache(300).digest(credentials("a", "pw")) != CredentialCache(300).digest(credentials("a", "pw"))


def test_the_cache_holds_no_password_only_keyed_digests(client):
    client.get("/test/whoami", headers=basic("alice", "alice-secret"))
    cache = client.application.extensions["authenticator"].methods().basic.cache
    assert len(cache) == 1
    (key, (_, principal)), = cache._entries.items()
    assert len(key) == 32 and b"alice-secret" not in key and credentials("alice", "alice-secret").encode() not in key
    assert principal.name == "user:alice"


def test_refusal_reasons_go_to_the_log_without_secrets(client, caplog: pytest.LogCaptureFixture):
    wrong = basic("alice", "hunter2-wrong")
    with caplog.at_level(logging.INFO):
        client.get("/subjects", headers=wrong)
        client.get("/subjects", headers=basic("mallory", "hunter2-unknown"))
        client.get("/subjects", headers={"Authorization": "hunter2-bare"})
        client.get("/subjects", headers=basic("alice", "alice-secret"))
    text = "\n".join(record.getMessage() for record in caplog.records)
    assert "wrong password for user 'alice'" in text
    assert "unknown user 'mallory'" in text
    assert "scheme this server does not accept" in text
    for secret in ("hunter2", "alice-secret", wrong["Authorization"].split()[1]):
        assert secret not in text


def test_refusal_lines_are_rate_limited(client, caplog: pytest.LogCaptureFixture):
    with caplog.at_level(logging.WARNING, logger="app.server.gate"):
        for _ in range(30):
            client.get("/subjects")
    assert len([r for r in caplog.records if r.name == "app.server.gate"]) == 10


# ------------------------------------------------------------------ any header at all
HEADER_CHARS = st.characters(min_codepoint=0x20, max_codepoint=0xFF, blacklist_characters="\x7f")
CREDENTIAL_BYTES = st.binary(max_size=64) | st.builds(
    lambda name, password: f"{name}:{password}".encode(), st.sampled_from(["alice", "bob", "", "x"]),
    st.sampled_from(["alice-secret", "bob-secret", "", "wrong"]) | st.text(max_size=20))
HEADERS = st.one_of(
    st.text(HEADER_CHARS, max_size=200),
    st.builds(lambda scheme, raw: f"{scheme} {encoded(raw)}", st.sampled_from(["Basic", "basic", "Bearer", "Foo"]),
              CREDENTIAL_BYTES),
    st.builds(lambda raw: "Basic " + encoded(raw)[:-1], CREDENTIAL_BYTES),
    st.builds(lambda tail: "Basic " + tail, st.text(HEADER_CHARS, max_size=100)),
    st.builds(lambda n: "Basic " + "A" * n, st.integers(0, 20_000)),
)


@pytest.fixture
def unthrottled(auth_app):
    """No failure limit in reach, so that every well-formed credential is really hashed."""
    return auth_app(auth_section(max_failures_per_minute=1_000_000) + users_text()).test_client()


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(value=HEADERS)
def test_no_authorization_header_gets_anything_but_200_or_401(unthrottled, value: str):
    reply = unthrottled.get("/subjects", headers={"Authorization": value})
    assert reply.status_code in (200, 401, 403), (value, reply.status_code, reply.data)
    if reply.status_code == 401:
        assert reply.data == UNAUTHORIZED
