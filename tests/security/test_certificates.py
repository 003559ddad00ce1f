"""Client certificates: the name a verified certificate proves, read from what a real TLS
handshake leaves on the server's socket (the same `getpeercert()` gunicorn's socket gives),
and a certificate from a CA the server does not trust refused at the handshake."""
from __future__ import annotations

import socket
import ssl
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from auth_support import basic, users_text
from support.pki import Issued, TestPki

from app.security.certificates import peer_certificate, principal_from_certificate
from app.security.errors import Unauthenticated
from app.security.records import MtlsSettings


@contextmanager
def tls_connection(pki: TestPki, client: Issued | None, cert_reqs: ssl.VerifyMode = ssl.CERT_OPTIONAL,
                   tls: bool = True) -> Iterator[socket.socket]:
    """The server side of a loopback connection after the handshake gunicorn makes (server
    context from the CA file, the configured verify mode), open while the block runs; a
    client certificate the server refuses raises `ssl.SSLError` here."""
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH, cafile=str(pki.ca.cert_path))
    context.load_cert_chain(pki.server.cert_path, pki.server.key_path)
    context.verify_mode = cert_reqs
    listener = socket.create_server(("127.0.0.1", 0))

    def client_side() -> None:
        try:
            with socket.create_connection(listener.getsockname(), timeout=5) as raw:
                if not tls:
                    raw.recv(1)
                    return
                client_context = client.client_context(pki.ca) if client else pki.ca.client_context()
                with client_context.wrap_socket(raw, server_hostname="127.0.0.1") as wrapped:
                    wrapped.recv(1)  # until the server closes
        except (ssl.SSLError, OSError):
            pass

    thread = threading.Thread(target=client_side)
    thread.start()
    conn, _ = listener.accept()
    try:
        sock = context.wrap_socket(conn, server_side=True) if tls else conn
        try:
            yield sock
        finally:
            sock.close()
    finally:
        conn.close()
        listener.close()
        thread.join(timeout=5)


def server_view(pki: TestPki, client: Issued | None, cert_reqs: ssl.VerifyMode = ssl.CERT_OPTIONAL,
                tls: bool = True) -> dict[str, Any] | None:
    """What `peer_certificate` reads from the server side of such a connection."""
    with tls_connection(pki, client, cert_reqs, tls) as sock:
        return peer_certificate({"gunicorn.socket": sock})


def test_the_common_name_of_a_verified_certificate_names_the_caller(pki: TestPki):
    view = server_view(pki, pki.client_cn)
    assert view is not None
    assert principal_from_certificate(view, MtlsSettings("cn")) == "billing-gateway"


@pytest.mark.parametrize(("principal_from", "name"), [
    ("san_dns", "payments-svc.internal"),
    ("san_email", "ops@example.com"),
    ("san_uri", "spiffe://example.com/ns/payments/sa/app"),
    ("cn", "sans-client"),
])
def test_a_subject_alt_name_names_the_caller(pki: TestPki, principal_from: str, name: str):
    view = server_view(pki, pki.client_sans)
    assert view is not None
    assert principal_from_certificate(view, MtlsSettings(principal_from)) == name


@pytest.mark.parametrize(("client", "principal_from"), [
    ("client_no_cn", "cn"), ("client_cn", "san_dns"), ("client_cn", "san_email"), ("client_no_cn", "san_uri"),
])
def test_a_certificate_without_the_configured_attribute_is_unauthenticated(pki: TestPki, client: str,
                                                                          principal_from: str):
    view = server_view(pki, getattr(pki, client))
    assert view is not None
    with pytest.raises(Unauthenticated) as caught:
        principal_from_certificate(view, MtlsSettings(principal_from))
    assert "sqlregistry tests" in caught.value.reason  # the log names the certificate


def test_no_client_certificate_leaves_no_peer_certificate(pki: TestPki):
    assert server_view(pki, None) is None


def test_tls_without_client_verification_leaves_no_peer_certificate(pki: TestPki):
    assert server_view(pki, pki.client_cn, cert_reqs=ssl.CERT_NONE) is None


def test_a_plain_connection_has_no_peer_certificate(pki: TestPki):
    assert server_view(pki, None, tls=False) is None
    assert peer_certificate({}) is None


def test_a_certificate_from_another_ca_is_refused_at_the_handshake(pki: TestPki):
    with pytest.raises(ssl.SSLError, match="CERTIFICATE_VERIFY_FAILED|certificate verify failed"):
        server_view(pki, pki.stranger)


# ------------------------------------------------------------------ through the authentication chain
MTLS_FILE = """
[authentication]
methods = ["basic", "mtls"]

[mtls]
principal_from = "{principal_from}"
"""


def whoami(app, sock: socket.socket | None, headers: dict[str, str] | None = None):
    environ = {"gunicorn.socket": sock} if sock is not None else {}
    return app.test_client().get("/test/whoami", headers=headers or {}, environ_base=environ)


def test_a_certificate_caller_is_the_user_of_its_common_name_with_that_users_groups(pki: TestPki, auth_app):
    app = auth_app(MTLS_FILE.format(principal_from="cn") + users_text())
    with tls_connection(pki, pki.client_cn) as sock:
        reply = whoami(app, sock)
    assert reply.status_code == 200
    assert reply.get_json() == {"name": "user:billing-gateway", "groups": ["group:payments"], "method": "mtls"}


def test_a_certificate_caller_named_by_a_subject_alt_name(pki: TestPki, auth_app):
    app = auth_app(MTLS_FILE.format(principal_from="san_uri") + users_text())
    with tls_connection(pki, pki.client_sans) as sock:
        reply = whoami(app, sock)
    assert reply.get_json() == {"name": "user:spiffe://example.com/ns/payments/sa/app", "groups": [],
                                "method": "mtls"}


def test_a_certificate_without_the_configured_attribute_gets_401(pki: TestPki, auth_app):
    app = auth_app(MTLS_FILE.format(principal_from="cn") + users_text())
    with tls_connection(pki, pki.client_no_cn) as sock:
        reply = whoami(app, sock)
    assert (reply.status_code, reply.data) == (401, b'{"error_code":401,"message":"Unauthorized"}')


def test_an_authorization_header_decides_even_beside_a_valid_certificate(pki: TestPki, auth_app):
    app = auth_app(MTLS_FILE.format(principal_from="cn") + users_text())
    with tls_connection(pki, pki.client_cn) as sock:
        assert whoami(app, sock, basic("alice", "wrong")).status_code == 401
        assert whoami(app, sock, basic("alice", "alice-secret")).get_json()["method"] == "basic"


def test_no_certificate_and_no_header_gets_401(pki: TestPki, auth_app):
    app = auth_app(MTLS_FILE.format(principal_from="cn") + users_text())
    with tls_connection(pki, None) as sock:
        reply = whoami(app, sock)
    assert (reply.status_code, reply.data) == (401, b'{"error_code":401,"message":"Unauthorized"}')
    assert reply.headers.getlist("WWW-Authenticate") == ['Basic realm="sqlregistry", charset="UTF-8"']
    with tls_connection(pki, None, tls=False) as sock:
        assert whoami(app, sock).status_code == 401
    assert whoami(app, None).status_code == 401
