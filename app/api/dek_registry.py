"""`/dek-registry/v1/keks...`: Confluent's DEK registry, for client-side field encryption.

Each view makes one call to the service's `DekRegistryService` with the caller and, for
writes, the request's origin. KEK routes read `?context=` (Confluent's clients send it for a
subject in a context; absent: the default context); DEK routes take the context from their
subject. The KEK list, the DEK list and a DEK's versions take `offset` and `limit` (no limit
by default, as Confluent's); the KEK list also `subjectPrefix`, repeatable. Deletes and undeletes answer 204 with no body, as Confluent's do. `?testSharing=true`
on a KEK's create or update tests a shared KEK through the KMS before anything is written.
"""
from __future__ import annotations

from flask import Blueprint, Response

from app.api.paths import normalized_context
from app.api.render import dek_entity, empty_response, json_response, kek_entity
from app.api.requests import dek_request, flag, kek_changes, kek_request, page, read_body, text, texts
from app.api.service import registry
from app.core.dek.service import DekRegistryService
from app.core.types import DEFAULT_CONTEXT
from app.security.caller import current_principal
from app.api.origin import request_origin

bp = Blueprint("dek_registry", __name__, url_prefix="/dek-registry/v1")


def _deks() -> DekRegistryService:
    return registry().deks


def _context() -> str:
    given = text("context")
    return normalized_context(given) if given else DEFAULT_CONTEXT


# ------------------------------------------------------------------ KEKs
@bp.get("/keks")
def list_keks() -> Response:
    offset, limit = page()
    return json_response(_deks().kek_names(_context(), flag("deleted"), texts("subjectPrefix"), offset, limit,
                                           principal=current_principal()))


@bp.post("/keks")
def create_kek() -> Response:
    kek = _deks().create_kek(kek_request(read_body()), _context(), test_sharing=flag("testSharing"),
                             principal=current_principal(), origin=request_origin())
    return json_response(kek_entity(kek))


@bp.get("/keks/<segment:name>")
def get_kek(name: str) -> Response:
    return json_response(kek_entity(_deks().get_kek(name, _context(), flag("deleted"), principal=current_principal())))


@bp.put("/keks/<segment:name>")
def update_kek(name: str) -> Response:
    kek = _deks().update_kek(name, kek_changes(read_body()), _context(), test_sharing=flag("testSharing"),
                             principal=current_principal(), origin=request_origin())
    return json_response(kek_entity(kek))


@bp.delete("/keks/<segment:name>")
def delete_kek(name: str) -> Response:
    _deks().delete_kek(name, _context(), flag("permanent"), principal=current_principal(), origin=request_origin())
    return empty_response()


@bp.post("/keks/<segment:name>/undelete")
def undelete_kek(name: str) -> Response:
    _deks().undelete_kek(name, _context(), principal=current_principal(), origin=request_origin())
    return empty_response()


@bp.post("/keks/<segment:name>/test")
def test_kek(name: str) -> Response:
    return json_response(kek_entity(_deks().test_kek(name, _context(), principal=current_principal())))


# ------------------------------------------------------------------ DEKs
@bp.get("/keks/<segment:name>/deks")
def list_dek_subjects(name: str) -> Response:
    offset, limit = page()
    return json_response(_deks().dek_subjects(name, _context(), flag("deleted"), offset, limit,
                                              principal=current_principal()))


@bp.post("/keks/<segment:name>/deks")
def create_dek(name: str) -> Response:
    reply = _deks().create_dek(name, dek_request(read_body()), principal=current_principal(), origin=request_origin())
    return json_response(dek_entity(reply))


@bp.post("/keks/<segment:name>/deks/<subject:subject>")
def create_dek_for_subject(name: str, subject: str) -> Response:
    """The newer clients' form (subject in the path); they fall back to the one above on 405.
    `?rewrap=true` wraps an existing version's key again (see `DekRegistryService.create_dek`)."""
    reply = _deks().create_dek(name, dek_request(read_body(), subject), rewrap=flag("rewrap"),
                               principal=current_principal(), origin=request_origin())
    return json_response(dek_entity(reply))


@bp.get("/keks/<segment:name>/deks/<subject:subject>")
def get_dek(name: str, subject: str) -> Response:
    reply = _deks().get_dek(name, subject, None, text("algorithm"), flag("deleted"), principal=current_principal())
    return json_response(dek_entity(reply))


@bp.delete("/keks/<segment:name>/deks/<subject:subject>")
def delete_dek(name: str, subject: str) -> Response:
    _deks().delete_dek(name, subject, None, text("algorithm"), flag("permanent"), principal=current_principal(),
                       origin=request_origin())
    return empty_response()


@bp.post("/keks/<segment:name>/deks/<subject:subject>/undelete")
def undelete_dek(name: str, subject: str) -> Response:
    _deks().undelete_dek(name, subject, None, text("algorithm"), principal=current_principal(),
                         origin=request_origin())
    return empty_response()


@bp.get("/keks/<segment:name>/deks/<subject:subject>/versions")
def list_dek_versions(name: str, subject: str) -> Response:
    offset, limit = page()
    versions = _deks().dek_versions(name, subject, text("algorithm"), flag("deleted"), offset, limit,
                                    principal=current_principal())
    return json_response(versions)


@bp.get("/keks/<segment:name>/deks/<subject:subject>/versions/<segment:version>")
def get_dek_version(name: str, subject: str, version: str) -> Response:
    reply = _deks().get_dek(name, subject, version, text("algorithm"), flag("deleted"),
                            principal=current_principal())
    return json_response(dek_entity(reply))


@bp.delete("/keks/<segment:name>/deks/<subject:subject>/versions/<segment:version>")
def delete_dek_version(name: str, subject: str, version: str) -> Response:
    _deks().delete_dek(name, subject, version, text("algorithm"), flag("permanent"), principal=current_principal(),
                       origin=request_origin())
    return empty_response()


@bp.post("/keks/<segment:name>/deks/<subject:subject>/versions/<segment:version>/undelete")
def undelete_dek_version(name: str, subject: str, version: str) -> Response:
    _deks().undelete_dek(name, subject, version, text("algorithm"), principal=current_principal(),
                         origin=request_origin())
    return empty_response()
