"""The Associations API's part of the document (Confluent 8.x's "Association (v1)"): its
operations, parameters and bodies, joined to the rest by operations.py, document.py and
schemas.py."""
from __future__ import annotations

from typing import Any

from app.api.openapi.operations import PAGE, SUBJECT, Operation
from app.api.openapi.schemas import BOOLEAN, INT64, STRING, Schema, array, nullable, ref

_TAG = "Associations"
_RESOURCE = "/associations/resources/{resource_id}"
_FILTERS = ("resourceType", "associationType", "lifecycle", *PAGE)
_CHANGE = ("associationContext", "dryRun")
_LIFECYCLE: Schema = {"type": "string", "enum": ["STRONG", "WEAK"]}
_ASSOCIATION_TYPE: Schema = {"type": "string", "enum": ["key", "value"]}
_READ = ("Reads never answer 401/403 to a caller who authenticated: associations of subjects it may not read "
         "are left out, so a producer's AssociatedNameStrategy falls back to topic naming.")

ASSOCIATION_OPERATIONS: tuple[Operation, ...] = (
    Operation("GET", "/associations/subjects/{subject}", "getAssociationsBySubject",
              "The associations of a subject", _TAG, params=(SUBJECT, *_FILTERS),
              reply=array(ref("Association")), errors=(404, 422, 500), description=_READ),
    Operation("GET", _RESOURCE, "getAssociationsByResourceId", "A resource's associations by its id", _TAG,
              params=("resource_id", *_FILTERS), reply=array(ref("Association")), errors=(404, 422, 500),
              description=_READ),
    Operation("GET", "/associations/resources/{resource_namespace}/{resource_name}",
              "getAssociationsByResourceName", "A resource's associations by namespace and name", _TAG,
              params=("resource_namespace", "resource_name", *_FILTERS), reply=array(ref("Association")),
              errors=(404, 422, 500),
              description="`-` as the namespace matches any namespace, `-` as the name any resource. " + _READ),
    Operation("POST", "/associations", "createAssociation",
              "Create a resource's associations (a schema makes one STRONG and registers it)", _TAG,
              params=_CHANGE, body="AssociationCreateOrUpdateRequest", reply=ref("AssociationResponse"),
              errors=(404, 409, 500)),
    Operation("PUT", _RESOURCE, "createOrUpdateAssociation", "Create WEAK associations or change existing ones",
              _TAG, params=("resource_id", *_CHANGE), body="AssociationCreateOrUpdateRequest",
              reply=ref("AssociationResponse"), errors=(404, 409, 500)),
    Operation("DELETE", _RESOURCE, "deleteAssociations", "Delete a resource's associations", _TAG,
              params=("resource_id", "resourceType", "associationType", "cascadeLifecycle", "dryRun"),
              status=204, errors=(404, 409, 422, 500)),
    Operation("POST", "/associations:batchGet", "batchGetAssociations", "Several resources' associations", _TAG,
              params=("includeSchemas",), body="AssociationBatchGetRequest", reply=ref("AssociationBatchResponse"),
              status=207, errors=(500,), description="207: each query's result or error. " + _READ),
    Operation("POST", "/associations:batchMutate", "mutateAssociations", "Create, change and delete in batch", _TAG,
              params=_CHANGE, body="AssociationBatchRequest", reply=ref("AssociationBatchResponse"), status=207,
              errors=(500,), description="207: each request's result or error. A request's adjacent CREATE (or "
                                         "UPSERT) ops are one change, each DELETE another; they commit in order."),
)


def _query(name: str, schema: Schema, description: str, **extra: Any) -> dict[str, Any]:
    return {"name": name, "in": "query", "required": False, "schema": schema, "description": description, **extra}


def _flag(name: str, description: str) -> dict[str, Any]:
    return _query(name, BOOLEAN, description + " (true in any letter case; anything else is false)")


def _path(name: str, description: str, example: str) -> dict[str, Any]:
    return {"name": name, "in": "path", "required": True, "schema": STRING, "description": description,
            "example": example}


ASSOCIATION_PARAMETERS: dict[str, dict[str, Any]] = {
    "resource_id": _path("resource_id", "The resource's id (a topic's id)", "MYt9dTnGR3qzuTGVZOHD7A"),
    "resource_namespace": _path("resource_namespace", "The resource's namespace (a Kafka cluster's id), or `-`",
                                "lkc-1"),
    "resource_name": _path("resource_name", "The resource's name (a topic), or `-`", "orders"),
    "resourceType": _query("resourceType", STRING,
                           "The resource's type: `topic`, the only one (the association routes default to it)"),
    "associationType": _query("associationType", array(_ASSOCIATION_TYPE), "Only these association types",
                              style="form", explode=True),
    "lifecycle": _query("lifecycle", _LIFECYCLE, "Only associations of this lifecycle"),
    "schemaLifecycle": _query("lifecycle", array({"type": "string", "enum": ["STRONG", "WEAK", "NONE"]}),
                              "Only subjects with associations of these lifecycles (`NONE`: with none)",
                              style="form", explode=True),
    "associationContext": _query("context", STRING, "The context of subjects named without one (`.ctx`)"),
    "dryRun": _flag("dryRun", "Check the change, write nothing"),
    "cascadeLifecycle": _flag("cascadeLifecycle", "Delete frozen associations too, and a STRONG one's subject"),
    "includeSchemas": _flag("includeSchemas", "Add each subject's latest schema"),
}

_SCHEMA = ref("RegisterSchemaRequest")
_NAME: Schema = {"type": "string", "minLength": 1, "maxLength": 256,
                 "description": "Letters, digits, `_` and `-`", "examples": ["orders", "lkc-1"]}
_RESOURCE_FIELDS: Schema = {
    "resourceName": _NAME, "resourceNamespace": _NAME,
    "resourceId": {"type": ["string", "null"], "maxLength": 255,
                   "description": "Required unless `dryRun` (a topic has no id before it is created)"},
    "resourceType": {"type": ["string", "null"], "enum": ["topic", None]},
}
_EXAMPLE = {"resourceName": "orders", "resourceNamespace": "lkc-1", "resourceId": "MYt9dTnGR3qzuTGVZOHD7A",
            "associations": [{"subject": "orders-value", "associationType": "value", "lifecycle": "WEAK"}]}
_CHANGE_FIELDS: Schema = {
    "subject": nullable("string"), "associationType": {**_ASSOCIATION_TYPE, "type": ["string", "null"]},
    "lifecycle": {**_LIFECYCLE, "type": ["string", "null"]}, "frozen": nullable("boolean"),
    "schema": {"oneOf": [_SCHEMA, {"type": "null"}]}, "normalize": nullable("boolean"),
}
_INFO: Schema = {
    "type": "object",
    "properties": {"subject": STRING, "associationType": _ASSOCIATION_TYPE, "lifecycle": _LIFECYCLE,
                   "frozen": BOOLEAN, "schema": ref("Schema")},
}

ASSOCIATION_SCHEMAS: dict[str, Schema] = {
    "Association": {
        "type": "object",
        "description": "A resource (a topic) linked to the subject its key or value uses. `frozen` appears only "
                       "when it differs from the lifecycle's default (STRONG frozen, WEAK not).",
        "properties": {"subject": STRING, "guid": STRING, "resourceName": STRING, "resourceNamespace": STRING,
                       "resourceId": STRING, "resourceType": STRING, "associationType": _ASSOCIATION_TYPE,
                       "lifecycle": _LIFECYCLE, "frozen": BOOLEAN, "createTs": INT64, "updateTs": INT64},
    },
    "AssociationCreateOrUpdateRequest": {
        "type": "object",
        "description": "A resource and its associations. On create, a `schema` makes an association STRONG (its "
                       "subject `:.{resourceNamespace}:{resourceName}-{associationType}`, registered with it); "
                       "without one it is WEAK and names an existing `subject`.",
        "properties": {**_RESOURCE_FIELDS, "associations": {
            "type": ["array", "null"], "items": {"type": "object", "properties": _CHANGE_FIELDS}}},
        "examples": [_EXAMPLE, {**_EXAMPLE, "resourceName": "items", "resourceId": "items-id", "associations": [
            {"associationType": "value", "schema": {"schema": '{"type":"string"}'}}]}],
    },
    "AssociationResponse": {
        "type": "object",
        "properties": {"resourceName": STRING, "resourceNamespace": STRING, "resourceId": STRING,
                       "resourceType": STRING, "associations": array(_INFO)},
    },
    "AssociationBatchGetRequest": {
        "type": "object",
        "properties": {"requests": {"type": ["array", "null"], "items": {
            "type": "object", "properties": {**_RESOURCE_FIELDS, "associationTypes": array(_ASSOCIATION_TYPE),
                                             "lifecycle": {**_LIFECYCLE, "type": ["string", "null"]}}}}},
    },
    "AssociationBatchRequest": {
        "type": "object",
        "properties": {"requests": {"type": ["array", "null"], "items": {
            "type": "object", "properties": {**_RESOURCE_FIELDS, "associations": array({
                "type": "object",
                "properties": {"opType": {"type": "string", "enum": ["CREATE", "UPSERT", "DELETE"]},
                               **_CHANGE_FIELDS, "cascadeLifecycle": nullable("boolean")}})}}}},
    },
    "AssociationBatchResponse": {
        "type": "object",
        "properties": {"results": array({"type": "object", "properties": {
            "result": ref("AssociationResponse"), "error": ref("ErrorMessage")}})},
    },
}
