"""`/config[/{s}]` (spec §3.6). GET and DELETE show `compatibilityLevel`; PUT speaks `compatibility`."""
from __future__ import annotations

from flask import Blueprint, Response

from app.api.render import config_entity, json_response, non_null
from app.api.requests import config_changes, flag, read_body
from app.api.service import registry

bp = Blueprint("config", __name__)


def _get(subject: str | None) -> Response:
    return json_response(config_entity(registry().get_config(subject, default_to_global=flag("defaultToGlobal"))))


def _put(subject: str | None) -> Response:
    stored = registry().update_config(subject, config_changes(read_body()))
    return json_response(non_null(stored))


def _delete(subject: str | None) -> Response:
    return json_response(config_entity(registry().delete_config(subject)))


@bp.get("/config")
def get_global() -> Response:
    return _get(None)


@bp.put("/config")
def put_global() -> Response:
    return _put(None)


@bp.delete("/config")
def delete_global() -> Response:
    return _delete(None)


@bp.get("/config/<subject:subject>")
def get_subject(subject: str) -> Response:
    return _get(subject)


@bp.put("/config/<subject:subject>")
def put_subject(subject: str) -> Response:
    return _put(subject)


@bp.delete("/config/<subject:subject>")
def delete_subject(subject: str) -> Response:
    return _delete(subject)
