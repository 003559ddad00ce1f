"""`/contexts`. Other `/contexts/{ctx}/...` URLs are rewritten before routing (paths.py)."""
from __future__ import annotations

from flask import Blueprint, Response

from app.api.paths import normalized_context
from app.api.render import empty_response, json_response
from app.api.requests import page, text
from app.api.service import registry
from app.security.caller import current_principal
from app.api.origin import request_origin

bp = Blueprint("contexts", __name__)


@bp.get("/contexts")
def list_contexts() -> Response:
    offset, limit = page()
    return json_response(registry().list_contexts(
        text("contextPrefix") or "", offset=offset, limit=limit, principal=current_principal()
    ))


@bp.delete("/contexts/<segment:context>")
def delete_context(context: str) -> Response:
    """`{ctx}` arrives as `:.ctx:` after the rewrite; `ctx` and `.ctx` are accepted as well."""
    registry().delete_context(normalized_context(context), principal=current_principal(), origin=request_origin())
    return empty_response()
