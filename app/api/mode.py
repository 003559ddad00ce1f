"""`/mode[/{s}]` (spec §3.7). A PUT answers with the request's `mode` exactly as sent."""
from __future__ import annotations

from flask import Blueprint, Response

from app.api.render import json_response, mode_entity
from app.api.requests import flag, mode_value, read_body
from app.api.service import registry

bp = Blueprint("mode", __name__)


def _get(subject: str | None) -> Response:
    return json_response(mode_entity(registry().get_mode(subject, default_to_global=flag("defaultToGlobal"))))


def _put(subject: str | None) -> Response:
    mode = mode_value(read_body())
    registry().update_mode(subject, mode, force=flag("force"))
    return json_response(mode_entity(mode))


def _delete(subject: str | None) -> Response:
    return json_response(mode_entity(registry().delete_mode(subject, recursive=flag("recursive"))))


@bp.get("/mode")
def get_global() -> Response:
    return _get(None)


@bp.put("/mode")
def put_global() -> Response:
    return _put(None)


@bp.delete("/mode")
def delete_global() -> Response:
    return _delete(None)


@bp.get("/mode/<subject:subject>")
def get_subject(subject: str) -> Response:
    return _get(subject)


@bp.put("/mode/<subject:subject>")
def put_subject(subject: str) -> Response:
    return _put(subject)


@bp.delete("/mode/<subject:subject>")
def delete_subject(subject: str) -> Response:
    return _delete(subject)
