"""`/exporters` (Confluent's Schema Linking API): thin views over `ExporterService`.

Replies follow Confluent's shapes: the list of names, `{"name": ...}` for every change, the
definition with its (masked) config, the status, the config alone. The changes pass on the
URL the request reached, by which the service knows an exporter into this registry.
"""
from __future__ import annotations

from flask import Blueprint, Response, request

from app.api.render import json_response
from app.api.requests import read_json
from app.api.service import registry
from app.security.caller import current_principal
from app.api.origin import request_origin

bp = Blueprint("exporters", __name__)


@bp.get("/exporters")
def list_exporters() -> Response:
    return json_response(registry().exporters.names(principal=current_principal()))


@bp.post("/exporters")
def create_exporter() -> Response:
    return json_response(registry().exporters.create(read_json(), principal=current_principal(),
                                                     origin=request_origin(), here=request.host_url))


@bp.get("/exporters/<name>")
def get_exporter(name: str) -> Response:
    return json_response(registry().exporters.describe(name, principal=current_principal()))


@bp.put("/exporters/<name>")
def update_exporter(name: str) -> Response:
    return json_response(registry().exporters.update(name, read_json(), principal=current_principal(),
                                                     origin=request_origin(), here=request.host_url))


@bp.delete("/exporters/<name>")
def delete_exporter(name: str) -> Response:
    registry().exporters.delete(name, principal=current_principal(), origin=request_origin())
    return Response(status=204)


@bp.get("/exporters/<name>/status")
def exporter_status(name: str) -> Response:
    return json_response(registry().exporters.status(name, principal=current_principal()))


@bp.get("/exporters/<name>/config")
def get_exporter_config(name: str) -> Response:
    return json_response(registry().exporters.config(name, principal=current_principal()))


@bp.put("/exporters/<name>/config")
def put_exporter_config(name: str) -> Response:
    return json_response(registry().exporters.put_config(name, read_json(), principal=current_principal(),
                                                         origin=request_origin(), here=request.host_url))


@bp.put("/exporters/<name>/pause")
def pause_exporter(name: str) -> Response:
    return json_response(registry().exporters.pause(name, principal=current_principal(), origin=request_origin()))


@bp.put("/exporters/<name>/resume")
def resume_exporter(name: str) -> Response:
    return json_response(registry().exporters.resume(name, principal=current_principal(), origin=request_origin()))


@bp.put("/exporters/<name>/reset")
def reset_exporter(name: str) -> Response:
    return json_response(registry().exporters.reset(name, principal=current_principal(), origin=request_origin()))
