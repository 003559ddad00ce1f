"""Where a request came from, for the audit trail: the peer's address, what a trusted proxy
says the client's was, the user agent, the method and the path as the client wrote it.

`X-Forwarded-For` is recorded only when the peer is one of REGISTRY_TRUSTED_PROXIES: any
client can send the header, and a trail that believed it would let a caller write someone
else's address next to their change.
"""
from __future__ import annotations

from flask import current_app, request

from app.api.authorization import rule_for
from app.core.store.audit import Origin
from app.security.proxies import is_trusted


def request_origin() -> Origin:
    environ = request.environ
    peer = environ.get("REMOTE_ADDR") or None
    forwarded = None
    if peer is not None and _trusted(peer):
        forwarded = ", ".join(request.headers.getlist("X-Forwarded-For")) or None
    return Origin(
        remote_addr=peer,
        forwarded_for=forwarded,
        user_agent=request.headers.get("User-Agent") or None,
        method=request.method,
        path=_client_path(environ),
        success_status=rule_for(request.endpoint or "").success_status,
    )


def _trusted(peer: str) -> bool:
    return is_trusted(peer, current_app.config["REGISTRY_SETTINGS"].trusted_proxy_networks)


def _client_path(environ: dict[str, object]) -> str:
    """The path before the `/contexts/{ctx}/...` rewrite (app/api/paths.py), without the query."""
    raw = environ.get("RAW_URI") or environ.get("REQUEST_URI")
    if isinstance(raw, str) and raw:
        return raw.split("?", 1)[0]
    return request.path
