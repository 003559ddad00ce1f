"""`/mode[/{s}]`. A PUT answers with the request's `mode` exactly as sent.

Each view serves both the global URL (`subject` None) and the subject's.
"""
from __future__ import annotations

from flask import Blueprint, Response

from app.api.render import json_response, mode_entity
from app.api.requests import flag, mode_value, read_body
from app.api.service import registry
from app.security.caller import current_principal
from app.api.origin import request_origin

bp = Blueprint("mode", __name__)
_GLOBAL = {"subject": None}


@bp.get("/mode", defaults=_GLOBAL)
@bp.get("/mode/<subject:subject>")
def get_mode(subject: str | None) -> Response:
    return json_response(mode_entity(registry().get_mode(
        subject, default_to_global=flag("defaultToGlobal"), principal=current_principal()
    )))


@bp.put("/mode", defaults=_GLOBAL)
@bp.put("/mode/<subject:subject>")
def put_mode(subject: str | None) -> Response:
    mode = mode_value(read_body())
    registry().update_mode(subject, mode, force=flag("force"), principal=current_principal(), origin=request_origin())
    return json_response(mode_entity(mode))


@bp.delete("/mode", defaults=_GLOBAL)
@bp.delete("/mode/<subject:subject>")
def delete_mode(subject: str | None) -> Response:
    removed = registry().delete_mode(
        subject, recursive=flag("recursive"), principal=current_principal(), origin=request_origin()
    )
    return json_response(mode_entity(removed))
