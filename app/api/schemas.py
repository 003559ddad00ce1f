"""`/schemas...`: schemas by id, by GUID, and the cross-subject listing."""
from __future__ import annotations

from flask import Blueprint, Response, request

from app.api.render import (
    context_id_entity,
    fingerprint_entity,
    json_response,
    rendered_response,
    listed_schema_entity,
    schema_string_entity,
    subject_version_entity,
    text_response,
    with_read_options,
)
from app.api.requests import flag, page, read_options, schema_id, subject_hint, text
from app.api.service import registry
from app.core.associations.records import SchemaAssociationFilter, lifecycle_filters
from app.security.caller import current_principal

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
        associated=SchemaAssociationFilter(
            text("resourceType"), tuple(t for t in request.args.getlist("associationType") if t),
            lifecycle_filters([v for v in request.args.getlist("lifecycle") if v]),
        ) if request.query_string else None,
        principal=current_principal(),
    )
    return json_response([listed_schema_entity(item) for item in listed])


@bp.get("/schemas/types")
def schema_types() -> Response:
    return json_response(registry().schema_types())


# `{id}` is any segment and is parsed by the handler, after the media type checks, because
# that is where Jersey reports an id that is not a Java `Integer` (404).
@bp.get("/schemas/ids/<segment:id_>")
def schema_by_id(id_: str) -> Response:
    found = registry().schema_by_id(
        schema_id(id_), subject=subject_hint(), fmt=text("format"), fetch_max_id=flag("fetchMaxId"),
        principal=current_principal(),
    )
    tags, qualified = read_options()
    if not tags and not qualified:
        return rendered_response(found, schema_string_entity)
    holder = None if found.holder is None else found.holder.subject
    return json_response(with_read_options(schema_string_entity(found), holder, found.schema,
                                           registry().schema_tags(found.schema, tags), qualified))


@bp.get("/schemas/ids/<segment:id_>/schema")
def raw_schema_by_id(id_: str) -> Response:
    found = registry().schema_by_id(
        schema_id(id_), subject=subject_hint(), fmt=text("format"), principal=current_principal()
    )
    return text_response(found.text)


@bp.get("/schemas/ids/<segment:id_>/subjects")
def subjects_for_id(id_: str) -> Response:
    offset, limit = page()
    subjects = registry().subjects_for_id(
        schema_id(id_), subject=subject_hint(), deleted=flag("deleted"), offset=offset, limit=limit,
        principal=current_principal(),
    )
    return json_response(subjects)


@bp.get("/schemas/ids/<segment:id_>/versions")
def versions_for_id(id_: str) -> Response:
    offset, limit = page()
    pairs = registry().versions_for_id(
        schema_id(id_), subject=subject_hint(), deleted=flag("deleted"), offset=offset, limit=limit,
        principal=current_principal(),
    )
    return json_response([subject_version_entity(subject, version) for subject, version in pairs])


@bp.get("/schemas/guids/<segment:guid>")
def schema_by_guid(guid: str) -> Response:
    return json_response(schema_string_entity(registry().schema_by_guid(guid, fmt=text("format"), principal=current_principal())))


# A sqlregistry extension, outside Confluent's API: readers of Avro single-object encoding.
@bp.get("/schemas/fingerprints/<segment:digest>")
def schema_by_fingerprint(digest: str) -> Response:
    found = registry().schema_by_fingerprint(
        digest, algorithm=text("algorithm") or "crc64", principal=current_principal()
    )
    return json_response(fingerprint_entity(found))


@bp.get("/schemas/guids/<segment:guid>/ids")
def ids_for_guid(guid: str) -> Response:
    pairs = registry().ids_for_guid(guid, principal=current_principal())
    return json_response([context_id_entity(context, id_) for context, id_ in pairs])
