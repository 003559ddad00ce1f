"""Reply bodies in Confluent's 8.x shapes, a superset of 7.x's that both official clients accept.

Confluent's entities drop null values and empty strings, lists and maps (Jackson's
NON_EMPTY) but keep `false` and `0`; three entities drop only nulls (NON_NULL): the
compatibility check reply and the config and mode PUT replies. The builders below put
keys in directly from the immutable records, so a read costs one small dict and one
`json` encode: no copies of stored documents, no re-parsing.

Every body is encoded by `json_bytes`, which never fails on what is stored: a lone surrogate
(UTF-8 has no encoding for one; older versions stored some inside JSON documents) comes out
as its JSON escape `\\ud800`, which is what the client sent, rather than failing the reply.
"""
from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from flask import Response, current_app
from werkzeug.wrappers import Response as WsgiResponse

from app.api.negotiation import V1_JSON, negotiate, reply_media_type
from app.core.associations.records import STRONG, Association, AssociationInfo, BatchResult, ResourceReply
from app.core.audit import iso_time
from app.core.compatibility.impact import Impact, Referrer, Verdict
from app.core.dek.records import DekReply, Kek
from app.core.errors import RegistryError
from app.core.reads.found_tags import qualified_references
from app.core.registry import ListedSchema
from app.core.records import (
    CompatibilityReport,
    SchemaById,
    StoredSchema,
    SubjectVersion,
)
from app.core.store.audit import AuditRow
from app.formats.base import DEFAULT_SCHEMA_TYPE, EntityTags
from app.policies.engine import Outcome

_encode = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), check_circular=False).encode
_encode_ascii = json.JSONEncoder(ensure_ascii=True, separators=(",", ":"), check_circular=False).encode


def json_bytes(payload: Any) -> bytes:
    """A reply body in UTF-8; a payload holding a lone surrogate is encoded again with every
    non-ASCII character escaped, which JSON allows for any code point (only such replies pay)."""
    text = _encode(payload)
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError:
        return _encode_ascii(payload).encode("ascii")


def json_response(payload: Any, status: int = 200) -> Response:
    return current_app.response_class(json_bytes(payload), status=status, mimetype=reply_media_type())


def rendered_response(record: SchemaById | SubjectVersion, build: Callable[[Any], dict[str, Any]]) -> Response:
    """The reply for an immutable record (see `rendition`)."""
    return current_app.response_class(rendition(record, build), status=200, mimetype=reply_media_type())


def rendition(record: SchemaById | SubjectVersion, build: Callable[[Any], dict[str, Any]]) -> bytes:
    """A record's reply body, encoded once per record and shape: the hot reads hand the same
    record to every request until something is committed. Building one reads the app's
    settings, so it needs an application context; `cached_rendition` does not."""
    body = cached_rendition(record, build)
    if body is None:
        body = record.renditions[build.__name__] = json_bytes(build(record))
    return body


def cached_rendition(record: SchemaById | SubjectVersion, build: Callable[[Any], dict[str, Any]]) -> bytes | None:
    return record.renditions.get(build.__name__)


def error_entity(error_code: int, message: str) -> dict[str, Any]:
    """Confluent's ErrorMessage, the body of every failure."""
    return {"error_code": error_code, "message": message}


def error_response(status: int, error_code: int, message: str) -> Response:
    return json_response(error_entity(error_code, message), status=status)


def standalone_error(environ: dict[str, Any], exc: RegistryError) -> WsgiResponse:
    """An error reply made before Flask takes the request (the path middleware), labelled
    from the request's `Accept` like any other reply."""
    return WsgiResponse(
        json_bytes(error_entity(exc.error_code, exc.message)),
        status=exc.http_status,
        mimetype=negotiate(environ.get("HTTP_ACCEPT")) or V1_JSON,
    )


def text_response(body: str) -> Response:
    """The raw `.../schema` endpoints: the schema text itself, labelled as JSON. A lone
    surrogate in it is sent as its `\\ud800` escape, as JSON text would spell it."""
    data = body.encode("utf-8", "backslashreplace")
    return current_app.response_class(data, status=200, mimetype=reply_media_type())


def empty_response() -> Response:
    """204 with no body and no content type (DELETE /contexts/{ctx})."""
    response = current_app.response_class(status=204)
    del response.headers["Content-Type"]
    return response


def _is_empty(value: Any) -> bool:
    return value is None or ((isinstance(value, (str, list, tuple, dict))) and not value)


def non_null(document: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in document.items() if v is not None}


def kek_entity(kek: Kek) -> dict[str, Any]:
    """Confluent's `Kek` entity: null fields left out, `false` and `0` kept."""
    return non_null({
        "name": kek.name, "kmsType": kek.kms_type, "kmsKeyId": kek.kms_key_id, "kmsProps": dict(kek.kms_props),
        "doc": kek.doc, "shared": kek.shared, "ts": kek.ts, "deleted": kek.deleted,
    })


def dek_entity(reply: DekReply) -> dict[str, Any]:
    """Confluent's `Dek` entity; `keyMaterial` appears only for a shared KEK's DEK."""
    dek = reply.dek
    return non_null({
        "kekName": dek.key.kek_name, "subject": dek.key.subject, "version": dek.version,
        "algorithm": dek.key.algorithm.value, "encryptedKeyMaterial": dek.encrypted_key_material,
        "keyMaterial": reply.key_material, "ts": dek.ts, "deleted": dek.deleted,
    })


def _described(out: dict[str, Any], schema: StoredSchema, text: str) -> None:
    """What Schema and RegisterSchemaResponse share, in their order: guid, type, text, content."""
    if schema.guid:
        out["guid"] = schema.guid
    _schema_type(out, schema.schema_type)
    if text:
        out["schema"] = text
    _content(out, schema)


def _content(out: dict[str, Any], schema: StoredSchema) -> None:
    """References, metadata and rule set, each only when non-empty."""
    if schema.references:
        out["references"] = [ref.to_json() for ref in schema.references]
    if schema.metadata:
        out["metadata"] = schema.metadata
    if schema.rule_set:
        out["ruleSet"] = schema.rule_set


def _schema_type(out: dict[str, Any], schema_type: str) -> None:
    """8.x always sends `schemaType`; 7.x left it out for the default type (a settings switch
    restores that)."""
    if schema_type != DEFAULT_SCHEMA_TYPE or current_app.config["REGISTRY_SETTINGS"].avro_schema_type_in_replies:
        out["schemaType"] = schema_type


def schema_entity(version: SubjectVersion) -> dict[str, Any]:
    """Confluent's Schema entity: a subject-version with its content; `schemaType` always present."""
    schema = version.schema
    out: dict[str, Any] = {"subject": version.subject, "version": version.version, "id": schema.id}
    _described(out, schema, version.text)
    out["ts"] = version.ts
    out["deleted"] = version.deleted
    return out


def registered_entity(version: SubjectVersion) -> dict[str, Any]:
    """Confluent's 8.x RegisterSchemaResponse: `version` left out when not positive."""
    schema = version.schema
    out: dict[str, Any] = {"id": schema.id}
    if version.version > 0:
        out["version"] = version.version
    _described(out, schema, version.text)
    return out


def fingerprint_entity(schema: StoredSchema) -> dict[str, Any]:
    """`GET /schemas/fingerprints/{hex}` (extension): the id with its content."""
    out: dict[str, Any] = {"id": schema.id}
    _schema_type(out, schema.schema_type)
    out["schema"] = schema.schema
    _content(out, schema)
    return out


def schema_string_entity(found: SchemaById) -> dict[str, Any]:
    """Confluent's SchemaString: the id's content plus, in 8.x, the holder's subject/version."""
    schema = found.schema
    out: dict[str, Any] = {}
    if found.text:
        out["schema"] = found.text
    _schema_type(out, schema.schema_type)
    _content(out, schema)
    if schema.guid:
        out["guid"] = schema.guid
    holder = found.holder
    if holder is not None:
        out["ts"] = holder.ts
        out["deleted"] = holder.deleted
        out["subject"] = holder.subject
        out["version"] = holder.version
    if found.max_id is not None:
        out["maxId"] = found.max_id
    return out


def with_read_options(out: dict[str, Any], subject: str | None, schema: StoredSchema, tags: list[EntityTags],
                      qualified: bool) -> dict[str, Any]:
    """A schema read's reply with what `findTags` found (Confluent's `schemaTags`, left out
    when empty as Jackson's NON_EMPTY does) and, with `referenceFormat=qualified`, the
    references as read under `subject` (see `app.core.reads.found_tags`)."""
    if qualified and subject is not None and schema.references:
        out["references"] = [ref.to_json() for ref in qualified_references(subject, schema.references)]
    if tags:
        out["schemaTags"] = [{"schemaEntity": {"entityPath": entity.path, "entityType": entity.entity_type},
                              "tags": list(entity.tags)} for entity in tags]
    return out


def listed_schema_entity(item: ListedSchema) -> dict[str, Any]:
    """A Schema entity plus Confluent's ExtendedSchema `aliases` and `associations`, which its
    serializer leaves out when empty (so replies without those flags are the plain entities)."""
    out = schema_entity(item.version)
    if item.aliases:
        out["aliases"] = list(item.aliases)
    if item.associations:
        out["associations"] = [association_entity(a) for a in item.associations]
    return out


def subject_version_entity(subject: str, version: int) -> dict[str, Any]:
    return {"subject": subject, "version": version}


def context_id_entity(context: str, schema_id: int) -> dict[str, Any]:
    """One item of `/schemas/guids/{guid}/ids`."""
    return {"context": context, "id": schema_id}


def mode_entity(mode: str | None) -> dict[str, Any]:
    """Mode as GET and DELETE show it, and as a PUT echoes it (`{}` when the PUT cleared it)."""
    return {} if mode is None else {"mode": mode}


def cluster_id_entity(cluster: str) -> dict[str, Any]:
    """`/v1/metadata/id`: the one id stands for both the Kafka and the registry cluster."""
    return {"scope": {"path": [], "clusters": {"kafka-cluster": cluster, "schema-registry-cluster": cluster}}}


def server_version_entity(version: str, commit_id: str) -> dict[str, Any]:
    return {"version": version, "commitId": commit_id}


def compatibility_entity(report: CompatibilityReport, verbose: bool) -> dict[str, Any]:
    """NON_NULL: `messages` (possibly `[]`) only when the caller asked for verbose output."""
    if verbose:
        return {"is_compatible": report.is_compatible, "messages": list(report.messages)}
    return {"is_compatible": report.is_compatible}


def config_entity(document: dict[str, Any]) -> dict[str, Any]:
    """Config as GET/DELETE show it: the service's `compatibility` key is `compatibilityLevel`."""
    out = {}
    for key, value in document.items():
        if not _is_empty(value):
            out["compatibilityLevel" if key == "compatibility" else key] = value
    return out


def audit_entity(row: AuditRow) -> dict[str, Any]:
    """One entry of `GET /audit` (and a line of `sqlregistry audit list`): keys with no value
    left out, as Confluent's entities do; `ts` in ISO-8601 UTC."""
    entry, origin = row.entry, row.entry.origin
    out: dict[str, Any] = {"id": row.id, "ts": iso_time(row.ts)}
    for key, value in (
        ("principal", entry.principal), ("authMethod", entry.auth_method), ("remoteAddr", origin.remote_addr),
        ("forwardedFor", origin.forwarded_for), ("userAgent", origin.user_agent), ("method", origin.method),
        ("path", origin.path), ("action", entry.action), ("context", entry.context), ("subject", entry.subject),
        ("version", entry.version), ("schemaId", entry.schema_id), ("outcome", entry.outcome),
        ("status", entry.status), ("errorCode", entry.error_code), ("detail", entry.detail),
    ):
        if not _is_empty(value):
            out[key] = value
    return out


def policy_check_entity(outcome: Outcome) -> dict[str, Any]:
    """`POST /policies/{s}/check`: every violation (warnings included), the rules run, the
    rules skipped with why."""
    return outcome.as_json()


def _frozen_shown(lifecycle: str, frozen: bool) -> bool | None:
    """Confluent leaves `frozen` out when it is the lifecycle's default (STRONG frozen, WEAK not)."""
    return None if frozen == (lifecycle == STRONG) else frozen


def association_entity(association: Association) -> dict[str, Any]:
    """Confluent's Association: `subject` qualified, `createTs`/`updateTs` in epoch ms."""
    return non_null({
        "subject": association.subject_name, "guid": association.guid,
        "resourceName": association.resource_name, "resourceNamespace": association.resource_namespace,
        "resourceId": association.resource_id, "resourceType": association.resource_type,
        "associationType": association.association_type, "lifecycle": association.lifecycle,
        "frozen": _frozen_shown(association.lifecycle, association.frozen),
        "createTs": association.created_ts, "updateTs": association.updated_ts,
    })


def _association_info_entity(info: AssociationInfo) -> dict[str, Any]:
    return non_null({
        "subject": info.subject, "associationType": info.association_type, "lifecycle": info.lifecycle,
        "frozen": _frozen_shown(info.lifecycle, info.frozen),
        "schema": schema_entity(info.schema) if info.schema is not None else None,
    })


def association_response_entity(reply: ResourceReply) -> dict[str, Any]:
    """Confluent's AssociationResponse (NON_EMPTY: no `associations` key when there are none,
    as after a dry run or a retried create)."""
    out = non_null({
        "resourceName": reply.resource_name, "resourceNamespace": reply.resource_namespace,
        "resourceId": reply.resource_id, "resourceType": reply.resource_type,
    })
    if reply.associations:
        out["associations"] = [_association_info_entity(i) for i in reply.associations]
    return out


def association_batch_entity(results: list[BatchResult]) -> dict[str, Any]:
    """Confluent's AssociationBatchResponse: per request, `result` or `error`."""
    return {"results": [
        {"result": association_response_entity(r.reply)} if r.reply is not None
        else {"error": error_entity(r.error_code or 500, r.message or "")}
        for r in results
    ]}


def impact_entity(impact: Impact) -> dict[str, Any]:
    """`/impact/subjects/{s}` (a sqlregistry extension): the subject's topics (Confluent's
    Association shape), its referrers breadth-first, whether the walk was cut at
    `maxReferrers`; with a candidate, the verdict on the subject and on each referrer and, as
    a CI job reads them, the subjects and topics it would affect."""
    out: dict[str, Any] = {
        "subject": impact.subject,
        "topics": [association_entity(a) for a in impact.topics],
        "referencedBy": [_referrer_entity(r) for r in impact.referrers],
        "truncated": impact.truncated,
        "maxReferrers": impact.max_referrers,
    }
    if impact.verdict is not None:
        out.update(_verdict_entity(impact.verdict))
        hit = ([(impact.subject, impact.topics)] if impact.verdict.affected else []) + [
            (r.subject, r.topics) for r in impact.referrers if r.verdict is not None and r.verdict.affected]
        out["affectedSubjects"] = [subject for subject, _ in hit]
        out["affectedTopics"] = [association_entity(a) for _, topics in hit for a in topics]
    return out


def _referrer_entity(referrer: Referrer) -> dict[str, Any]:
    out: dict[str, Any] = {"subject": referrer.subject, "depth": referrer.depth, "via": referrer.via,
                           "topics": [association_entity(a) for a in referrer.topics]}
    if referrer.verdict is not None:
        out.update(_verdict_entity(referrer.verdict))
    return out


def _verdict_entity(verdict: Verdict) -> dict[str, Any]:
    return {"compatibilityLevel": verdict.level, "affected": verdict.affected, "messages": list(verdict.messages)}

