"""`POST /subjects/{s}/versions/{v}/tags`: a new version with inline tags, metadata
or rule set edited. The body is Confluent's TagSchemaRequest; the reply is registration's."""
from __future__ import annotations

from flask import Blueprint, Response

from app.api.render import json_response, registered_entity
from app.api.requests import read_body, tag_request
from app.api.service import registry
from app.security.caller import current_principal
from app.api.origin import request_origin

bp = Blueprint("tags", __name__)


@bp.post("/subjects/<subject:subject>/versions/<segment:version>/tags")
def modify_tags(subject: str, version: str) -> Response:
    registered = registry().modify_tags(
        subject, version, tag_request(read_body()), principal=current_principal(), origin=request_origin()
    )
    return json_response(registered_entity(registered))
