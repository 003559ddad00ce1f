"""HTTPS served by gunicorn: `sqlregistry serve` with the four TLS options, the plain
`python -m gunicorn ... wsgi:app` form an operator types from a checkout, client
certificates optional and required, a client of an untrusted CA refused at the handshake, and
the real confluent-kafka client over TLS."""
from __future__ import annotations

import json
import os
import shutil
import socket
import ssl
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import pytest
from support.commands import run_command
from support.live import REPO_ROOT, LiveServer, launch, start_tls_server
from support.pki import TestPki
from support.postgres import free_port

from app.server.serving import RegistryServer, gunicorn_options
from app.settings import Settings

AVRO = json.dumps({"type": "record", "name": "Payment", "fields": [{"name": "id", "type": "string"}]},
                  separators=(",", ":"))
MEDIA_TYPE = "application/vnd.schemaregistry.v1+json"


def call(url: str, context: ssl.SSLContext, method: str = "GET", body: Any = None) -> tuple[int, Any]:
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(url, data=data, method=method, headers={"Content-Type": MEDIA_TYPE})
    try:
        with urllib.request.urlopen(request, timeout=10, context=context) as reply:
            return reply.status, json.loads(reply.read())
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read())


def handshake_refused(url: str, context: ssl.SSLContext) -> bool:
    """Whether the server ends the connection instead of answering (with TLS 1.3 the verdict
    on the client's certificate arrives after the client's side of the handshake, so it shows
    up on the first read)."""
    try:
        with urllib.request.urlopen(url, timeout=10, context=context):
            return False
    except urllib.error.URLError as error:
        return isinstance(error.reason, (ssl.SSLError, ConnectionError))
    except (ssl.SSLError, ConnectionError):
        return True


# ------------------------------------------------------------------ sqlregistry serve over TLS
def test_serve_over_tls_registers_and_reads_with_a_client_trusting_the_ca(tls_live_server: LiveServer, pki: TestPki,
                                                                           unique_subject):
    subject = unique_subject()
    context = pki.ca.client_context()
    status, reply = call(f"{tls_live_server.url}/subjects/{subject}/versions", context, "POST", {"schema": AVRO})
    assert status == 200
    assert call(f"{tls_live_server.url}/schemas/ids/{reply['id']}", context)[1]["schema"] == AVRO


def test_a_client_certificate_of_the_trusted_ca_is_accepted(tls_live_server: LiveServer, pki: TestPki):
    assert call(tls_live_server.url + "/subjects", pki.client_sans.client_context(pki.ca))[0] == 200


def test_a_client_that_does_not_trust_the_servers_ca_refuses_it(tls_live_server: LiveServer, pki: TestPki):
    with pytest.raises(urllib.error.URLError) as caught:
        urllib.request.urlopen(tls_live_server.url + "/", timeout=10, context=pki.other_ca.client_context())
    assert isinstance(caught.value.reason, ssl.SSLCertVerificationError)


def test_a_client_certificate_from_another_ca_is_refused_at_the_handshake(tls_live_server: LiveServer,
                                                                          pki: TestPki):
    assert handshake_refused(tls_live_server.url + "/", pki.stranger.client_context(pki.ca))
    # The server is unharmed: the next client is served.
    assert call(tls_live_server.url + "/", pki.ca.client_context())[0] == 200


def test_plain_http_to_the_tls_port_gets_no_registry_reply(tls_live_server: LiveServer):
    port = int(tls_live_server.url.rsplit(":", 1)[1])
    with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
        sock.sendall(b"GET /subjects HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        try:
            reply = sock.recv(4096)
        except ConnectionError:
            reply = b""
    assert b"[" not in reply and not reply.startswith(b"HTTP/1.1 200")


@pytest.fixture(scope="module")
def mtls_required_server(pki: TestPki, tmp_path_factory: pytest.TempPathFactory):
    """`sqlregistry serve --cert-reqs 2`: every client must present a certificate of the CA."""
    workdir = tmp_path_factory.mktemp("mtls-required")
    server = start_tls_server(f"sqlite:///{workdir / 'registry.db'}", workdir / "server.log", pki, cert_reqs=2,
                              workers=1)
    yield server
    server.stop()


def test_cert_reqs_2_refuses_a_client_without_a_certificate(mtls_required_server: LiveServer, pki: TestPki):
    assert handshake_refused(mtls_required_server.url + "/", pki.ca.client_context())
    assert call(mtls_required_server.url + "/subjects", pki.client_cn.client_context(pki.ca))[0] == 200


# ------------------------------------------------------------------ the confluent-kafka client
def confluent_client(url: str, **conf: str):
    from confluent_kafka.schema_registry import SchemaRegistryClient

    return SchemaRegistryClient({"url": url, **conf})


def test_the_confluent_client_over_tls_with_ssl_ca_location(tls_live_server: LiveServer, pki: TestPki,
                                                             unique_subject):
    from confluent_kafka.schema_registry import Schema

    client = confluent_client(tls_live_server.url, **{"ssl.ca.location": str(pki.ca.cert_path)})
    try:
        subject = unique_subject()
        schema_id = client.register_schema(subject, Schema(AVRO, "AVRO"))
        assert client.get_schema(schema_id).schema_str == AVRO
        assert client.get_latest_version(subject).schema_id == schema_id
    finally:
        client.close()


def test_the_confluent_client_without_ssl_ca_location_does_not_trust_the_test_ca(tls_live_server: LiveServer):
    client = confluent_client(tls_live_server.url)
    try:
        with pytest.raises(Exception, match="CERTIFICATE_VERIFY_FAILED"):
            client.get_subjects()
    finally:
        client.close()


def test_the_confluent_client_presents_its_certificate_to_a_server_that_requires_one(
        mtls_required_server: LiveServer, pki: TestPki, unique_subject):
    from confluent_kafka.schema_registry import Schema

    client = confluent_client(mtls_required_server.url, **{
        "ssl.ca.location": str(pki.ca.cert_path),
        "ssl.certificate.location": str(pki.client_cn.cert_path),
        "ssl.key.location": str(pki.client_cn.key_path),
    })
    try:
        subject = unique_subject()
        schema_id = client.register_schema(subject, Schema(AVRO, "AVRO"))
        assert client.get_schema(schema_id).schema_str == AVRO
    finally:
        client.close()


def test_the_confluent_client_without_a_certificate_is_refused_by_a_server_that_requires_one(
        mtls_required_server: LiveServer, pki: TestPki):
    client = confluent_client(mtls_required_server.url, **{"ssl.ca.location": str(pki.ca.cert_path)})
    try:
        with pytest.raises(Exception, match="CERTIFICATE_REQUIRED"):
            client.get_subjects()
    finally:
        client.close()


# ------------------------------------------------------------------ the checkout's gunicorn command
def test_the_gunicorn_command_from_a_checkout_serves_https_with_optional_client_certificates(
        pki: TestPki, tmp_path: Path):
    """Section 7's form, verbatim: REGISTRY_AUTH_FILE=... REGISTRY_DATABASE_URL=... python -m
    gunicorn -b 127.0.0.1:PORT -w 2 --certfile server.pem --keyfile server.key --ca-certs
    clients-ca.pem --cert-reqs 1 wsgi:app."""
    auth_file = tmp_path / "auth.toml"
    # Any authenticated caller may write (authorization is tested in test_authorization_*.py).
    auth_file.write_text('[authentication]\nmethods = ["mtls"]\n\n[[grants]]\nprincipal = "*"\nrole = "write"\nsubjects = ["*"]\n')
    port = free_port()
    command = [sys.executable, "-m", "gunicorn", "-b", f"127.0.0.1:{port}", "-w", "2",
               "--certfile", str(pki.server.cert_path), "--keyfile", str(pki.server.key_path),
               "--ca-certs", str(pki.ca.cert_path), "--cert-reqs", "1", "wsgi:app"]
    env = {"REGISTRY_AUTH_FILE": str(auth_file), "REGISTRY_DATABASE_URL": f"sqlite:///{tmp_path / 'registry.db'}"}
    server = launch(command, port, tmp_path / "server.log", env, tls=pki.ca.client_context())
    try:
        status, reply = call(f"{server.url}/subjects/checkout-value/versions", pki.client_cn.client_context(pki.ca),
                             "POST", {"schema": AVRO})
        assert (status, reply["id"], reply["version"]) == (200, 1, 1)
        assert call(f"{server.url}/subjects", pki.ca.client_context()) == (
            401, {"error_code": 401, "message": "Unauthorized"})
        assert handshake_refused(server.url + "/", pki.stranger.client_context(pki.ca))
    finally:
        server.stop()


def test_the_deploy_config_serves_https_from_registry_variables(pki: TestPki, tmp_path: Path):
    port = free_port()
    env = {"REGISTRY_DATABASE_URL": f"sqlite:///{tmp_path / 'registry.db'}", "REGISTRY_PORT": str(port),
           "REGISTRY_WORKERS": "1", "REGISTRY_CERTFILE": str(pki.server.cert_path),
           "REGISTRY_KEYFILE": str(pki.server.key_path), "REGISTRY_CA_CERTS": str(pki.ca.cert_path),
           "REGISTRY_CERT_REQS": "2"}
    server = launch([sys.executable, "-m", "gunicorn", "-c", "deploy/gunicorn.conf.py", "wsgi:app"], port,
                    tmp_path / "server.log", env, tls=pki.client_cn.client_context(pki.ca))
    try:
        assert handshake_refused(server.url + "/", pki.ca.client_context())
    finally:
        server.stop()


# ------------------------------------------------------------------ settings and start-up failures
def test_serve_hands_gunicorn_the_four_tls_options(pki: TestPki):
    settings = Settings(certfile=str(pki.server.cert_path), keyfile=str(pki.server.key_path),
                        ca_certs=str(pki.ca.cert_path), cert_reqs=2)
    cfg = RegistryServer(settings).cfg
    assert (cfg.certfile, cfg.keyfile, cfg.ca_certs, cfg.cert_reqs) == (
        str(pki.server.cert_path), str(pki.server.key_path), str(pki.ca.cert_path), ssl.CERT_REQUIRED)
    assert cfg.is_ssl
    assert not RegistryServer(Settings()).cfg.is_ssl
    assert "certfile" not in gunicorn_options(Settings())


@pytest.mark.parametrize(("env", "message"), [
    ({"REGISTRY_CERT_REQS": "1", "REGISTRY_CERTFILE": "server.pem"}, "REGISTRY_CA_CERTS (--ca-certs): needed"),
    ({"REGISTRY_KEYFILE": "server.key"}, "REGISTRY_CERTFILE (--certfile): needed"),
    ({"REGISTRY_CERTFILE": "server.pem", "REGISTRY_CA_CERTS": "ca.pem", "REGISTRY_CERT_REQS": "3"},
     "REGISTRY_CERT_REQS (--cert-reqs): must be 0, 1 or 2"),
])
def test_tls_settings_that_would_serve_wrongly_are_refused(env: dict[str, str], message: str):
    with pytest.raises(ValueError, match=message.replace("(", r"\(").replace(")", r"\)")):
        Settings.from_env(env)


def run_serve(*args: str, tmp_path: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "REGISTRY_DATABASE_URL": f"sqlite:///{tmp_path / 'registry.db'}"}
    return run_command([sys.executable, "-m", "app.cli", "serve", "--port", str(free_port()), *args],
                       cwd=REPO_ROOT, env=env, capture_output=True, text=True, check=False)


def test_serve_with_a_missing_certificate_exits_1_with_one_line(tmp_path: Path):
    result = run_serve("--certfile", str(tmp_path / "missing.pem"), tmp_path=tmp_path)
    assert result.returncode == 1
    assert result.stderr.strip().splitlines() == [
        f"sqlregistry: error: cannot use the TLS certificate and key {tmp_path / 'missing.pem'}: "
        "[Errno 2] No such file or directory"]


def test_serve_with_a_key_that_does_not_match_the_certificate_exits_1(pki: TestPki, tmp_path: Path):
    result = run_serve("--certfile", str(pki.server.cert_path), "--keyfile", str(pki.client_cn.key_path),
                       tmp_path=tmp_path)
    assert result.returncode == 1
    assert "Traceback" not in result.stderr
    assert result.stderr.startswith("sqlregistry: error: cannot use the TLS certificate and key")


def test_serve_with_client_certificates_but_no_ca_exits_1(pki: TestPki, tmp_path: Path):
    result = run_serve("--certfile", str(pki.server.cert_path), "--keyfile", str(pki.server.key_path),
                       "--cert-reqs", "2", tmp_path=tmp_path)
    assert result.returncode == 1
    assert "REGISTRY_CA_CERTS (--ca-certs): needed" in result.stderr


# ------------------------------------------------------------------ authentication over TLS
@pytest.fixture(scope="module")
def secured(pki: TestPki, tmp_path_factory: pytest.TempPathFactory):
    """A loopback identity provider and `sqlregistry serve` over HTTPS with an auth file
    enabling bearer tokens and client certificates (optional at the handshake)."""
    from support.idp import IdentityProvider

    idp = IdentityProvider()
    workdir = tmp_path_factory.mktemp("secured")
    auth_file = workdir / "auth.toml"
    auth_file.write_text(f"""
[authentication]
methods = ["bearer", "mtls"]

[bearer]
jwks_url = "{idp.jwks_url}"
issuer = "{idp.issuer}"
audience = "sqlregistry"
algorithms = ["RS256", "ES256"]
groups_claim = "realm_access.roles"

[mtls]
principal_from = "cn"

[[grants]]
principal = "*"
role = "write"
subjects = ["*"]
""")
    server = start_tls_server(f"sqlite:///{workdir / 'registry.db'}", workdir / "server.log", pki, cert_reqs=1,
                              env={"REGISTRY_AUTH_FILE": str(auth_file)})
    yield server, idp
    server.stop()
    idp.down()


def test_the_confluent_client_with_a_static_bearer_token(secured, pki: TestPki, unique_subject):
    from confluent_kafka.schema_registry import Schema

    server, idp = secured
    client = confluent_client(server.url, **{
        "ssl.ca.location": str(pki.ca.cert_path),
        "bearer.auth.credentials.source": "STATIC_TOKEN",
        "bearer.auth.token": idp.token({"realm_access": {"roles": ["payments"]}}),
        "bearer.auth.logical.cluster": "lsrc-12345",
        "bearer.auth.identity.pool.id": "pool-abcd",
    })
    try:
        subject = unique_subject()
        schema_id = client.register_schema(subject, Schema(AVRO, "AVRO"))
        assert client.get_schema(schema_id).schema_str == AVRO
        assert client.get_latest_version(subject).version == 1
    finally:
        client.close()


def test_the_confluent_client_with_an_expired_token_gets_401(secured, pki: TestPki):
    from confluent_kafka.schema_registry.error import SchemaRegistryError

    server, idp = secured
    now = int(time.time())
    client = confluent_client(server.url, **{
        "ssl.ca.location": str(pki.ca.cert_path),
        "bearer.auth.credentials.source": "STATIC_TOKEN",
        "bearer.auth.token": idp.token(iat=now - 900, exp=now - 300),
        "bearer.auth.logical.cluster": "lsrc-12345",
        "bearer.auth.identity.pool.id": "pool-abcd",
    })
    try:
        with pytest.raises(SchemaRegistryError) as caught:
            client.get_subjects()
        assert (caught.value.http_status_code, caught.value.error_code) == (401, 401)
        assert caught.value.error_message == "Unauthorized"
    finally:
        client.close()


def test_the_confluent_client_authenticated_by_its_certificate_alone(secured, pki: TestPki, unique_subject):
    from confluent_kafka.schema_registry import Schema

    server, _ = secured
    client = confluent_client(server.url, **{
        "ssl.ca.location": str(pki.ca.cert_path),
        "ssl.certificate.location": str(pki.client_cn.cert_path),
        "ssl.key.location": str(pki.client_cn.key_path),
    })
    try:
        subject = unique_subject()
        assert client.register_schema(subject, Schema(AVRO, "AVRO")) >= 1
    finally:
        client.close()


def test_no_certificate_and_no_header_over_tls_gets_401(secured, pki: TestPki):
    server, _ = secured
    request = urllib.request.Request(server.url + "/subjects")
    with pytest.raises(urllib.error.HTTPError) as caught:
        urllib.request.urlopen(request, timeout=10, context=pki.ca.client_context())
    assert caught.value.code == 401
    assert caught.value.read() == b'{"error_code":401,"message":"Unauthorized"}'
    assert caught.value.headers.get_all("WWW-Authenticate") == ['Bearer realm="sqlregistry"']
    # A certificate without the configured attribute is refused the same way.
    with pytest.raises(urllib.error.HTTPError) as caught:
        urllib.request.urlopen(request, timeout=10, context=pki.client_no_cn.client_context(pki.ca))
    assert caught.value.code == 401


def served_serial(url: str, context: ssl.SSLContext) -> str:
    port = int(url.rsplit(":", 1)[1])
    with socket.create_connection(("127.0.0.1", port), timeout=10) as raw:
        with context.wrap_socket(raw, server_hostname="127.0.0.1") as sock:
            return sock.getpeercert()["serialNumber"]


def test_a_renewed_server_certificate_is_served_without_a_restart(pki: TestPki, tmp_path: Path):
    from dataclasses import replace

    from support.pki import Issued

    live = Issued(tmp_path / "server.pem", tmp_path / "server.key")
    shutil.copy(pki.server.cert_path, live.cert_path)
    shutil.copy(pki.server.key_path, live.key_path)
    server = start_tls_server(f"sqlite:///{tmp_path / 'registry.db'}", tmp_path / "server.log",
                              replace(pki, server=live), cert_reqs=0, workers=1)
    try:
        context = pki.ca.client_context()
        before = served_serial(server.url, context)
        renewed = pki.ca.issue_server("renewed")
        for source, target in ((renewed.key_path, live.key_path), (renewed.cert_path, live.cert_path)):
            shutil.copy(source, target.with_suffix(".new"))
            os.replace(target.with_suffix(".new"), target)
        after = served_serial(server.url, context)
        assert before != after
        assert call(server.url + "/subjects", context)[0] == 200
    finally:
        server.stop()


def test_serve_with_a_jwks_file_that_does_not_load_exits_1_with_one_line(tmp_path: Path):
    (tmp_path / "jwks.json").write_text('{"keys": [')
    auth_file = tmp_path / "auth.toml"
    auth_file.write_text(f'[authentication]\nmethods = ["bearer"]\n\n[bearer]\njwks_file = "{tmp_path / "jwks.json"}"\n'
                         'algorithms = ["RS256"]\n')
    env = {**os.environ, "REGISTRY_DATABASE_URL": f"sqlite:///{tmp_path / 'registry.db'}",
           "REGISTRY_AUTH_FILE": str(auth_file)}
    result = run_command([sys.executable, "-m", "app.cli", "serve", "--port", str(free_port())], cwd=REPO_ROOT,
                         env=env, capture_output=True, text=True, check=False)
    assert result.returncode == 1
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1
    assert lines[0].startswith(f"sqlregistry: error: auth file {auth_file}: [bearer]: jwks_file {tmp_path / 'jwks.json'}:")
