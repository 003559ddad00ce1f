"""Root and server metadata: `/` and `/v1/metadata/*` (the cluster id, version and deployment)."""
from __future__ import annotations

from flask import Blueprint, Response, redirect, request, url_for

from app.api.build_info import build_info
from app.api.negotiation import prefers_html
from app.api.render import cluster_id_entity, json_response, server_version_entity
from app.api.requests import read_body
from app.api.service import registry

bp = Blueprint("server", __name__)


@bp.get("/")
def root() -> Response:
    """Confluent's `{}` for API clients; a browser is sent to the web UI instead."""
    if prefers_html(request.headers.get("Accept")):
        return redirect(url_for("ui.index"), code=302)
    return json_response({})


@bp.post("/")
def root_post() -> Response:
    """Confluent accepts any JSON map here and answers `{}`; the body is still checked as JSON."""
    read_body(required=False)
    return json_response({})


@bp.get("/v1/metadata/id")
def cluster_id() -> Response:
    return json_response(cluster_id_entity(registry().cluster_id()))


@bp.get("/v1/metadata/version")
def server_version() -> Response:
    """The package version and the git commit of the running tree ("unknown" outside a checkout)."""
    info = build_info()
    return json_response(server_version_entity(info.version, info.commit_id))


@bp.get("/v1/metadata/deployment")
def deployment() -> Response:
    """Confluent's open-source server reports the attributes configured under
    `schema.registry.metadata.deployment.attributes`, none by default; this registry has no
    such setting, so the list is always empty."""
    return json_response({"attributes": []})
