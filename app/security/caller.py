"""The caller of the request being served, as authentication left it on `flask.g`. Outside
a request, or with no authentication configured, the caller is anonymous."""
from __future__ import annotations

from flask import g, has_request_context

from app.core.access import ANONYMOUS, Principal


def current_principal() -> Principal:
    if not has_request_context():
        return ANONYMOUS
    return g.get("principal", ANONYMOUS)
