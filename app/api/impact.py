"""`/impact/subjects/{subject}`: a sqlregistry extension, outside Confluent's API (see
`app.core.compatibility.impact`). `GET` lists the topics associated with the subject and the subjects that
reference it, transitively (bounded); `POST` with a schema request body, as for a
compatibility check (`normalize` too), also says which of them the candidate would break.
It changes nothing, so it needs READ on the subject, as a compatibility check does."""
from __future__ import annotations

from flask import Blueprint, Response

from app.api.render import impact_entity, json_response
from app.api.requests import flag, read_body, schema_request
from app.api.service import registry
from app.security.caller import current_principal

bp = Blueprint("impact", __name__)


@bp.get("/impact/subjects/<subject:subject>")
def subject_impact(subject: str) -> Response:
    return json_response(impact_entity(registry().impact(subject, principal=current_principal())))


@bp.post("/impact/subjects/<subject:subject>")
def candidate_impact(subject: str) -> Response:
    impact = registry().impact(subject, schema_request(read_body()), normalize=flag("normalize"),
                               principal=current_principal())
    return json_response(impact_entity(impact))
