"""`/associations...` (Confluent 8.x's Associations API): thin views over `AssociationService`.

Reads take `resourceType` (default `topic`), `associationType` (repeatable), `lifecycle`,
`offset` and `limit`; changes take `context` (the context of subjects named without one) and
`dryRun`. The batch routes answer 207 with a result or an error per request.
"""
from __future__ import annotations

from typing import Any

from flask import Blueprint, Response, request

from app.api.paths import normalized_context
from app.api.render import (
    association_batch_entity,
    association_entity,
    association_response_entity,
    empty_response,
    json_response,
)
from app.api.requests import flag, page, read_json, schema_request, text
from app.api.service import registry
from app.core.associations.records import (
    TOPIC,
    AssociationFilter,
    ResourceChange,
    ResourceQuery,
    batch_items,
    lifecycle_value,
    parse_op_request,
    parse_query,
    parse_resource_change,
)
from app.core.associations.service import AssociationService
from app.core.errors import RegistryError
from app.core.types import DEFAULT_CONTEXT
from app.security.caller import current_principal
from app.api.origin import request_origin

bp = Blueprint("associations", __name__)


def _associations() -> AssociationService:
    return registry().associations


def _filters() -> AssociationFilter:
    return AssociationFilter(text("resourceType") or TOPIC, tuple(_types()), lifecycle_value(text("lifecycle")))


def _types() -> list[str]:
    return [t for t in request.args.getlist("associationType") if t] if request.query_string else []


def _context() -> str:
    given = text("context")
    return normalized_context(given) if given else DEFAULT_CONTEXT


def _read_schema(body: dict[str, Any]) -> Any:
    return schema_request(body)


def _parsed(items: Any, parse: Any) -> list[Any]:
    """Each request of a batch, or the error reading it gave (that request's result)."""
    out: list[Any] = []
    for item in batch_items(items):
        try:
            out.append(parse(item))
        except RegistryError as exc:
            out.append(exc)
    return out


@bp.get("/associations/subjects/<subject:subject>")
def associations_by_subject(subject: str) -> Response:
    offset, limit = page()
    found = _associations().of_subject(subject, _filters(), offset, limit, principal=current_principal())
    return json_response([association_entity(a) for a in found])


@bp.get("/associations/resources/<segment:resource_id>")
def associations_by_resource_id(resource_id: str) -> Response:
    offset, limit = page()
    found = _associations().of_resource(resource_id, _filters(), offset, limit, principal=current_principal())
    return json_response([association_entity(a) for a in found])


@bp.get("/associations/resources/<segment:resource_namespace>/<segment:resource_name>")
def associations_by_resource_name(resource_namespace: str, resource_name: str) -> Response:
    offset, limit = page()
    found = _associations().named(resource_name, resource_namespace, _filters(), offset, limit,
                                  principal=current_principal())
    return json_response([association_entity(a) for a in found])


@bp.post("/associations")
def create_association() -> Response:
    change: ResourceChange = parse_resource_change(read_json(), _read_schema)
    reply = _associations().create(change, _context(), flag("dryRun"), principal=current_principal(),
                                   origin=request_origin())
    return json_response(association_response_entity(reply))


@bp.put("/associations/resources/<segment:resource_id>")
def upsert_association(resource_id: str) -> Response:
    change = parse_resource_change(read_json(), _read_schema)
    reply = _associations().upsert(resource_id, change, _context(), flag("dryRun"), principal=current_principal(),
                                   origin=request_origin())
    return json_response(association_response_entity(reply))


@bp.delete("/associations/resources/<segment:resource_id>")
def delete_associations(resource_id: str) -> Response:
    _associations().delete(resource_id, text("resourceType"), _types(), flag("cascadeLifecycle"), flag("dryRun"),
                           principal=current_principal(), origin=request_origin())
    return empty_response()


@bp.post("/associations:batchGet")
def batch_get_associations() -> Response:
    queries: list[ResourceQuery | RegistryError] = _parsed(read_json(), parse_query)
    results = _associations().batch_get(queries, flag("includeSchemas"), principal=current_principal())
    return json_response(association_batch_entity(results), status=207)


@bp.post("/associations:batchMutate")
def mutate_associations() -> Response:
    requests = _parsed(read_json(), lambda item: parse_op_request(item, _read_schema))
    results = _associations().batch_mutate(requests, _context(), flag("dryRun"), principal=current_principal(),
                                           origin=request_origin())
    return json_response(association_batch_entity(results), status=207)
