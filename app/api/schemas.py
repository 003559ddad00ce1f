"""`/schemas...` (spec §3.2): schemas by id, by GUID, and the cross-subject listing."""
from __future__ import annotations

from typing import Any

from flask import Blueprint, Response

from app.api.render import (
    json_response,
    schema_entity,
    schema_string_entity,
    subject_version_entity,
    text_response,
)
from app.api.requests import flag, page, text
from app.api.service import registry
from app.core.registry import ListedSchema

bp = Blueprint("schemas", __name__)


@bp.get("/schemas")
def list_schemas() -> Response:
    offset, limit = page()
    listed = registry().list_schemas(
        subject_prefix=text("subjectPrefix") or "",
        deleted=flag("deleted"),
        latest_only=flag("latestOnly"),
        offset=offset,
        limit=limit,
        rule_type=text("ruleType"),
        aliases=flag("aliases"),
    )
    return json_response([_listed_entity(item) for item in listed])


def _listed_entity(item: ListedSchema) -> dict[str, Any]:
    """A Schema entity plus Confluent's ExtendedSchema `aliases`, which its serializer
    leaves out when empty (so `aliases=false` replies are exactly the plain entities)."""
    out = schema_entity(item.version)
    if item.aliases:
        out["aliases"] = list(item.aliases)
    return out


@bp.get("/schemas/types")
def schema_types() -> Response:
    return json_response(registry().schema_types())


@bp.get("/schemas/ids/<schema_id:schema_id>")
def schema_by_id(schema_id: int) -> Response:
    found = registry().schema_by_id(
        schema_id, subject=text("subject"), fmt=text("format"), fetch_max_id=flag("fetchMaxId")
    )
    return json_response(schema_string_entity(found))


@bp.get("/schemas/ids/<schema_id:schema_id>/schema")
def raw_schema_by_id(schema_id: int) -> Response:
    found = registry().schema_by_id(schema_id, subject=text("subject"), fmt=text("format"))
    return text_response(found.text)


@bp.get("/schemas/ids/<schema_id:schema_id>/subjects")
def subjects_for_id(schema_id: int) -> Response:
    offset, limit = page()
    subjects = registry().subjects_for_id(
        schema_id, subject=text("subject"), deleted=flag("deleted"), offset=offset, limit=limit
    )
    return json_response(subjects)


@bp.get("/schemas/ids/<schema_id:schema_id>/versions")
def versions_for_id(schema_id: int) -> Response:
    offset, limit = page()
    pairs = registry().versions_for_id(
        schema_id, subject=text("subject"), deleted=flag("deleted"), offset=offset, limit=limit
    )
    return json_response([subject_version_entity(subject, version) for subject, version in pairs])


@bp.get("/schemas/guids/<segment:guid>")
def schema_by_guid(guid: str) -> Response:
    return json_response(schema_string_entity(registry().schema_by_guid(guid, fmt=text("format"))))


@bp.get("/schemas/guids/<segment:guid>/ids")
def ids_for_guid(guid: str) -> Response:
    pairs = registry().ids_for_guid(guid)
    return json_response([{"context": context, "id": schema_id} for context, schema_id in pairs])
