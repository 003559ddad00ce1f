"""Root and server metadata (spec §3.1): health checks and identity."""
from __future__ import annotations

from importlib import metadata

from flask import Blueprint, Response

from app.api.render import json_response
from app.api.requests import read_body
from app.api.service import registry

bp = Blueprint("server", __name__)


def _package_version() -> str:
    try:
        return metadata.version("sqlregistry")
    except metadata.PackageNotFoundError:  # running from a source tree that was never installed
        return "0.0.0"


_VERSION = _package_version()


@bp.get("/")
def root() -> Response:
    return json_response({})


@bp.post("/")
def root_post() -> Response:
    """Confluent accepts any JSON map here and answers `{}`; the body is still checked as JSON."""
    read_body(required=False)
    return json_response({})


@bp.get("/v1/metadata/id")
def cluster_id() -> Response:
    cluster = registry().cluster_id()
    return json_response(
        {"scope": {"path": [], "clusters": {"kafka-cluster": cluster, "schema-registry-cluster": cluster}}}
    )


@bp.get("/v1/metadata/version")
def server_version() -> Response:
    """`commitId` is left out: no build step records one yet (NON_EMPTY drops the empty value)."""
    return json_response({"version": _VERSION})
