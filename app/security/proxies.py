"""Which address a request came from when REGISTRY_TRUSTED_PROXIES names the balancers in
front of the registry: the peer, unless the peer is one of them, in which case the client
that the proxies' `X-Forwarded-For` chain names. Only trusted proxies are believed: any
client can send the header, and believing it from one would let a password guesser pick the
address its failures are counted against (or a change's audit row names)."""
from __future__ import annotations

from collections.abc import Sequence
from ipaddress import IPv4Network, IPv6Network, ip_address
from typing import Any

Networks = Sequence[IPv4Network | IPv6Network]


def is_trusted(peer: str, networks: Networks) -> bool:
    if not networks:
        return False
    try:
        address = ip_address(peer)
    except ValueError:  # a Unix socket's peer, or a test client's name
        return False
    return any(address in network for network in networks)


def client_address(environ: dict[str, Any], networks: Networks) -> str:
    """The peer's address, or behind trusted proxies the rightmost `X-Forwarded-For` entry
    that is not one of them (each proxy appends the address it was called from, so entries
    left of the first untrusted one are the client's own claims)."""
    peer = environ.get("REMOTE_ADDR") or ""
    forwarded = environ.get("HTTP_X_FORWARDED_FOR")
    if not forwarded or not is_trusted(peer, networks):
        return peer
    hops = [hop.strip() for hop in forwarded.split(",") if hop.strip()]
    for hop in reversed(hops):
        if not is_trusted(hop, networks):
            return hop
    return hops[0] if hops else peer
