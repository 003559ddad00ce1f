"""Who is calling: one request's credentials against the auth file in force.

The order is fixed by the format: an `Authorization` header decides alone (Basic or Bearer,
whichever the file enables; any other scheme, or a disabled one, is refused); only without
one is a verified client certificate asked (mTLS), and only without either is the caller
anonymous, if the file allows it. A method's machinery (the Basic cache, the bearer
verifier's key cache) is rebuilt when the file is reloaded, except a bearer verifier whose
settings did not change, which keeps its fetched keys.

The bearer and certificate modules are imported only when the file enables them: a
registry with Basic alone never loads PyJWT.
"""
from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any

from app.core.access import Principal
from app.security.basic import BasicAuthenticator, user_principal
from app.security.failures import FailureLimiter, limiter_file
from app.security.errors import AuthFileError, Unauthenticated
from app.security.proxies import Networks, client_address
from app.security.records import AuthenticationSettings, AuthFile
from app.security.reload import AuthFileWatcher, describe

log = logging.getLogger(__name__)

# The principal of a request without credentials when the file allows anonymous callers
# (the core's ANONYMOUS, method "none", stands for "no authentication configured").
ANONYMOUS_CALLER = Principal("anonymous", frozenset(), "anonymous")


@dataclass(frozen=True)
class _Methods:
    """What one loaded file enables, ready to use."""

    file: AuthFile
    basic: BasicAuthenticator | None
    bearer: Any | None  # app.security.bearer.BearerVerifier
    mtls: bool

    def challenges(self, token_presented: bool) -> list[str]:
        return challenges(self.file.authentication, token_presented)


def challenges(settings: AuthenticationSettings, token_presented: bool) -> list[str]:
    """One WWW-Authenticate value per enabled scheme a client answers with a header (a
    client certificate is offered during the handshake, not in reply to a challenge)."""
    realm = settings.realm  # the loader refuses quotes and backslashes in it
    values = []
    if "basic" in settings.methods:
        values.append(f'Basic realm="{realm}", charset="UTF-8"')
    if "bearer" in settings.methods:
        values.append(f'Bearer realm="{realm}"' + (', error="invalid_token"' if token_presented else ""))
    return values


class Authenticator:
    """The request-facing side: `authenticate(environ)` returns the caller's principal or
    raises `Unauthenticated`."""

    def __init__(self, watcher: AuthFileWatcher, trusted_proxies: Networks = ()) -> None:
        """`trusted_proxies`: REGISTRY_TRUSTED_PROXIES; behind them, Basic failures are
        counted against the client `X-Forwarded-For` names, not against the balancer."""
        self.watcher = watcher
        self._trusted_proxies = trusted_proxies
        self._limiter = FailureLimiter(limiter_file(watcher.path))
        self._methods = self._build(watcher.current(), None)
        self._unusable: AuthFile | None = None

    def methods(self) -> _Methods:
        """The methods of the file in force, rebuilt after a reload. A reloaded file whose
        methods cannot be built (a new `jwks_file` that does not load) is treated like an
        invalid file: logged once, and the previous methods stay in force."""
        file = self.watcher.current()
        methods = self._methods
        if methods.file is not file and file is not self._unusable:
            try:
                methods = self._methods = self._build(file, methods)
            except AuthFileError as exc:
                self._unusable = file
                log.error("%s; the previous auth file stays in force", describe(self.watcher.path, exc))
        return methods

    def authenticate(self, environ: dict[str, Any]) -> Principal:
        methods = self.methods()
        header = environ.get("HTTP_AUTHORIZATION")
        if header is not None:
            # The hot path: a credential seen before, spelled as every client spells it.
            if methods.basic is not None and header[:6] == "Basic ":
                principal = methods.basic.cache.cached(header[6:])
                if principal is not None:
                    return principal
            scheme, _, credentials = header.strip().partition(" ")
            scheme = scheme.lower()
            if scheme == "basic" and methods.basic is not None:
                return methods.basic.authenticate(credentials, client_address(environ, self._trusted_proxies))
            if scheme == "bearer" and methods.bearer is not None:
                return self._bearer(methods, credentials.strip())
            # The scheme itself is not logged: a client that sends a bare secret has no scheme.
            raise Unauthenticated("Authorization header with a scheme this server does not accept")
        if methods.mtls:
            from app.security.certificates import peer_certificate, principal_from_certificate

            certificate = peer_certificate(environ)
            if certificate:
                settings = methods.file.mtls
                assert settings is not None  # the loader fills in [mtls] when the method is on
                name = principal_from_certificate(certificate, settings)
                return user_principal(methods.file, name, "mtls")
        if methods.file.authentication.allow_anonymous:
            return ANONYMOUS_CALLER
        raise Unauthenticated("no credentials")

    def _bearer(self, methods: _Methods, token: str) -> Principal:
        if not token:
            raise Unauthenticated("Bearer scheme without a token", token_presented=True)
        try:
            return methods.bearer.verify(token)
        except Unauthenticated as exc:
            raise Unauthenticated(exc.reason, token_presented=True) from None

    def _build(self, file: AuthFile, previous: _Methods | None) -> _Methods:
        enabled = file.authentication.methods
        basic = BasicAuthenticator(file, self._limiter) if "basic" in enabled else None
        bearer = None
        if "bearer" in enabled and file.bearer is not None:
            if previous is not None and previous.bearer is not None and previous.file.bearer == file.bearer:
                bearer = previous.bearer
            else:
                from app.security.bearer import BearerVerifier

                bearer = BearerVerifier(file.bearer)
        return _Methods(file, basic, bearer, "mtls" in enabled)

