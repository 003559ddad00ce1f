"""Every route the server has, as data: one `Operation` per path and method.

This table is the one source of truth for the document (document.py turns it into OpenAPI);
tests/api/test_openapi.py walks Flask's URL map against it both ways, so a route added
without a line here, or a line without its route, fails the suite.

Error statuses are listed per operation as the code can produce them: the API's hooks
(400 for a query string that is not UTF-8 or a context name with a colon, 406 for `Accept`,
415 for a body's content type), integer parameters that do not parse (404, as Jersey), the
request limits (413 for every route, 400 and 422 for bodies), authentication (401) and
authorization (403) unless the route is open, storage failures (500, codes 50001/50002)
wherever the database is read.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from app.api.openapi.schemas import INT32 as INT32_SCHEMA
from app.api.openapi.schemas import STRING as STRING_SCHEMA
from app.api.openapi.schemas import Schema, array, ref

# Path and query parameters (names of `components.parameters`, see document.py).
SUBJECT, VERSION, ID, GUID, DIGEST, CONTEXT = "subject", "version", "id", "guid", "digest", "context"
KEK, KEK_CONTEXT, DEK_ALGORITHM = "kekName", "kekContext", "dekAlgorithm"
PAGE = ("offset", "limit")


@dataclass(frozen=True)
class Operation:
    method: str
    path: str
    operation_id: str
    summary: str
    tag: str
    params: tuple[str, ...] = ()
    body: str | None = None  # a component schema's name
    reply: Schema | None = None  # the 200 body; None for a reply without a JSON schema
    errors: tuple[int, ...] = ()  # beyond the ones every operation of its kind has
    open: bool = False  # answered without credentials
    api: bool = True  # behind the API's media type checks (the Confluent-compatible routes)
    reply_media: str | None = None  # a reply that is not JSON (the metrics text)
    status: int = 200
    description: str = ""
    extra_replies: dict[int, str] = field(default_factory=dict)  # status -> component schema (not errors)


_SUBJECTS, _SCHEMAS, _CONFIG, _MODE, _COMPAT, _SERVER, _CONTEXTS, _OPS, _POLICIES = (
    "Subjects", "Schemas", "Config", "Mode", "Compatibility", "Server", "Contexts", "Operations", "Policies"
)
_KEKS, _DEKS = "Key Encryption Keys", "Data Encryption Keys"
_DEK_ROOT = "/dek-registry/v1/keks"
_DEK_PATH = _DEK_ROOT + "/{name}/deks/{subject}"
_EXPORTERS = "Exporters"
_IMPACT = "Impact"
_IMPACT_TEXT = ("Not part of Confluent's API. Referrers are found breadth-first through stored references, up to "
                "`maxReferrers` subjects (`truncated` says when the walk stopped); only subjects the caller may "
                "read are listed.")
_RAW = "The schema text itself (not a JSON document for Protobuf), labelled with the reply's JSON media type."

OPERATIONS: tuple[Operation, ...] = (
    # ---------------------------------------------------------------- server
    Operation("GET", "/", "getRoot", "An empty object: the server answers", _SERVER, reply=ref("AnyObject"),
              open=True, description="A browser (an Accept that ranks text/html above JSON) is redirected "
                                     "to the web UI at /ui/ with 302 instead."),
    Operation("POST", "/", "postRoot", "Any JSON object is accepted and answered with an empty one", _SERVER,
              body="AnyObject", reply=ref("AnyObject")),
    Operation("GET", "/v1/metadata/id", "getClusterId", "The cluster id", _SERVER, reply=ref("ServerClusterId")),
    Operation("GET", "/v1/metadata/version", "getServerVersion", "The server's version and commit", _SERVER,
              reply=ref("ServerVersion")),
    Operation("GET", "/v1/metadata/deployment", "getDeployment", "Deployment attributes (none)", _SERVER,
              reply=ref("ServerDeployment")),
    # ---------------------------------------------------------------- schemas
    Operation("GET", "/schemas", "listSchemas", "Schemas of every subject-version, filtered", _SCHEMAS,
              params=("subjectPrefix", "deleted", "latestOnly", *PAGE, "ruleType", "aliases", "resourceType",
                      "associationType", "schemaLifecycle"),
              reply=array(ref("Schema")), errors=(404, 422, 500)),
    Operation("GET", "/schemas/types", "getSchemaTypes", "The schema formats this server speaks", _SCHEMAS,
              reply=array({"type": "string"})),
    Operation("GET", "/schemas/ids/{id}", "getSchemaById", "A schema by id", _SCHEMAS,
              params=(ID, "schemaSubject", "format", "referenceFormat", "findTags", "fetchMaxId"),
              reply=ref("SchemaString"),
              errors=(404, 422, 500)),
    Operation("GET", "/schemas/ids/{id}/schema", "getRawSchemaById", "A schema's text by id", _SCHEMAS,
              params=(ID, "schemaSubject", "format"), errors=(404, 422, 500), description=_RAW),
    Operation("GET", "/schemas/ids/{id}/subjects", "getSubjectsForId", "Subjects holding a schema id", _SCHEMAS,
              params=(ID, "schemaSubject", "deleted", *PAGE), reply=array({"type": "string"}),
              errors=(404, 422, 500)),
    Operation("GET", "/schemas/ids/{id}/versions", "getVersionsForId", "Subject-versions holding a schema id",
              _SCHEMAS, params=(ID, "schemaSubject", "deleted", *PAGE), reply=array(ref("SubjectVersion")),
              errors=(404, 422, 500)),
    Operation("GET", "/schemas/guids/{guid}", "getSchemaByGuid", "A schema by GUID", _SCHEMAS,
              params=(GUID, "format"), reply=ref("SchemaString"), errors=(404, 422, 500)),
    Operation("GET", "/schemas/guids/{guid}/ids", "getIdsForGuid", "The ids a GUID has in each context",
              _SCHEMAS, params=(GUID,), reply=array(ref("ContextId")), errors=(404, 500)),
    Operation("GET", "/schemas/fingerprints/{digest}", "getSchemaByFingerprint",
              "A schema by its fingerprint (extension: readers of Avro single-object encoding)", _SCHEMAS,
              params=(DIGEST, "algorithm"), reply=ref("FingerprintSchema"), errors=(404, 422, 500)),
    # ---------------------------------------------------------------- subjects
    Operation("GET", "/subjects", "listSubjects", "Subjects, filtered", _SUBJECTS,
              params=("subjectPrefix", "deleted", "deletedOnly", *PAGE), reply=array({"type": "string"}),
              errors=(404, 422, 500)),
    Operation("POST", "/subjects/{subject}", "lookUpSchemaUnderSubject", "The version of a subject holding a schema",
              _SUBJECTS, params=(SUBJECT, "normalize", "deleted", "format"), body="RegisterSchemaRequest",
              reply=ref("Schema"), errors=(404, 422, 500)),
    Operation("DELETE", "/subjects/{subject}", "deleteSubject", "Delete a subject (soft, or permanent)", _SUBJECTS,
              params=(SUBJECT, "permanent"), reply=array({"type": "integer"}), errors=(404, 422, 500)),
    Operation("GET", "/subjects/{subject}/metadata", "getLatestWithMetadata",
              "The latest version whose metadata has the given properties", _SUBJECTS,
              params=(SUBJECT, "key", "value", "deleted", "format"), reply=ref("Schema"), errors=(404, 422, 500)),
    Operation("GET", "/subjects/{subject}/versions", "listVersions", "A subject's version numbers", _SUBJECTS,
              params=(SUBJECT, "deleted", "deletedOnly", "deletedAsNegative", *PAGE),
              reply=array({"type": "integer"}), errors=(404, 422, 500)),
    Operation("POST", "/subjects/{subject}/versions", "register", "Register a schema under a subject", _SUBJECTS,
              params=(SUBJECT, "normalize", "force", "format"), body="RegisterSchemaRequest",
              reply=ref("RegisterSchemaResponse"), errors=(404, 409, 422, 500)),
    Operation("GET", "/subjects/{subject}/versions/{version}", "getSchemaByVersion", "A subject-version",
              _SUBJECTS, params=(SUBJECT, VERSION, "deleted", "format", "referenceFormat", "findTags"),
              reply=ref("Schema"),
              errors=(404, 422, 500)),
    Operation("GET", "/subjects/{subject}/versions/{version}/schema", "getRawSchemaByVersion",
              "A subject-version's schema text", _SUBJECTS, params=(SUBJECT, VERSION, "deleted", "format"),
              errors=(404, 422, 500), description=_RAW),
    Operation("DELETE", "/subjects/{subject}/versions/{version}", "deleteSchemaVersion",
              "Delete a subject-version (soft, or permanent)", _SUBJECTS, params=(SUBJECT, VERSION, "permanent"),
              reply={"type": "integer"}, errors=(404, 422, 500)),
    Operation("GET", "/subjects/{subject}/versions/{version}/referencedby", "getReferencedBy",
              "Ids of the schemas referring to a subject-version", _SUBJECTS,
              params=(SUBJECT, VERSION, "deleted", *PAGE), reply=array({"type": "integer"}), errors=(404, 422, 500)),
    Operation("POST", "/subjects/{subject}/versions/{version}/tags", "modifySchemaTags",
              "A new version with tags, metadata or rules edited", _SUBJECTS, params=(SUBJECT, VERSION),
              body="TagSchemaRequest", reply=ref("RegisterSchemaResponse"), errors=(404, 409, 422, 500)),
    # ---------------------------------------------------------------- compatibility
    Operation("POST", "/compatibility/subjects/{subject}/versions", "testCompatibilityForSubject",
              "Check a schema against a subject's versions, as registration would", _COMPAT,
              params=(SUBJECT, "normalize", "verbose"), body="RegisterSchemaRequest",
              reply=ref("CompatibilityCheckResponse"), errors=(404, 422, 500)),
    # ---------------------------------------------------------------- impact (a sqlregistry extension)
    Operation("GET", "/impact/subjects/{subject}", "getSubjectImpact",
              "Extension: the topics associated with a subject and the subjects referencing it", _IMPACT,
              params=(SUBJECT,), reply=ref("Impact"), errors=(404, 422, 500), description=_IMPACT_TEXT),
    Operation("POST", "/impact/subjects/{subject}", "checkCandidateImpact",
              "Extension: which associated topics and referencing subjects a candidate schema would break",
              _IMPACT, params=(SUBJECT, "normalize"), body="RegisterSchemaRequest", reply=ref("Impact"),
              errors=(404, 422, 500), description=_IMPACT_TEXT + " The candidate is checked against the subject as "
              "registration would; each referrer's latest version, rewired to the candidate, against the "
              "referrer's own history under its own level."),
    Operation("POST", "/compatibility/subjects/{subject}/versions/{version}", "testCompatibilityBySubjectName",
              "Check a schema against one subject-version", _COMPAT,
              params=(SUBJECT, VERSION, "normalize", "verbose"), body="RegisterSchemaRequest",
              reply=ref("CompatibilityCheckResponse"), errors=(404, 422, 500)),
    # ---------------------------------------------------------------- config
    Operation("GET", "/config", "getTopLevelConfig", "The server's configuration", _CONFIG,
              params=("defaultToGlobal",), reply=ref("Config"), errors=(404, 500)),
    Operation("PUT", "/config", "updateTopLevelConfig", "Change the server's configuration", _CONFIG,
              body="ConfigUpdateRequest", reply=ref("ConfigUpdateResponse"), errors=(404, 422, 500)),
    Operation("DELETE", "/config", "deleteTopLevelConfig", "Reset the server's configuration", _CONFIG,
              reply=ref("Config"), errors=(404, 422, 500)),
    Operation("GET", "/config/{subject}", "getSubjectLevelConfig", "A subject's (or context's) configuration",
              _CONFIG, params=(SUBJECT, "defaultToGlobal"), reply=ref("Config"), errors=(404, 422, 500)),
    Operation("PUT", "/config/{subject}", "updateSubjectLevelConfig", "Change a subject's configuration", _CONFIG,
              params=(SUBJECT,), body="ConfigUpdateRequest", reply=ref("ConfigUpdateResponse"),
              errors=(404, 422, 500)),
    Operation("DELETE", "/config/{subject}", "deleteSubjectConfig", "Remove a subject's configuration", _CONFIG,
              params=(SUBJECT,), reply=ref("Config"), errors=(404, 422, 500)),
    # ---------------------------------------------------------------- mode
    Operation("GET", "/mode", "getTopLevelMode", "The server's mode", _MODE, params=("defaultToGlobal",),
              reply=ref("Mode"), errors=(404, 500)),
    Operation("PUT", "/mode", "updateTopLevelMode", "Change the server's mode", _MODE, params=("force",),
              body="ModeUpdateRequest", reply=ref("Mode"), errors=(404, 422, 500)),
    Operation("DELETE", "/mode", "deleteTopLevelMode", "Reset the server's mode", _MODE, params=("recursive",),
              reply=ref("Mode"), errors=(404, 422, 500)),
    Operation("GET", "/mode/{subject}", "getModeForSubject", "A subject's (or context's) mode", _MODE,
              params=(SUBJECT, "defaultToGlobal"), reply=ref("Mode"), errors=(404, 422, 500)),
    Operation("PUT", "/mode/{subject}", "updateModeForSubject", "Change a subject's mode", _MODE,
              params=(SUBJECT, "force"), body="ModeUpdateRequest", reply=ref("Mode"), errors=(404, 422, 500)),
    Operation("DELETE", "/mode/{subject}", "deleteSubjectMode", "Remove a subject's mode", _MODE,
              params=(SUBJECT, "recursive"), reply=ref("Mode"), errors=(404, 422, 500)),
    # ---------------------------------------------------------------- contexts
    Operation("GET", "/contexts", "listContexts", "Contexts holding subjects", _CONTEXTS,
              params=("contextPrefix", *PAGE), reply=array({"type": "string"}), errors=(404, 500)),
    Operation("DELETE", "/contexts/{context}", "deleteContext", "Delete an empty context", _CONTEXTS,
              params=(CONTEXT,), status=204, errors=(404, 422, 500)),
    # ---------------------------------------------------------------- operations (extensions)
    Operation("GET", "/health/live", "getLiveness", "The process answers HTTP", _OPS, reply=ref("HealthStatus"),
              open=True, api=False),
    Operation("GET", "/health/ready", "getReadiness", "The database answers", _OPS, reply=ref("HealthStatus"),
              open=True, api=False, extra_replies={503: "HealthStatus"}),
    Operation("GET", "/metrics", "getMetrics", "Prometheus metrics", _OPS, open=True, api=False,
              reply_media="text/plain"),
    Operation("GET", "/openapi.json", "getOpenApi", "This document", _OPS, reply=ref("OpenApiDocument"),
              open=True, api=False),
    Operation("GET", "/audit", "listAuditEvents", "Recorded changes, newest first (global admins only)", _OPS,
              params=("auditSubject", "principal", "action", "outcome", "since", "until", "auditOffset", "auditLimit"),
              reply=array(ref("AuditEvent")), errors=(500,)),
    # ---------------------------------------------------------------- schema policies (extension)
    Operation("GET", "/policies", "getPolicies", "The global policy document", _POLICIES,
              reply=ref("PolicyDocument"), errors=(500,)),
    Operation("PUT", "/policies", "putPolicies", "Replace the global policy document", _POLICIES,
              body="PolicyDocument", reply=ref("PolicyDocument"), errors=(422, 500)),
    Operation("DELETE", "/policies", "deletePolicies", "Remove the global policy document", _POLICIES,
              reply=ref("PolicyDocument"), errors=(422, 500)),
    Operation("GET", "/policies/{subject}", "getPolicySelection", "A subject's or context's policy selection",
              _POLICIES, params=(SUBJECT, "defaultToGlobal"), reply=ref("PolicySelection"), errors=(404, 422, 500)),
    Operation("PUT", "/policies/{subject}", "putPolicySelection", "Store a subject's or context's selection",
              _POLICIES, params=(SUBJECT,), body="PolicySelection", reply=ref("PolicySelection"),
              errors=(422, 500)),
    Operation("DELETE", "/policies/{subject}", "deletePolicySelection", "Remove a subject's or context's selection",
              _POLICIES, params=(SUBJECT,), reply=ref("PolicySelection"), errors=(404, 422, 500)),
    Operation("POST", "/policies/{subject}/check", "checkPolicies", "Run the subject's policy on a schema",
              _POLICIES, params=(SUBJECT,), body="RegisterSchemaRequest", reply=ref("PolicyCheck"),
              errors=(404, 422, 500)),
    Operation("GET", "/policy-rules", "listPolicyRules", "The installed policy rules", _POLICIES,
              reply=array(ref("PolicyRuleInfo")), errors=(500,)),
    # ---------------------------------------------------------------- the DEK registry (client-side encryption)
    Operation("GET", _DEK_ROOT, "getKekNames", "The KEKs' names", _KEKS,
              params=(KEK_CONTEXT, "dekSubjectPrefix", "deleted", *PAGE),
              reply=array(STRING_SCHEMA), errors=(404, 422, 500)),
    Operation("POST", _DEK_ROOT, "registerKek", "Create a KEK (admin on the KEK)", _KEKS,
              params=(KEK_CONTEXT, "testSharing"), body="CreateKekRequest", reply=ref("Kek"), errors=(409, 422, 500)),
    Operation("GET", _DEK_ROOT + "/{name}", "getKek", "A KEK", _KEKS, params=(KEK, KEK_CONTEXT, "deleted"),
              reply=ref("Kek"), errors=(404, 422, 500)),
    Operation("PUT", _DEK_ROOT + "/{name}", "updateKek", "Change a KEK's kmsProps, doc or shared", _KEKS,
              params=(KEK, KEK_CONTEXT, "testSharing"), body="UpdateKekRequest", reply=ref("Kek"),
              errors=(404, 422, 500)),
    Operation("POST", _DEK_ROOT + "/{name}/test", "testKek", "Test a shared KEK through the server's KMS", _KEKS,
              params=(KEK, KEK_CONTEXT), reply=ref("Kek"), errors=(404, 415, 422, 500),
              description="Wraps a throwaway AES256_GCM DEK with the KEK and stores nothing. 42271 (`shared`) "
                          "for a KEK that is not shared; 50070 when the KMS fails or the server has no driver "
                          "for its kmsType."),
    Operation("DELETE", _DEK_ROOT + "/{name}", "deregisterKek", "Delete a KEK (soft, then permanent)", _KEKS,
              params=(KEK, KEK_CONTEXT, "permanent"), status=204, errors=(404, 422, 500)),
    Operation("POST", _DEK_ROOT + "/{name}/undelete", "undeleteKek", "Undelete a KEK", _KEKS,
              params=(KEK, KEK_CONTEXT), status=204, errors=(404, 415, 422, 500)),
    Operation("GET", _DEK_ROOT + "/{name}/deks", "getDekSubjects", "The subjects with DEKs under a KEK", _DEKS,
              params=(KEK, KEK_CONTEXT, "deleted", *PAGE), reply=array(STRING_SCHEMA), errors=(404, 422, 500)),
    Operation("POST", _DEK_ROOT + "/{name}/deks", "registerDek", "Create a DEK (a new version rotates the key)",
              _DEKS, params=(KEK,), body="CreateDekRequest", reply=ref("Dek"), errors=(404, 409, 422, 500)),
    Operation("POST", _DEK_PATH, "registerDekForSubject", "Create a DEK of the subject in the path", _DEKS,
              params=(KEK, SUBJECT, "rewrap"), body="CreateDekRequest", reply=ref("Dek"),
              errors=(404, 409, 422, 500)),
    Operation("GET", _DEK_PATH, "getDek", "A subject's DEK, version 1", _DEKS,
              params=(KEK, SUBJECT, DEK_ALGORITHM, "deleted"), reply=ref("Dek"), errors=(404, 422, 500)),
    Operation("DELETE", _DEK_PATH, "deregisterDekVersions", "Delete every version of a DEK", _DEKS,
              params=(KEK, SUBJECT, DEK_ALGORITHM, "permanent"), status=204, errors=(404, 422, 500)),
    Operation("POST", _DEK_PATH + "/undelete", "undeleteDekVersions", "Undelete every version of a DEK", _DEKS,
              params=(KEK, SUBJECT, DEK_ALGORITHM), status=204, errors=(404, 415, 422, 500)),
    Operation("GET", _DEK_PATH + "/versions", "getAllDekVersions", "A DEK's versions", _DEKS,
              params=(KEK, SUBJECT, DEK_ALGORITHM, "deleted", *PAGE), reply=array(INT32_SCHEMA),
              errors=(404, 422, 500)),
    Operation("GET", _DEK_PATH + "/versions/{version}", "getDekByVersion", "One version of a DEK", _DEKS,
              params=(KEK, SUBJECT, VERSION, DEK_ALGORITHM, "deleted"), reply=ref("Dek"), errors=(404, 422, 500)),
    Operation("DELETE", _DEK_PATH + "/versions/{version}", "deregisterDekVersion", "Delete one version of a DEK",
              _DEKS, params=(KEK, SUBJECT, VERSION, DEK_ALGORITHM, "permanent"), status=204,
              errors=(404, 422, 500)),
    Operation("POST", _DEK_PATH + "/versions/{version}/undelete", "undeleteDekVersion",
              "Undelete one version of a DEK", _DEKS, params=(KEK, SUBJECT, VERSION, DEK_ALGORITHM), status=204,
              errors=(404, 415, 422, 500)),
    # ---------------------------------------------------------------- exporters (Schema Linking; admins only)
    Operation("GET", "/exporters", "listExporters", "The exporters' names", _EXPORTERS,
              reply=array({"type": "string"}), errors=(500,)),
    Operation("POST", "/exporters", "createExporter", "Create an exporter; it starts at once", _EXPORTERS,
              body="Exporter", reply=ref("ExporterName"), errors=(409, 500)),
    Operation("GET", "/exporters/{name}", "getExporter", "An exporter's definition and masked config", _EXPORTERS,
              params=("name",), reply=ref("Exporter"), errors=(404, 409, 500)),
    Operation("PUT", "/exporters/{name}", "updateExporter", "Change a paused exporter's definition", _EXPORTERS,
              params=("name",), body="Exporter", reply=ref("ExporterName"), errors=(404, 409, 500)),
    Operation("DELETE", "/exporters/{name}", "deleteExporter", "Delete a paused exporter", _EXPORTERS,
              params=("name",), status=204, errors=(404, 409, 500)),
    Operation("GET", "/exporters/{name}/status", "getExporterStatus", "What the exporter's runner reports",
              _EXPORTERS, params=("name",), reply=ref("ExporterStatus"), errors=(404, 409, 500)),
    Operation("GET", "/exporters/{name}/config", "getExporterConfig", "The exporter's config, secrets masked",
              _EXPORTERS, params=("name",), reply=ref("ExporterConfig"), errors=(404, 409, 500)),
    Operation("PUT", "/exporters/{name}/config", "putExporterConfig", "Merge into a paused exporter's config",
              _EXPORTERS, params=("name",), body="ExporterConfig", reply=ref("ExporterName"), errors=(404, 409, 500)),
    Operation("PUT", "/exporters/{name}/pause", "pauseExporter", "Stop copying", _EXPORTERS,
              params=("name",), body="AnyObject", reply=ref("ExporterName"), errors=(404, 409, 500)),
    Operation("PUT", "/exporters/{name}/resume", "resumeExporter", "Copy again from where it stopped", _EXPORTERS,
              params=("name",), body="AnyObject", reply=ref("ExporterName"), errors=(404, 409, 500)),
    Operation("PUT", "/exporters/{name}/reset", "resetExporter", "Clear a stopped exporter's offset and trace",
              _EXPORTERS, params=("name",), body="AnyObject", reply=ref("ExporterName"), errors=(404, 409, 500)),
)
