"""A throwaway PKI for TLS tests, made with `cryptography`: a CA, a server certificate for
127.0.0.1 and localhost, client certificates with a common name and subjectAltNames, and a
second, unrelated CA whose clients the server must refuse.

Everything is written as PEM files, because that is what gunicorn (`--certfile`,
`--ca-certs`) and the confluent-kafka client (`ssl.ca.location`, `ssl.certificate.location`)
read.
"""
from __future__ import annotations

import datetime
import ipaddress
import ssl
from dataclasses import dataclass
from pathlib import Path

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

_VALIDITY = datetime.timedelta(days=2)


@dataclass(frozen=True)
class Issued:
    """A certificate and its key as PEM files."""

    cert_path: Path
    key_path: Path

    def client_context(self, ca: CertificateAuthority) -> ssl.SSLContext:
        """A client-side context trusting `ca` and presenting this certificate."""
        context = ca.client_context()
        context.load_cert_chain(self.cert_path, self.key_path)
        return context


class CertificateAuthority:
    def __init__(self, name: str, directory: Path) -> None:
        self.name = name
        self.directory = directory
        directory.mkdir(parents=True, exist_ok=True)
        self._key = ec.generate_private_key(ec.SECP256R1())
        subject = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, name)])
        now = datetime.datetime.now(datetime.timezone.utc)
        self.certificate = (
            x509.CertificateBuilder()
            .subject_name(subject).issuer_name(subject)
            .public_key(self._key.public_key())
            .serial_number(x509.random_serial_number())
            .not_valid_before(now - datetime.timedelta(minutes=5)).not_valid_after(now + _VALIDITY)
            .add_extension(x509.BasicConstraints(ca=True, path_length=0), critical=True)
            .add_extension(x509.KeyUsage(digital_signature=True, key_cert_sign=True, crl_sign=True,
                                         content_commitment=False, key_encipherment=False,
                                         data_encipherment=False, key_agreement=False,
                                         encipher_only=False, decipher_only=False), critical=True)
            .add_extension(x509.SubjectKeyIdentifier.from_public_key(self._key.public_key()), critical=False)
            .sign(self._key, hashes.SHA256())
        )
        self.cert_path = directory / f"{name}.pem"
        self.cert_path.write_bytes(self.certificate.public_bytes(serialization.Encoding.PEM))

    def client_context(self) -> ssl.SSLContext:
        """A client-side context that trusts this CA only."""
        return ssl.create_default_context(cafile=str(self.cert_path))

    def issue_server(self, stem: str = "server", hosts: tuple[str, ...] = ("127.0.0.1", "localhost")) -> Issued:
        names: list[x509.GeneralName] = []
        for host in hosts:
            try:
                names.append(x509.IPAddress(ipaddress.ip_address(host)))
            except ValueError:
                names.append(x509.DNSName(host))
        return self._issue(stem, hosts[0], names, ExtendedKeyUsageOID.SERVER_AUTH)

    def issue_client(self, stem: str, common_name: str | None, *, dns: tuple[str, ...] = (),
                     emails: tuple[str, ...] = (), uris: tuple[str, ...] = ()) -> Issued:
        names: list[x509.GeneralName] = [
            *(x509.DNSName(name) for name in dns),
            *(x509.RFC822Name(email) for email in emails),
            *(x509.UniformResourceIdentifier(uri) for uri in uris),
        ]
        return self._issue(stem, common_name, names, ExtendedKeyUsageOID.CLIENT_AUTH)

    def _issue(self, stem: str, common_name: str | None, names: list[x509.GeneralName],
               usage: x509.ObjectIdentifier) -> Issued:
        key = ec.generate_private_key(ec.SECP256R1())
        attributes = [x509.NameAttribute(NameOID.ORGANIZATION_NAME, "sqlregistry tests")]
        if common_name is not None:
            attributes.append(x509.NameAttribute(NameOID.COMMON_NAME, common_name))
        now = datetime.datetime.now(datetime.timezone.utc)
        builder = (
            x509.CertificateBuilder()
            .subject_name(x509.Name(attributes)).issuer_name(self.certificate.subject)
            .public_key(key.public_key())
            .serial_number(x509.random_serial_number())
            .not_valid_before(now - datetime.timedelta(minutes=5)).not_valid_after(now + _VALIDITY)
            .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
            .add_extension(x509.ExtendedKeyUsage([usage]), critical=False)
            .add_extension(x509.AuthorityKeyIdentifier.from_issuer_public_key(self._key.public_key()),
                           critical=False)
        )
        if names:
            builder = builder.add_extension(x509.SubjectAlternativeName(names), critical=False)
        certificate = builder.sign(self._key, hashes.SHA256())
        issued = Issued(self.directory / f"{stem}.pem", self.directory / f"{stem}.key")
        issued.cert_path.write_bytes(certificate.public_bytes(serialization.Encoding.PEM))
        issued.key_path.write_bytes(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                                      serialization.NoEncryption()))
        issued.key_path.chmod(0o600)
        return issued


@dataclass(frozen=True)
class TestPki:
    """The session's certificates: `ca` signs the server and the good clients; `other_ca`
    is a CA the server does not trust, with a client of its own."""

    __test__ = False  # not a test class, despite the name

    ca: CertificateAuthority
    other_ca: CertificateAuthority
    server: Issued
    client_cn: Issued          # CN=billing-gateway, no SANs
    client_sans: Issued        # CN=sans-client, DNS/email/URI SANs
    client_no_cn: Issued       # no CN, one DNS SAN
    stranger: Issued           # CN=billing-gateway, but signed by other_ca


def make_pki(directory: Path) -> TestPki:
    ca = CertificateAuthority("test-ca", directory / "ca")
    other = CertificateAuthority("other-ca", directory / "other")
    return TestPki(
        ca=ca,
        other_ca=other,
        server=ca.issue_server(),
        client_cn=ca.issue_client("billing-gateway", "billing-gateway"),
        client_sans=ca.issue_client("sans-client", "sans-client", dns=("payments-svc.internal",),
                                    emails=("ops@example.com",), uris=("spiffe://example.com/ns/payments/sa/app",)),
        client_no_cn=ca.issue_client("no-cn", None, dns=("nameless.internal",)),
        stranger=other.issue_client("stranger", "billing-gateway"),
    )
