"""Bearer tokens against a real loopback identity provider (tests/support/idp.py): which
tokens make a principal, which are refused, and how the verifier follows the provider's keys
(rotation, outage) and a key file (replacement)."""
from __future__ import annotations

import base64
import hashlib
import hmac
import json
import os
import textwrap
import time
from dataclasses import replace
from pathlib import Path

import jwt
import pytest
from cryptography.hazmat.primitives import serialization
from hypothesis import HealthCheck, given, settings as hypothesis_settings, strategies as st
from support.idp import IdentityProvider, new_key

from app.core.access import Principal
from app.security import bearer
from app.security.bearer import BearerVerifier
from app.security.errors import AuthFileError, Unauthenticated
from app.security.records import BearerSettings


class FakeClock:
    """A clock the verifier reads instead of the real ones: tests move it, nothing sleeps."""

    def __init__(self, start: float) -> None:
        self.now = start

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock(1_000.0)


def bearer_settings(idp: IdentityProvider, **changes) -> BearerSettings:
    base = BearerSettings(
        algorithms=("RS256", "ES256"), jwks_url=idp.jwks_url, issuer=idp.issuer, audience="sqlregistry",
        principal_claim="sub", groups_claim="realm_access.roles", leeway_seconds=30,
    )
    return replace(base, **changes)


def refused(verifier: BearerVerifier, token: str) -> Unauthenticated:
    with pytest.raises(Unauthenticated) as caught:
        verifier.verify(token)
    assert caught.value.token_presented
    return caught.value


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


# ------------------------------------------------------------------ accepted and refused tokens
def test_a_valid_token_makes_a_bearer_principal_with_its_groups(idp: IdentityProvider):
    verifier = BearerVerifier(bearer_settings(idp))
    token = idp.token({"realm_access": {"roles": ["payments", "ops"]}})
    assert verifier.verify(token) == Principal("user:alice", frozenset({"group:payments", "group:ops"}), "bearer")


def test_an_es256_token_from_the_provider_is_accepted(idp: IdentityProvider):
    idp.rotate("ES256", keep_old=True)
    verifier = BearerVerifier(bearer_settings(idp))
    assert verifier.verify(idp.token()).name == "user:alice"


def test_an_expired_token_is_refused(idp: IdentityProvider):
    verifier = BearerVerifier(bearer_settings(idp))
    now = int(time.time())
    error = refused(verifier, idp.token(iat=now - 600, exp=now - 120))
    assert "ExpiredSignature" in error.reason


def test_an_expiry_within_the_leeway_is_accepted(idp: IdentityProvider):
    verifier = BearerVerifier(bearer_settings(idp, leeway_seconds=30))
    now = int(time.time())
    assert verifier.verify(idp.token(iat=now - 600, exp=now - 10)).name == "user:alice"


def test_a_token_without_exp_is_refused(idp: IdentityProvider):
    verifier = BearerVerifier(bearer_settings(idp))
    error = refused(verifier, idp.token(exp=None))
    assert "exp" in error.reason


def test_a_token_not_valid_before_a_future_time_is_refused(idp: IdentityProvider):
    verifier = BearerVerifier(bearer_settings(idp))
    refused(verifier, idp.token(nbf=int(time.time()) + 300))
    # A provider clock a little ahead is what the leeway is for.
    assert verifier.verify(idp.token(nbf=int(time.time()) + 10)).name == "user:alice"


def test_a_token_issued_in_the_future_beyond_the_leeway_is_refused(idp: IdentityProvider):
    verifier = BearerVerifier(bearer_settings(idp))
    refused(verifier, idp.token(iat=int(time.time()) + 300))


def test_a_token_from_another_issuer_is_refused(idp: IdentityProvider):
    verifier = BearerVerifier(bearer_settings(idp))
    error = refused(verifier, idp.token(iss="https://elsewhere.example/realms/data"))
    assert "Issuer" in error.reason


def test_a_token_for_another_audience_is_refused(idp: IdentityProvider):
    verifier = BearerVerifier(bearer_settings(idp))
    error = refused(verifier, idp.token(aud="billing-api"))
    assert "Audience" in error.reason


def test_issuer_and_audience_are_not_checked_when_not_configured(idp: IdentityProvider):
    verifier = BearerVerifier(bearer_settings(idp, issuer=None, audience=None))
    assert verifier.verify(idp.token(iss="https://other.example", aud="anything")).name == "user:alice"


def test_a_token_signed_by_a_key_the_provider_did_not_publish_is_refused(idp: IdentityProvider):
    verifier = BearerVerifier(bearer_settings(idp))
    impostor = new_key("RS256")
    impostor.kid = idp.keys[-1].kid  # claims to be the published key
    error = refused(verifier, idp.token(key=impostor))
    assert "InvalidSignature" in error.reason


def test_a_token_whose_claims_were_changed_after_signing_is_refused(idp: IdentityProvider):
    verifier = BearerVerifier(bearer_settings(idp))
    head, _, signature = idp.token().split(".")
    forged = dict(jwt.decode(idp.token(), options={"verify_signature": False}), sub="admin")
    refused(verifier, f"{head}.{b64url(json.dumps(forged).encode())}.{signature}")


def test_an_unsigned_token_alg_none_is_refused(idp: IdentityProvider):
    verifier = BearerVerifier(bearer_settings(idp))
    claims = jwt.decode(idp.token(), options={"verify_signature": False})
    header = {"alg": "none", "typ": "JWT", "kid": idp.keys[-1].kid}
    token = f"{b64url(json.dumps(header).encode())}.{b64url(json.dumps(claims).encode())}."
    error = refused(verifier, token)
    assert "'none' is not accepted" in error.reason


def test_hs256_signed_with_the_providers_public_key_is_refused(idp: IdentityProvider):
    """The classic key-confusion attack: HMAC keyed with the public key everyone can fetch."""
    key = idp.keys[-1]
    public_pem = key.private.public_key().public_bytes(
        serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo)
    claims = jwt.decode(idp.token(), options={"verify_signature": False})
    signing_input = f"{b64url(json.dumps({'alg': 'HS256', 'typ': 'JWT', 'kid': key.kid}).encode())}." \
                    f"{b64url(json.dumps(claims).encode())}"
    mac = hmac.new(public_pem, signing_input.encode(), hashlib.sha256).digest()
    verifier = BearerVerifier(bearer_settings(idp))
    refused(verifier, f"{signing_input}.{b64url(mac)}")
    # Even a verifier whose list held HS256 would not verify it with an RSA key.
    lax = BearerVerifier(bearer_settings(idp, algorithms=("RS256", "HS256")))
    refused(lax, f"{signing_input}.{b64url(mac)}")


def test_an_algorithm_the_file_does_not_list_is_refused(idp: IdentityProvider):
    idp.rotate("ES256")
    verifier = BearerVerifier(bearer_settings(idp, algorithms=("RS256",)))
    error = refused(verifier, idp.token())
    assert "'ES256' is not accepted" in error.reason


def without_kid(idp: IdentityProvider) -> str:
    claims = jwt.decode(idp.token(), options={"verify_signature": False})
    return jwt.encode(claims, idp.keys[-1].private, algorithm="RS256")  # type: ignore[arg-type]


def test_a_token_without_kid_is_accepted_only_while_the_provider_publishes_one_key(idp: IdentityProvider):
    verifier = BearerVerifier(bearer_settings(idp), refetch_cooldown=0)
    assert verifier.verify(without_kid(idp)).name == "user:alice"
    idp.rotate(keep_old=True)
    verifier = BearerVerifier(bearer_settings(idp))
    assert "2 signing keys" in refused(verifier, without_kid(idp)).reason


@pytest.mark.parametrize("token", ["", "abc", "a.b.c", "Basic dXNlcjpwdw==", "e30.e30.", "☃.☃.☃"])
def test_malformed_tokens_are_refused(idp: IdentityProvider, token: str):
    refused(BearerVerifier(bearer_settings(idp)), token)


@hypothesis_settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(token=st.one_of(st.text(max_size=300), st.binary(max_size=300).map(lambda b: b.decode("latin-1")),
                       st.lists(st.text(alphabet="ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_",
                                        max_size=40), min_size=1, max_size=4).map(".".join)))
def test_no_token_text_gets_anything_but_a_principal_or_unauthenticated(idp: IdentityProvider, token: str):
    verifier = BearerVerifier(bearer_settings(idp))
    try:
        verifier.verify(token)
    except Unauthenticated:
        pass


# ------------------------------------------------------------------ principal and groups
def test_groups_come_from_a_nested_claim(idp: IdentityProvider):
    verifier = BearerVerifier(bearer_settings(idp, groups_claim="resource_access.sqlregistry.roles"))
    principal = verifier.verify(idp.token({"resource_access": {"sqlregistry": {"roles": ["payments"]}}}))
    assert principal.groups == frozenset({"group:payments"})


def test_a_claim_whose_name_has_dots_is_found_by_its_name(idp: IdentityProvider):
    verifier = BearerVerifier(bearer_settings(idp, groups_claim="https://example.com/groups"))
    principal = verifier.verify(idp.token({"https://example.com/groups": ["billing"]}))
    assert principal.groups == frozenset({"group:billing"})


def test_a_token_without_the_groups_claim_has_no_groups(idp: IdentityProvider):
    verifier = BearerVerifier(bearer_settings(idp))
    assert verifier.verify(idp.token()).groups == frozenset()


def test_a_groups_claim_that_is_not_a_list_of_strings_is_refused(idp: IdentityProvider):
    verifier = BearerVerifier(bearer_settings(idp))
    refused(verifier, idp.token({"realm_access": {"roles": [{"name": "payments"}]}}))


def test_the_principal_claim_names_the_user(idp: IdentityProvider):
    verifier = BearerVerifier(bearer_settings(idp, principal_claim="preferred_username"))
    assert verifier.verify(idp.token(preferred_username="ci-publisher")).name == "user:ci-publisher"
    refused(verifier, idp.token())  # no preferred_username


# ------------------------------------------------------------------ following the provider's keys
def test_an_unknown_kid_makes_one_refetch_and_the_rotated_key_is_accepted(idp: IdentityProvider):
    verifier = BearerVerifier(bearer_settings(idp), refetch_cooldown=0)
    verifier.verify(idp.token())
    assert idp.jwks_fetches == 1
    idp.rotate()
    assert verifier.verify(idp.token(sub="bob")).name == "user:bob"
    assert idp.jwks_fetches == 2
    verifier.verify(idp.token(sub="carol"))  # the new set is cached
    assert idp.jwks_fetches == 2


def test_unknown_kids_within_the_cooldown_cost_the_provider_no_fetch(idp: IdentityProvider, clock: FakeClock):
    verifier = BearerVerifier(bearer_settings(idp), refetch_cooldown=1.0, clock=clock)
    verifier.verify(idp.token())
    stranger = new_key("RS256")
    for _ in range(20):
        refused(verifier, idp.token(key=stranger))
    assert idp.jwks_fetches == 1
    idp.rotate()
    clock.advance(1.1)
    assert verifier.verify(idp.token()).name == "user:alice"
    assert idp.jwks_fetches == 2


def test_the_default_cooldown_holds_back_a_refetch(idp: IdentityProvider):
    verifier = BearerVerifier(bearer_settings(idp))
    verifier.verify(idp.token())
    idp.rotate()
    refused(verifier, idp.token())
    assert idp.jwks_fetches == 1


def test_cached_keys_keep_working_while_the_provider_is_down(idp: IdentityProvider, clock: FakeClock):
    verifier = BearerVerifier(bearer_settings(idp), clock=clock)
    verifier.verify(idp.token())
    idp.down()
    assert verifier.verify(idp.token(sub="bob")).name == "user:bob"
    clock.advance(bearer.JWKS_REFRESH_SECONDS + 1)  # past the refresh interval: the fetch fails, the last keys stay
    assert verifier.verify(idp.token(sub="carol")).name == "user:carol"
    assert verifier.verify(idp.token(sub="dave")).name == "user:dave"
    idp.up()
    assert idp.jwks_fetches == 1


@pytest.mark.parametrize("answer", [(200, b"<html>gateway error</html>"), (200, b"[]"), (200, b'{"keys": []}'),
                                    (502, b"<html>bad gateway</html>")])
def test_a_provider_answering_something_that_is_not_a_key_set_is_like_one_that_is_down(
        idp: IdentityProvider, clock: FakeClock, answer: tuple[int, bytes]):
    verifier = BearerVerifier(bearer_settings(idp), clock=clock)
    token = idp.token()
    idp.answer_instead = answer
    assert "cannot be fetched" in refused(verifier, token).reason
    idp.answer_instead = None
    clock.advance(bearer.UNREACHABLE_RETRY_SECONDS + 0.1)
    assert verifier.verify(token).name == "user:alice"
    idp.answer_instead = answer
    clock.advance(bearer.JWKS_REFRESH_SECONDS + 1)  # past the refresh interval: the bad answer is ignored
    assert verifier.verify(idp.token(sub="bob")).name == "user:bob"


def test_no_key_can_be_had_while_the_provider_was_never_reached(idp: IdentityProvider, clock: FakeClock):
    verifier = BearerVerifier(bearer_settings(idp), clock=clock)
    token = idp.token()
    idp.down()
    error = refused(verifier, token)
    assert "cannot be fetched" in error.reason
    # Requests right after a failed first fetch do not wait on the provider again.
    assert "moments ago" in refused(verifier, token).reason
    idp.up()
    assert "moments ago" in refused(verifier, token).reason
    clock.advance(bearer.UNREACHABLE_RETRY_SECONDS + 0.1)
    assert verifier.verify(token).name == "user:alice"
    assert idp.jwks_fetches == 1


def test_a_verified_token_is_not_checked_again_but_never_outlives_its_expiry(idp: IdentityProvider):
    wall = FakeClock(time.time())
    verifier = BearerVerifier(bearer_settings(idp, leeway_seconds=0), refetch_cooldown=0, wall_clock=wall)
    short = idp.token(lifetime=2)
    long = idp.token(sub="bob")
    verifier.verify(short)
    verifier.verify(long)
    idp.rotate()  # the old key is gone: a fresh check of either token would fail now
    assert verifier.verify(long).name == "user:bob"
    old_key_token = idp.token(key=new_key("RS256"))
    refused(verifier, old_key_token)
    wall.advance(2.2)  # past the short token's expiry: its cached verdict is gone
    refused(verifier, short)
    assert verifier.verify(long).name == "user:bob"


# ------------------------------------------------------------------ jwks_file
def write_jwks(path: Path, provider: IdentityProvider) -> None:
    staging = path.with_suffix(".new")
    staging.write_text(json.dumps(provider.jwks()))
    os.replace(staging, path)  # atomic, as an operator's deploy tool does it


def test_keys_from_a_file_follow_an_atomic_replacement(idp: IdentityProvider, tmp_path: Path, clock: FakeClock):
    path = tmp_path / "jwks.json"
    write_jwks(path, idp)
    verifier = BearerVerifier(bearer_settings(idp, jwks_url=None, jwks_file=str(path)), clock=clock)
    assert verifier.verify(idp.token()).name == "user:alice"
    idp.rotate()
    refused(verifier, idp.token())
    write_jwks(path, idp)
    clock.advance(bearer.FILE_CHECK_SECONDS + 0.1)
    assert verifier.verify(idp.token(sub="bob")).name == "user:bob"
    assert idp.jwks_fetches == 0


def test_a_broken_replacement_file_keeps_the_previous_keys(idp: IdentityProvider, tmp_path: Path,
                                                          clock: FakeClock):
    path = tmp_path / "jwks.json"
    write_jwks(path, idp)
    verifier = BearerVerifier(bearer_settings(idp, jwks_url=None, jwks_file=str(path)), clock=clock)
    path.write_text('{"keys": [')
    clock.advance(bearer.FILE_CHECK_SECONDS + 0.1)
    assert verifier.verify(idp.token(sub="bob")).name == "user:bob"


@pytest.mark.parametrize("content", [None, "not json", '["a list"]', '{"keys": []}'])
def test_a_key_file_that_does_not_load_makes_the_auth_file_invalid(idp: IdentityProvider, tmp_path: Path,
                                                                     content: str | None):
    path = tmp_path / "jwks.json"
    if content is not None:
        path.write_text(content)
    with pytest.raises(AuthFileError) as caught:
        BearerVerifier(bearer_settings(idp, jwks_url=None, jwks_file=str(path)))
    assert caught.value.where == "[bearer]"
    assert str(path) in caught.value.problem


# ------------------------------------------------------------------ through the authentication chain
def bearer_auth_file(idp: IdentityProvider, *, jwks: str | None = None) -> str:
    source = f'jwks_file = "{jwks}"' if jwks else f'jwks_url = "{idp.jwks_url}"'
    return f"""
    [authentication]
    methods = ["bearer"]

    [bearer]
    {source}
    issuer = "{idp.issuer}"
    audience = "sqlregistry"
    algorithms = ["RS256", "ES256"]
    groups_claim = "realm_access.roles"
    leeway_seconds = 30
    """


def test_a_bearer_request_acts_as_the_tokens_principal_whatever_the_confluent_headers(
        idp: IdentityProvider, auth_app):
    client = auth_app(bearer_auth_file(idp)).test_client()
    token = idp.token({"realm_access": {"roles": ["payments"]}})
    for extra in ({}, {"target-sr-cluster": "lsrc-123", "Confluent-Identity-Pool-Id": "pool-abc"},
                  {"target-sr-cluster": "", "Confluent-Identity-Pool-Id": "pool-other,pool-abc"}):
        reply = client.get("/test/whoami", headers={"Authorization": f"Bearer {token}", **extra})
        assert reply.status_code == 200
        assert reply.get_json() == {"name": "user:alice", "groups": ["group:payments"], "method": "bearer"}


def test_a_refused_token_gets_confluents_401_with_an_invalid_token_challenge(idp: IdentityProvider, auth_app):
    client = auth_app(bearer_auth_file(idp)).test_client()
    now = int(time.time())
    for token in (idp.token(iat=now - 600, exp=now - 120), idp.token(aud="other"), "not-a-jwt"):
        reply = client.get("/subjects", headers={"Authorization": f"Bearer {token}"})
        assert reply.status_code == 401
        assert reply.data == b'{"error_code":401,"message":"Unauthorized"}'
        assert reply.headers.getlist("WWW-Authenticate") == ['Bearer realm="sqlregistry", error="invalid_token"']
    reply = client.get("/subjects")
    assert reply.headers.getlist("WWW-Authenticate") == ['Bearer realm="sqlregistry"']


def test_a_token_never_reaches_the_server_log(idp: IdentityProvider, auth_app, caplog: pytest.LogCaptureFixture):
    client = auth_app(bearer_auth_file(idp)).test_client()
    token = idp.token(aud="other")
    with caplog.at_level("DEBUG"):
        assert client.get("/subjects", headers={"Authorization": f"Bearer {token}"}).status_code == 401
    assert "InvalidAudience" in caplog.text
    assert token not in caplog.text and token.split(".")[2] not in caplog.text


def test_an_auth_file_reload_pointing_at_a_broken_jwks_file_keeps_the_previous_methods(
        idp: IdentityProvider, auth_app, reload_clock, tmp_path: Path, caplog: pytest.LogCaptureFixture):
    good = tmp_path / "jwks.json"
    write_jwks(good, idp)
    app = auth_app(bearer_auth_file(idp, jwks=str(good)))
    client = app.test_client()
    headers = {"Authorization": f"Bearer {idp.token()}"}
    assert client.get("/test/whoami", headers=headers).status_code == 200
    broken = tmp_path / "broken.json"
    broken.write_text("{")
    (tmp_path / "auth.toml").write_text(textwrap.dedent(bearer_auth_file(idp, jwks=str(broken))))
    reload_clock.advance()
    with caplog.at_level("ERROR"):
        for _ in range(3):
            assert client.get("/test/whoami", headers=headers).status_code == 200
    refusals = [r.getMessage() for r in caplog.records if "stays in force" in r.getMessage()]
    assert len(refusals) == 1 and "broken.json" in refusals[0]
