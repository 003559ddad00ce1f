"""Client certificates: the caller's name from the certificate gunicorn verified.

TLS, and the check that a client certificate chains to the operator's CA (`--ca-certs`,
`--cert-reqs`), are gunicorn's job: a certificate that does not verify never gets past the
handshake. What reaches the app is the verified peer certificate, as the standard library's
`SSLSocket.getpeercert()` shows it, and this module picks the configured attribute out of it.
"""
from __future__ import annotations

import ssl
from collections.abc import Mapping
from typing import Any

from app.security.errors import Unauthenticated
from app.security.records import MtlsSettings

# `principal_from` -> the `subjectAltName` entry type getpeercert() reports.
_SAN_TYPES = {"san_dns": "DNS", "san_email": "email", "san_uri": "URI"}


def peer_certificate(environ: Mapping[str, Any]) -> dict[str, Any] | None:
    """The verified client certificate of this request's connection, or None when there is
    none: no TLS (plain HTTP, or a test client without `gunicorn.socket`), TLS without client
    certificates (`--cert-reqs 0`), or a client that sent none (`--cert-reqs 1`)."""
    sock = environ.get("gunicorn.socket")
    if not isinstance(sock, ssl.SSLSocket):
        return None
    try:
        certificate = sock.getpeercert()
    except (ValueError, OSError):  # handshake not done, or the connection is already gone
        return None
    # An empty dict is what Python returns for a certificate it did not verify.
    return certificate or None


def principal_from_certificate(peercert: Mapping[str, Any], settings: MtlsSettings) -> str:
    """The user name a certificate proves, per `[mtls] principal_from`: the subject's common
    name, or the first subjectAltName entry of the configured type. The caller is then
    `user:<name>`, with the groups of the `[[users]]` entry of that name."""
    if settings.principal_from == "cn":
        for rdn in peercert.get("subject", ()):
            for attribute, value in rdn:
                if attribute == "commonName" and value:
                    return str(value)
        raise Unauthenticated(f"client certificate ({describe(peercert)}) has no subject common name")
    kind = _SAN_TYPES.get(settings.principal_from)
    if kind is None:
        raise ValueError(f"unknown principal_from {settings.principal_from!r}")
    for entry_type, value in peercert.get("subjectAltName", ()):
        if entry_type == kind and value:
            return str(value)
    raise Unauthenticated(f"client certificate ({describe(peercert)}) has no subjectAltName {kind} entry")


def describe(peercert: Mapping[str, Any]) -> str:
    """Subject and serial, so the server log says which certificate was refused."""
    subject = ",".join(f"{attribute}={value}" for rdn in peercert.get("subject", ()) for attribute, value in rdn)
    return f"subject {subject or '(empty)'} serial {peercert.get('serialNumber', '?')}"
