"""`/compatibility/subjects/{s}/versions[/{v}]`."""
from __future__ import annotations

from flask import Blueprint, Response

from app.api.render import compatibility_entity, json_response
from app.api.requests import flag, read_body, schema_request
from app.api.service import registry
from app.security.caller import current_principal

bp = Blueprint("compatibility", __name__)


def _check(subject: str, version: str | None) -> Response:
    verbose = flag("verbose")
    report = registry().check_compatibility(
        subject, version, schema_request(read_body()), normalize=flag("normalize"), verbose=verbose,
        principal=current_principal(),
    )
    return json_response(compatibility_entity(report, verbose))


@bp.post("/compatibility/subjects/<subject:subject>/versions")
def check_against_all(subject: str) -> Response:
    """Against every live version, exactly as registration would check."""
    return _check(subject, None)


@bp.post("/compatibility/subjects/<subject:subject>/versions/<segment:version>")
def check_against_one(subject: str, version: str) -> Response:
    return _check(subject, version)
