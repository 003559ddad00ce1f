"""The OpenAPI 3.1.0 document, built once from the operation table (operations.py).

Replies of the Confluent-compatible routes come in the three JSON media types the server
negotiates (app/api/negotiation.py), errors included; the extensions outside the API (health,
metrics, this document) answer plain `application/json` (metrics: Prometheus text).
"""
from __future__ import annotations

from typing import Any

from app.api.build_info import build_info
from app.api.negotiation import PLAIN_JSON, REGISTRY_JSON, V1_JSON
from app.api.openapi.associations import ASSOCIATION_OPERATIONS, ASSOCIATION_PARAMETERS, ASSOCIATION_SCHEMAS
from app.api.openapi.operations import OPERATIONS, Operation
from app.api.openapi.schemas import BOOLEAN, COMPONENT_SCHEMAS, INT32, STRING, Schema, ref

JSON_MEDIA_TYPES = (V1_JSON, REGISTRY_JSON, PLAIN_JSON)
ERROR_MESSAGE = ref("ErrorMessage")

_REASONS = {
    400: "Bad request: malformed JSON, a body nested more than 64 levels, a query string that is not UTF-8",
    401: "No valid credentials (body exactly {\"error_code\":401,\"message\":\"Unauthorized\"})",
    403: "The caller may not do this (error code 40301)",
    404: "Not found: the subject, version or schema (40401-40409), or a path or query integer that does not parse",
    406: "None of the reply media types is acceptable",
    409: "The schema is incompatible with the subject's versions (40901)",
    413: "The request body exceeds REGISTRY_MAX_REQUEST_BYTES",
    415: "The body's media type is not one the API reads",
    422: "Unprocessable: an invalid schema, version, level, mode, subject or setting (422xx)",
    500: "The database failed or timed out (50001, 50002)",
}


def _query(name: str, schema: Schema, description: str, **extra: Any) -> dict[str, Any]:
    return {"name": name, "in": "query", "required": False, "schema": schema, "description": description, **extra}


def _path(name: str, schema: Schema, description: str, example: Any) -> dict[str, Any]:
    """`example` is what a client (or a fuzzer's examples phase) would try first."""
    return {"name": name, "in": "path", "required": True, "schema": schema, "description": description,
            "example": example}


def _flag(name: str, description: str) -> dict[str, Any]:
    return _query(name, BOOLEAN, description + " (true in any letter case; anything else is false)")


# Keyed by the names operations.py uses; the component's `name` is the wire name.
PARAMETERS: dict[str, dict[str, Any]] = {
    "subject": _path("subject", STRING, "A subject, optionally qualified with a context (`:.ctx:name`); "
                                        "percent-encode `/`", "orders-value"),
    "version": _path("version", {"type": "string", "examples": ["latest", "1", "-1"]},
                     "A version number, `-1` or `latest`", "latest"),
    "id": _path("id", INT32, "A schema id", 1),
    "guid": _path("guid", STRING, "A schema GUID", "621ff09e-b2f2-aadc-ab0f-ac23ab89ff3c"),
    "digest": _path("digest", {"type": "string", "examples": ["af3b9e4c1a3d0f11"]}, "A fingerprint in hex",
                    "af3b9e4c1a3d0f11"),
    "context": _path("context", STRING, "A context name (`ctx`, `.ctx` or `:.ctx:`)", ".staging"),
    "name": _path("name", STRING, "An exporter's name", "to-dr-site"),
    "offset": _query("offset", INT32, "Items to skip"),
    "limit": _query("limit", INT32, "Items to return at most (-1: the server's default)"),
    "subjectPrefix": _query("subjectPrefix", STRING, "Only subjects starting with this (`:*:` for every context)"),
    "schemaSubject": _query("subject", STRING, "Prefer this subject's version when several hold the id"),
    "format": _query("format", STRING, "A rendering of the schema text: `resolved`, `serialized`, ..."),
    "ruleType": _query("ruleType", STRING, "Only schemas with rules of this type"),
    "contextPrefix": _query("contextPrefix", STRING, "Only contexts starting with this"),
    "algorithm": _query("algorithm", {"type": "string", "examples": ["crc64", "md5", "sha256"]},
                        "The fingerprint's algorithm (default crc64)"),
    "key": _query("key", {"type": "array", "items": STRING}, "Metadata property names, paired with `value`",
                  style="form", explode=True),
    "value": _query("value", {"type": "array", "items": STRING}, "Metadata property values, paired with `key`",
                    style="form", explode=True),
    "kekName": _path("name", STRING, "A KEK's name: a letter or `_`, then letters, digits, `_` or `-`", "orders"),
    "kekContext": _query("context", STRING, "The context the KEK belongs to (`.ctx`; absent: the default one)"),
    "dekSubjectPrefix": _query("subjectPrefix", {"type": "array", "items": STRING},
                               "Only KEKs holding a DEK of a subject starting with one of these (repeatable; "
                               "in a context, named in it or qualified)", style="form", explode=True),
    "rewrap": _flag("rewrap", "The version may exist: wrap its key again under the shared KEK (same version and "
                              "raw key), or, under a KEK that is not shared, replace it with the key material sent"),
    "dekAlgorithm": _query("algorithm", {"type": "string", "enum": ["AES128_GCM", "AES256_GCM", "AES256_SIV"]},
                           "The DEK's algorithm (default AES256_GCM)"),
    "deleted": _flag("deleted", "Include soft-deleted items"),
    "deletedOnly": _flag("deletedOnly", "Only soft-deleted items"),
    "deletedAsNegative": _flag("deletedAsNegative", "Soft-deleted versions as negative numbers"),
    "latestOnly": _flag("latestOnly", "Only each subject's latest version"),
    "aliases": _flag("aliases", "Add the aliases naming each subject"),
    "findTags": _query("findTags", {"type": "array", "items": STRING},
                       "List the schema's records and fields carrying any of these inline tags (`*`: all) as "
                       "`schemaTags` (repeatable; commas also separate)", style="form", explode=True),
    "referenceFormat": _query("referenceFormat", {"type": "string", "examples": ["qualified"]},
                              "`qualified`: references named by their subject qualified with the schema's "
                              "context (`reference_format` is read too)"),
    "fetchMaxId": _flag("fetchMaxId", "Add the highest id in use"),
    "permanent": _flag("permanent", "Delete for good (after a soft delete)"),
    "testSharing": _flag("testSharing", "Test a shared KEK through the server's KMS before writing it"),
    "normalize": _flag("normalize", "Normalize the schema first"),
    "force": _flag("force", "Skip the checks that would refuse the change"),
    "verbose": _flag("verbose", "List the reasons for incompatibility"),
    "defaultToGlobal": _flag("defaultToGlobal", "Fall back to the global setting"),
    "recursive": _flag("recursive", "Also remove the modes below"),
    # GET /audit: its own parameters, whose bad values are 400 naming them.
    "auditSubject": _query("subject", STRING, "Only events of this subject (qualified, exact)"),
    "principal": _query("principal", STRING, "Only events of this principal (`user:NAME`)"),
    "action": _query("action", {"type": "string", "examples": ["REGISTER", "DELETE_VERSION", "SET_CONFIG"]},
                     "Only events of this action"),
    "outcome": _query("outcome", {"type": "string", "enum": ["success", "denied", "rejected"]},
                      "Only events with this outcome"),
    "since": _query("since", {"type": "string", "examples": ["2026-01-01T00:00:00Z", "1767225600000"]},
                    "Events at or after (ISO-8601 or epoch milliseconds)"),
    "until": _query("until", {"type": "string", "examples": ["2026-12-31T23:59:59Z"]},
                    "Events at or before (ISO-8601 or epoch milliseconds)"),
    "auditOffset": _query("offset", {"type": "integer", "minimum": 0}, "Events to skip"),
    "auditLimit": _query("limit", {"type": "integer", "minimum": 0}, "Events at most (default 100, at most 1,000)"),
}

SECURITY_SCHEMES = {
    "basicAuth": {"type": "http", "scheme": "basic", "description": "A user of the auth file"},
    "bearerAuth": {"type": "http", "scheme": "bearer", "bearerFormat": "JWT",
                   "description": "A token from the identity provider the auth file names"},
    "mutualTLS": {"type": "mutualTLS", "description": "A client certificate (gunicorn verifies it)"},
}
_CREDENTIALS = [{"basicAuth": []}, {"bearerAuth": []}, {"mutualTLS": []}]


def _json_content(schema: Schema | None, media_types: tuple[str, ...]) -> dict[str, Any]:
    return {media: ({"schema": schema} if schema is not None else {}) for media in media_types}


def error_statuses(op: Operation) -> list[int]:
    statuses = {413, *op.errors}
    if op.api:
        statuses |= {400, 406}
    if op.body is not None:
        statuses |= {400, 415, 422}
    if not op.open:
        statuses |= {401, 403}
    return sorted(statuses)


def _responses(op: Operation) -> dict[str, Any]:
    media = JSON_MEDIA_TYPES if op.api else (PLAIN_JSON,)
    responses: dict[str, Any] = {}
    if op.status == 204:
        responses["204"] = {"description": "Done; no body"}
    elif op.status != 200:  # 207: the batch routes' per-request results
        responses[str(op.status)] = {"description": op.description or op.summary,
                                     "content": _json_content(op.reply, media)}
    elif op.reply_media is not None:
        responses["200"] = {"description": op.summary, "content": {op.reply_media: {"schema": STRING}}}
    else:
        responses["200"] = {"description": op.description or op.summary, "content": _json_content(op.reply, media)}
    for status, schema in op.extra_replies.items():
        responses[str(status)] = {"description": "Not ready", "content": _json_content(ref(schema), media)}
    for status in error_statuses(op):
        responses[str(status)] = {"description": _REASONS[status], "content": _json_content(ERROR_MESSAGE, media)}
    return responses


def _operation(op: Operation) -> dict[str, Any]:
    out: dict[str, Any] = {"operationId": op.operation_id, "summary": op.summary, "tags": [op.tag]}
    if op.description:
        out["description"] = op.description
    if op.params:
        out["parameters"] = [{"$ref": f"#/components/parameters/{name}"} for name in op.params]
    if op.body is not None:
        out["requestBody"] = {"required": True, "content": _json_content(ref(op.body), JSON_MEDIA_TYPES)}
    out["responses"] = _responses(op)
    if op.open:
        out["security"] = []
    return out


def build_document() -> dict[str, Any]:
    paths: dict[str, dict[str, Any]] = {}
    every = OPERATIONS + ASSOCIATION_OPERATIONS
    for op in every:
        paths.setdefault(op.path, {})[op.method.lower()] = _operation(op)
    return {
        "openapi": "3.1.0",
        "info": {
            "title": "sqlregistry",
            "version": build_info().version,
            "description": (
                "A Confluent-compatible schema registry on SQL. Every Confluent path also exists under "
                "`/contexts/{context}/...`, which addresses the same operation in that context. "
                "Errors are always `{\"error_code\": N, \"message\": \"...\"}`, except gunicorn's own 414 "
                "(request line) and 431 (header) for a bare gunicorn worker."
            ),
        },
        "tags": [{"name": name} for name in dict.fromkeys(op.tag for op in every)],
        "security": _CREDENTIALS,
        "paths": paths,
        "components": {
            "schemas": {**COMPONENT_SCHEMAS, **ASSOCIATION_SCHEMAS},
            "parameters": {**PARAMETERS, **ASSOCIATION_PARAMETERS},
            "securitySchemes": SECURITY_SCHEMES,
        },
    }
