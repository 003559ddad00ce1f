"""A stand-in identity provider for bearer-token tests: a loopback HTTP server publishing a
JWKS built with `cryptography`, which signs tokens with its current private key.

It can rotate keys (the way Keycloak or Entra ID do: a new key id appears, the old one may
stay for a while) and go down (its port refuses connections) and come back on the same
port, so the registry's key fetching is tested against real HTTP, not a patched function.
"""
from __future__ import annotations

import json
import threading
import time
import uuid
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import jwt
from cryptography.hazmat.primitives.asymmetric import ec, rsa
from cryptography.hazmat.primitives.asymmetric.types import PrivateKeyTypes
from jwt.algorithms import ECAlgorithm, RSAAlgorithm

ISSUER_PATH = "/realms/data"
JWKS_PATH = "/realms/data/protocol/openid-connect/certs"


@dataclass
class SigningKey:
    kid: str
    algorithm: str
    private: PrivateKeyTypes

    def public_jwk(self) -> dict[str, Any]:
        codec = RSAAlgorithm if self.algorithm.startswith(("RS", "PS")) else ECAlgorithm
        jwk = codec.to_jwk(self.private.public_key(), as_dict=True)  # type: ignore[arg-type]
        return {**jwk, "kid": self.kid, "alg": self.algorithm, "use": "sig"}


def new_key(algorithm: str = "RS256") -> SigningKey:
    private: PrivateKeyTypes
    if algorithm.startswith(("RS", "PS")):
        private = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    else:
        private = ec.generate_private_key(ec.SECP256R1())
    return SigningKey(f"{algorithm.lower()}-{uuid.uuid4().hex[:8]}", algorithm, private)


class IdentityProvider:
    """`jwks_url` serves the published keys; `token()` signs with the newest one."""

    def __init__(self, audience: str = "sqlregistry") -> None:
        self.audience = audience
        self.keys: list[SigningKey] = [new_key("RS256")]
        self.jwks_fetches = 0
        # Instead of the JWKS: None, or a (status, body) pair, as a misbehaving proxy answers.
        self.answer_instead: tuple[int, bytes] | None = None
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None
        self.port = 0
        self.up()

    @property
    def issuer(self) -> str:
        return f"http://127.0.0.1:{self.port}{ISSUER_PATH}"

    @property
    def jwks_url(self) -> str:
        return f"http://127.0.0.1:{self.port}{JWKS_PATH}"

    def jwks(self) -> dict[str, Any]:
        return {"keys": [key.public_jwk() for key in self.keys]}

    # ---------------------------------------------------------------- keys
    def rotate(self, algorithm: str = "RS256", keep_old: bool = False) -> SigningKey:
        """Publish a new key (and sign with it from now on); the old ones go unless kept."""
        key = new_key(algorithm)
        self.keys = [*self.keys, key] if keep_old else [key]
        return key

    def token(self, claims: dict[str, Any] | None = None, *, key: SigningKey | None = None,
              lifetime: float = 300, headers: dict[str, Any] | None = None, **overrides: Any) -> str:
        """A token as the provider issues it (sub, iss, aud, iat, exp); `claims` adds to or
        replaces those, and a claim given as None is left out."""
        signer = key or self.keys[-1]
        now = int(time.time())
        body: dict[str, Any] = {"sub": "alice", "iss": self.issuer, "aud": self.audience,
                                "iat": now, "exp": now + int(lifetime)}
        body.update(claims or {})
        body.update(overrides)
        body = {name: value for name, value in body.items() if value is not None}
        return jwt.encode(body, signer.private, algorithm=signer.algorithm,  # type: ignore[arg-type]
                          headers={"kid": signer.kid, **(headers or {})})

    # ---------------------------------------------------------------- server
    def up(self) -> None:
        """Serve (again, on the same port once it had one)."""
        if self._server is not None:
            return
        provider = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:  # noqa: N802 (http.server's naming)
                if self.path != JWKS_PATH:
                    self.send_error(404)
                    return
                provider.jwks_fetches += 1
                status, body = provider.answer_instead or (200, json.dumps(provider.jwks()).encode())
                self.send_response(status)
                self.send_header("Content-Type", "application/json" if status == 200 else "text/html")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, format: str, *args: Any) -> None:
                pass

        ThreadingHTTPServer.allow_reuse_address = True
        self._server = ThreadingHTTPServer(("127.0.0.1", self.port), Handler)
        self._server.daemon_threads = True
        self.port = self._server.server_address[1]
        self._thread = threading.Thread(target=self._server.serve_forever, name="idp", daemon=True)
        self._thread.start()

    def down(self) -> None:
        """Stop serving and close the port: fetches now fail with a refused connection."""
        if self._server is None:
            return
        self._server.shutdown()
        self._server.server_close()
        assert self._thread is not None
        self._thread.join(timeout=5)
        self._server = None
