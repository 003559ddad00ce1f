"""The caller of the request being served, as authentication left it in the WSGI environ
(the gate runs as WSGI middleware, in front of Flask). Outside a request, or with no
authentication configured, the caller is anonymous."""
from __future__ import annotations

from typing import Any

from flask import has_request_context, request

from app.core.access import ANONYMOUS, Principal

# The environ key the authentication gate (gate.py) puts the caller under.
PRINCIPAL_KEY = "sqlregistry.principal"


def current_principal() -> Principal:
    if not has_request_context():
        return ANONYMOUS
    return request.environ.get(PRINCIPAL_KEY, ANONYMOUS)


def set_principal(environ: dict[str, Any], principal: Principal) -> None:
    """What authentication does once it knows who is calling."""
    environ[PRINCIPAL_KEY] = principal
