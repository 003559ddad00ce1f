"""`/config[/{s}]`. GET and DELETE show `compatibilityLevel`; PUT speaks `compatibility`.

Each view serves both the global URL (`subject` None) and the subject's.
"""
from __future__ import annotations

from flask import Blueprint, Response

from app.api.render import config_entity, json_response, non_null
from app.api.requests import config_changes, flag, read_body
from app.api.service import registry
from app.security.caller import current_principal
from app.api.origin import request_origin

bp = Blueprint("config", __name__)
_GLOBAL = {"subject": None}


@bp.get("/config", defaults=_GLOBAL)
@bp.get("/config/<subject:subject>")
def get_config(subject: str | None) -> Response:
    return json_response(config_entity(registry().get_config(
        subject, default_to_global=flag("defaultToGlobal"), principal=current_principal()
    )))


@bp.put("/config", defaults=_GLOBAL)
@bp.put("/config/<subject:subject>")
def put_config(subject: str | None) -> Response:
    stored = registry().update_config(
        subject, config_changes(read_body()), principal=current_principal(), origin=request_origin()
    )
    return json_response(non_null(stored))


@bp.delete("/config", defaults=_GLOBAL)
@bp.delete("/config/<subject:subject>")
def delete_config(subject: str | None) -> Response:
    removed = registry().delete_config(subject, principal=current_principal(), origin=request_origin())
    return json_response(config_entity(removed))
