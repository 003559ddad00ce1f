"""`/subjects...`: subjects, their versions, lookup, registration, deletes."""
from __future__ import annotations

from flask import Blueprint, Response

from app.api.render import (
    json_response,
    rendered_response,
    registered_entity,
    schema_entity,
    text_response,
    with_read_options,
)
from app.api.requests import (
    flag,
    metadata_pairs,
    page,
    read_body,
    read_options,
    schema_request,
    subject_prefix,
    text,
)
from app.api.service import registry
from app.security.caller import current_principal
from app.api.origin import request_origin

bp = Blueprint("subjects", __name__)


@bp.get("/subjects")
def list_subjects() -> Response:
    # The Python client's `subject=` and `deleted_only=` are not read: Confluent ignores them too.
    offset, limit = page()
    subjects = registry().list_subjects(
        subject_prefix=subject_prefix(),
        deleted=flag("deleted"),
        deleted_only=flag("deletedOnly"),
        offset=offset,
        limit=limit,
        principal=current_principal(),
    )
    return json_response(subjects)


@bp.post("/subjects/<subject:subject>")
def lookup(subject: str) -> Response:
    found = registry().lookup(
        subject,
        schema_request(read_body()),
        normalize=flag("normalize"),
        deleted=flag("deleted"),
        fmt=text("format"),
        principal=current_principal(),
    )
    return json_response(schema_entity(found))


@bp.delete("/subjects/<subject:subject>")
def delete_subject(subject: str) -> Response:
    deleted = registry().delete_subject(
        subject, permanent=flag("permanent"), principal=current_principal(), origin=request_origin()
    )
    return json_response(deleted)


@bp.get("/subjects/<subject:subject>/metadata")
def latest_with_metadata(subject: str) -> Response:
    found = registry().latest_with_metadata(
        subject, metadata_pairs(), deleted=flag("deleted"), fmt=text("format"), principal=current_principal()
    )
    return json_response(schema_entity(found))


@bp.get("/subjects/<subject:subject>/versions")
def list_versions(subject: str) -> Response:
    offset, limit = page()
    versions = registry().list_versions(
        subject,
        deleted=flag("deleted"),
        deleted_only=flag("deletedOnly"),
        deleted_as_negative=flag("deletedAsNegative"),
        offset=offset,
        limit=limit,
        principal=current_principal(),
    )
    return json_response(versions)


@bp.post("/subjects/<subject:subject>/versions")
def register(subject: str) -> Response:
    registered = registry().register(
        subject,
        schema_request(read_body()),
        normalize=flag("normalize"),
        force=flag("force"),
        fmt=text("format"),
        principal=current_principal(),
        origin=request_origin(),
    )
    return rendered_response(registered, registered_entity)  # a re-registration's reply is encoded once


@bp.get("/subjects/<subject:subject>/versions/<segment:version>")
def get_version(subject: str, version: str) -> Response:
    found = registry().get_version(
        subject, version, deleted=flag("deleted"), fmt=text("format"), principal=current_principal()
    )
    tags, qualified = read_options()
    if not tags and not qualified:
        return rendered_response(found, schema_entity)
    return json_response(with_read_options(schema_entity(found), found.subject, found.schema,
                                           registry().schema_tags(found.schema, tags), qualified))


@bp.get("/subjects/<subject:subject>/versions/<segment:version>/schema")
def get_raw_version(subject: str, version: str) -> Response:
    found = registry().get_version(
        subject, version, deleted=flag("deleted"), fmt=text("format"), principal=current_principal()
    )
    return text_response(found.text)


@bp.delete("/subjects/<subject:subject>/versions/<segment:version>")
def delete_version(subject: str, version: str) -> Response:
    return json_response(registry().delete_version(
        subject, version, permanent=flag("permanent"), principal=current_principal(), origin=request_origin()
    ))


@bp.get("/subjects/<subject:subject>/versions/<segment:version>/referencedby")
def referenced_by(subject: str, version: str) -> Response:
    offset, limit = page()
    ids = registry().referenced_by(
        subject, version, deleted=flag("deleted"), offset=offset, limit=limit, principal=current_principal()
    )
    return json_response(ids)
