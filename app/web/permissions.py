"""What the requesting principal may do here, asked of the same authorizer the REST layer's
service consults (app/core/access.py), so the UI can never offer or perform more than the API.

Pages ask `may(...)` to decide which actions to show; every write view asks `require(...)`
again on the server, and the service itself checks once more inside the operation.
`REGISTRY_UI_READONLY` turns every UI write off on top of that (a convenience, not a
security boundary: the REST API is unaffected).
"""
from __future__ import annotations

from flask import current_app

from app.core.access import Action, Principal
from app.core.errors import Forbidden
from app.core.registry import RegistryService
from app.security.caller import current_principal
from app.web.errors import NotAllowed


def registry() -> RegistryService:
    return current_app.extensions["registry"]


def principal() -> Principal:
    return current_principal()


def read_only() -> bool:
    return bool(current_app.config["REGISTRY_SETTINGS"].ui_readonly)


def may(action: Action | str, subject: str) -> bool:
    action = Action(action)
    if action is not Action.READ and action is not Action.READ_CONFIG and read_only():
        return False
    try:
        registry().guard(principal()).check(action, subject)
    except Forbidden:
        return False
    return True


def require(action: Action, subject: str) -> None:
    if read_only():
        raise NotAllowed("The web UI is read-only here (REGISTRY_UI_READONLY); nothing was changed.")
    if not may(action, subject):
        raise NotAllowed("You are not allowed to do this; nothing was changed.")
