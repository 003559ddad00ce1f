"""Client certificates: the name a verified certificate proves, read from what a real TLS
handshake leaves on the server's socket (the same `getpeercert()` gunicorn's socket gives),
and a certificate from a CA the server does not trust refused at the handshake."""
from __future__ import annotations

import socket
import ssl
import threading
from typing import Any

import pytest
from support.pki import Issued, TestPki

from app.security.certificates import peer_certificate, principal_from_certificate
from app.security.errors import Unauthenticated
from app.security.records import MtlsSettings


def server_view(pki: TestPki, client: Issued | None, cert_reqs: ssl.VerifyMode = ssl.CERT_OPTIONAL,
                tls: bool = True) -> dict[str, Any] | None:
    """Handshake over loopback as gunicorn does (server context from the CA file, the
    configured verify mode) and return what `peer_certificate` reads from the server side."""
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH, cafile=str(pki.ca.cert_path))
    context.load_cert_chain(pki.server.cert_path, pki.server.key_path)
    context.verify_mode = cert_reqs
    listener = socket.create_server(("127.0.0.1", 0))
    seen: dict[str, Any] = {}

    def serve() -> None:
        conn, _ = listener.accept()
        try:
            sock = context.wrap_socket(conn, server_side=True) if tls else conn
            seen["view"] = peer_certificate({"gunicorn.socket": sock})
            sock.close()
        except (ssl.SSLError, OSError) as exc:
            seen["error"] = exc
            conn.close()

    thread = threading.Thread(target=serve)
    thread.start()
    try:
        with socket.create_connection(listener.getsockname(), timeout=5) as raw:
            if tls:
                client_context = client.client_context(pki.ca) if client else pki.ca.client_context()
                with client_context.wrap_socket(raw, server_hostname="127.0.0.1") as wrapped:
                    wrapped.recv(1)  # TLS 1.3 sends the verdict on the client's certificate after the handshake
    except (ssl.SSLError, OSError) as exc:
        seen.setdefault("client_error", exc)
    thread.join(timeout=5)
    listener.close()
    if "error" in seen:
        raise seen["error"]
    return seen["view"]


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
