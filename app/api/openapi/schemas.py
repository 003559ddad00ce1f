"""The JSON Schemas of the document's `components.schemas`: request and reply bodies.

Replies are described as the server writes them (app/api/render.py): entities drop empty
values, so few keys are required, and reply objects stay open (`additionalProperties` is not
closed) because Confluent adds fields across releases and clients ignore unknown ones. The
one closed shape is `ErrorMessage`, which older Java clients parse strictly.
Request bodies follow app/api/requests.py: unknown properties are ignored, and a null counts
as absent (Jackson), so nullable fields say so.
"""
from __future__ import annotations

from typing import Any

from app.core.dek.records import (
    DOC_MAX_LENGTH,
    ENCRYPTED_KEY_MATERIAL_MAX_LENGTH,
    KMS_KEY_ID_MAX_LENGTH,
    KMS_PROP_KEY_MAX_LENGTH,
    KMS_PROP_VALUE_MAX_LENGTH,
    KMS_PROPS_MAX_COUNT,
    KMS_TYPE_MAX_LENGTH,
    NAME_MAX_LENGTH,
)

Schema = dict[str, Any]


def ref(name: str) -> Schema:
    return {"$ref": f"#/components/schemas/{name}"}


def nullable(kind: str, **extra: Any) -> Schema:
    return {"type": [kind, "null"], **extra}


def array(items: Schema) -> Schema:
    return {"type": "array", "items": items}


STRING: Schema = {"type": "string"}
INT32: Schema = {"type": "integer", "format": "int32"}
INT64: Schema = {"type": "integer", "format": "int64"}
BOOLEAN: Schema = {"type": "boolean"}
STRINGS: Schema = array(STRING)
STRING_MAP: Schema = {"type": "object", "additionalProperties": STRING}

SCHEMA_TYPE: Schema = {
    "type": "string",
    "description": "The schema's format; absent means AVRO. `GET /schemas/types` lists what this server speaks.",
    "examples": ["AVRO", "JSON", "PROTOBUF"],
}
COMPATIBILITY_LEVELS = ["BACKWARD", "BACKWARD_TRANSITIVE", "FORWARD", "FORWARD_TRANSITIVE",
                        "FULL", "FULL_TRANSITIVE", "NONE"]
MODES = ["READWRITE", "READONLY", "READONLY_OVERRIDE", "IMPORT"]
DEK_ALGORITHMS = ["AES128_GCM", "AES256_GCM", "AES256_SIV"]
KMS_PROPS: Schema = {"type": ["object", "null"], "maxProperties": KMS_PROPS_MAX_COUNT,
                     "propertyNames": {"maxLength": KMS_PROP_KEY_MAX_LENGTH},
                     "additionalProperties": {"type": "string", "maxLength": KMS_PROP_VALUE_MAX_LENGTH}}

_RULE: Schema = {
    "type": "object",
    "properties": {
        "name": STRING, "doc": STRING, "kind": {"type": "string", "examples": ["CONDITION", "TRANSFORM"]},
        "mode": {"type": "string", "examples": ["WRITE", "READ", "UPGRADE", "DOWNGRADE", "WRITEREAD"]},
        "type": STRING, "tags": STRINGS, "params": STRING_MAP, "expr": STRING,
        "onSuccess": STRING, "onFailure": STRING, "disabled": BOOLEAN,
    },
}

COMPONENT_SCHEMAS: dict[str, Schema] = {
    "ErrorMessage": {
        "type": "object",
        "description": "Every failure's body, exactly these two keys (Confluent's ErrorMessage).",
        "required": ["error_code", "message"],
        "additionalProperties": False,
        "properties": {
            "error_code": {"type": "integer", "description": "The HTTP status or a Confluent code such as 40401"},
            "message": STRING,
        },
    },
    "SchemaReference": {
        "type": "object",
        "required": ["name", "subject", "version"],
        "properties": {"name": STRING, "subject": STRING, "version": INT32},
    },
    "Metadata": {
        "type": "object",
        "properties": {"tags": {"type": "object", "additionalProperties": STRINGS},
                       "properties": STRING_MAP, "sensitive": STRINGS},
    },
    "Rule": _RULE,
    "RuleSet": {
        "type": "object",
        "properties": {
            "migrationRules": array(ref("Rule")), "domainRules": array(ref("Rule")),
            "encodingRules": array(ref("Rule")), "enableAt": STRING, "enableOnlyAt": STRING,
        },
    },
    "RegisterSchemaRequest": {
        "type": "object",
        "description": "Registration, lookup and compatibility bodies. `schema` is the schema's text.",
        "properties": {
            "schema": nullable("string"),
            "schemaType": {**SCHEMA_TYPE, "type": ["string", "null"]},
            "references": {"type": ["array", "null"], "items": ref("SchemaReference"), "maxItems": 1000},
            "metadata": {"oneOf": [ref("Metadata"), {"type": "null"}]},
            "ruleSet": {"oneOf": [ref("RuleSet"), {"type": "null"}]},
            "id": nullable("integer", format="int32", description="Only in IMPORT mode: the id to use"),
            "version": nullable("integer", format="int32", description="Only in IMPORT mode: the version to use"),
        },
        "examples": [
            {"schema": '{"type":"record","name":"Payment","fields":[{"name":"id","type":"string"}]}'},
            {"schema": '{"type":"object","properties":{"id":{"type":"string"}}}', "schemaType": "JSON"},
            {"schema": 'syntax = "proto3";\nmessage Payment { string id = 1; }', "schemaType": "PROTOBUF"},
        ],
    },
    "Schema": {
        "type": "object",
        "description": "A subject-version with its schema.",
        "required": ["subject", "version", "id"],
        "properties": {
            "subject": STRING, "version": INT32, "id": INT32, "guid": STRING, "schemaType": SCHEMA_TYPE,
            "schema": STRING, "references": array(ref("SchemaReference")), "metadata": ref("Metadata"),
            "ruleSet": ref("RuleSet"), "ts": INT64, "deleted": BOOLEAN, "aliases": STRINGS,
            "associations": array(ref("Association")), "schemaTags": array(ref("SchemaTags")),
        },
    },
    "RegisterSchemaResponse": {
        "type": "object",
        "required": ["id"],
        "properties": {
            "id": INT32, "version": INT32, "guid": STRING, "schemaType": SCHEMA_TYPE, "schema": STRING,
            "references": array(ref("SchemaReference")), "metadata": ref("Metadata"), "ruleSet": ref("RuleSet"),
        },
    },
    "SchemaString": {
        "type": "object",
        "description": "A schema by id or GUID, with one subject-version holding it when there is one.",
        "properties": {
            "schema": STRING, "schemaType": SCHEMA_TYPE, "references": array(ref("SchemaReference")),
            "metadata": ref("Metadata"), "ruleSet": ref("RuleSet"), "guid": STRING, "ts": INT64,
            "deleted": BOOLEAN, "subject": STRING, "version": INT32, "maxId": INT32,
            "schemaTags": array(ref("SchemaTags")),
        },
    },
    "ImpactReferrer": {
        "type": "object",
        "description": "A subject referencing the one asked about; the verdict's fields only for a candidate.",
        "required": ["subject", "depth", "via", "topics"],
        "properties": {
            "subject": STRING, "depth": INT32, "via": STRING, "topics": array(ref("Association")),
            "compatibilityLevel": STRING, "affected": BOOLEAN, "messages": STRINGS,
        },
    },
    "Impact": {
        "type": "object",
        "description": "Extension: what a change to a subject touches; the verdict's fields and the affected "
                       "lists only for a candidate (POST).",
        "required": ["subject", "topics", "referencedBy", "truncated", "maxReferrers"],
        "properties": {
            "subject": STRING, "topics": array(ref("Association")), "referencedBy": array(ref("ImpactReferrer")),
            "truncated": BOOLEAN, "maxReferrers": INT32, "compatibilityLevel": STRING, "affected": BOOLEAN,
            "messages": STRINGS, "affectedSubjects": STRINGS, "affectedTopics": array(ref("Association")),
        },
    },
    "FingerprintSchema": {
        "type": "object",
        "required": ["id"],
        "properties": {
            "id": INT32, "schemaType": SCHEMA_TYPE, "schema": STRING,
            "references": array(ref("SchemaReference")), "metadata": ref("Metadata"), "ruleSet": ref("RuleSet"),
        },
    },
    "SubjectVersion": {
        "type": "object", "required": ["subject", "version"], "properties": {"subject": STRING, "version": INT32},
    },
    "ContextId": {
        "type": "object", "required": ["context", "id"], "properties": {"context": STRING, "id": INT32},
    },
    "CompatibilityCheckResponse": {
        "type": "object",
        "required": ["is_compatible"],
        "properties": {"is_compatible": BOOLEAN, "messages": STRINGS},
    },
    "Config": {
        "type": "object",
        "description": "A subject's, a context's or the server's configuration as read.",
        "properties": {
            "compatibilityLevel": {"type": "string", "enum": COMPATIBILITY_LEVELS},
            "alias": STRING, "normalize": BOOLEAN, "validateFields": BOOLEAN, "validateRules": BOOLEAN,
            "compatibilityGroup": STRING, "defaultMetadata": ref("Metadata"), "overrideMetadata": ref("Metadata"),
            "defaultRuleSet": ref("RuleSet"), "overrideRuleSet": ref("RuleSet"), "aliasForDeks": STRING,
            "validateNewSchemas": BOOLEAN, "compatibilityPolicy": STRING,
        },
    },
    "ConfigUpdateRequest": {
        "type": "object",
        "description": "The fields to set; an explicit null clears one. The reply echoes what was stored.",
        "properties": {
            "compatibility": nullable("string", examples=COMPATIBILITY_LEVELS),
            "alias": nullable("string"), "normalize": nullable("boolean"), "validateFields": nullable("boolean"),
            "validateRules": nullable("boolean"), "compatibilityGroup": nullable("string"),
            "defaultMetadata": {"oneOf": [ref("Metadata"), {"type": "null"}]},
            "overrideMetadata": {"oneOf": [ref("Metadata"), {"type": "null"}]},
            "defaultRuleSet": {"oneOf": [ref("RuleSet"), {"type": "null"}]},
            "overrideRuleSet": {"oneOf": [ref("RuleSet"), {"type": "null"}]},
            "aliasForDeks": nullable("string"), "validateNewSchemas": nullable("boolean"),
            "compatibilityPolicy": nullable("string", examples=["STRICT", "LENIENT"]),
        },
        "examples": [{"compatibility": "FULL"}],
    },
    "ConfigUpdateResponse": {
        "type": "object",
        "properties": {"compatibility": STRING, "alias": STRING, "normalize": BOOLEAN,
                       "validateFields": BOOLEAN, "validateRules": BOOLEAN, "compatibilityGroup": STRING,
                       "defaultMetadata": ref("Metadata"), "overrideMetadata": ref("Metadata"),
                       "defaultRuleSet": ref("RuleSet"), "overrideRuleSet": ref("RuleSet"),
                       "aliasForDeks": STRING, "validateNewSchemas": BOOLEAN, "compatibilityPolicy": STRING},
    },
    "Mode": {
        "type": "object",
        "description": "`{}` when a PUT removed the mode.",
        "properties": {"mode": STRING},
    },
    "ModeUpdateRequest": {
        "type": "object",
        "properties": {"mode": nullable("string", examples=MODES)},
        "examples": [{"mode": "READWRITE"}],
    },
    "TagSchemaRequest": {
        "type": "object",
        "properties": {
            "newVersion": nullable("integer", format="int32"),
            "tagsToAdd": {"type": ["array", "null"], "items": ref("SchemaTags")},
            "tagsToRemove": {"type": ["array", "null"], "items": ref("SchemaTags")},
            "metadata": {"oneOf": [ref("Metadata"), {"type": "null"}]},
            "ruleSet": {"oneOf": [ref("RuleSet"), {"type": "null"}]},
            "rulesToMerge": {"oneOf": [ref("RuleSet"), {"type": "null"}]},
            "rulesToRemove": {"type": ["array", "null"], "items": STRING},
        },
    },
    "SchemaTags": {
        "type": "object",
        "required": ["schemaEntity"],
        "properties": {
            "schemaEntity": {
                "type": "object",
                "required": ["entityPath", "entityType"],
                "properties": {"entityPath": STRING, "entityType": {"type": "string", "enum": ["SR_RECORD", "SR_FIELD"]}},
            },
            "tags": STRINGS,
        },
    },
    "AnyObject": {"type": "object", "description": "Any JSON object; the server ignores its content."},
    "ServerClusterId": {
        "type": "object",
        "properties": {"scope": {"type": "object", "properties": {
            "path": STRINGS, "clusters": {"type": "object", "additionalProperties": STRING}}}},
    },
    "ServerVersion": {"type": "object", "properties": {"version": STRING, "commitId": STRING}},
    "ServerDeployment": {"type": "object", "properties": {"attributes": STRINGS}},
    "HealthStatus": {
        "type": "object",
        "required": ["status"],
        "properties": {"status": {"type": "string", "enum": ["UP", "DOWN"]},
                       "error_code": {"type": "integer"}, "message": STRING},
    },
    "AuditEvent": {
        "type": "object",
        "description": "One recorded change or refused change; keys without a value are left out.",
        "required": ["id", "ts", "principal", "authMethod", "action", "outcome"],
        "properties": {
            "id": INT64, "ts": {"type": "string", "format": "date-time"}, "principal": STRING,
            "authMethod": {"type": "string", "enum": ["basic", "bearer", "mtls", "anonymous", "none"]},
            "remoteAddr": STRING, "forwardedFor": STRING, "userAgent": STRING, "method": STRING, "path": STRING,
            "action": STRING, "context": STRING, "subject": STRING, "version": INT32, "schemaId": INT32,
            "outcome": {"type": "string", "enum": ["success", "denied", "rejected"]},
            "status": {"type": "integer"}, "errorCode": {"type": "integer"}, "detail": {"type": "object"},
        },
    },
    "OpenApiDocument": {"type": "object", "required": ["openapi", "paths"]},
    # Schema policies (our extension): the global document, a subject's or context's selection, a check.
    "PolicyDocument": {
        "type": "object",
        "description": "Named rule sets and the default selection.",
        "properties": {"sets": {"type": "object", "additionalProperties": {"type": "object"}},
                       "default": array(STRING)},
    },
    "PolicySelection": {
        "type": "object",
        "description": "Sets used by a subject or context, and rules of its own; with defaultToGlobal, "
                       "the effective policy and its source.",
        "properties": {"use": array(STRING), "rules": array({"type": "object"}),
                       "source": {"type": "string", "enum": ["subject", "context", "global"]}},
    },
    "PolicyCheck": {
        "type": "object",
        "required": ["violations", "checked", "skipped"],
        "properties": {
            "violations": array({"type": "object", "required": ["rule", "severity", "location", "path", "message"],
                                 "properties": {"rule": STRING, "set": STRING, "severity": STRING,
                                                "location": STRING, "path": STRING, "message": STRING,
                                                "version": INT32}}),
            "checked": array(STRING),
            "skipped": array({"type": "object", "properties": {"rule": STRING, "reason": STRING}}),
        },
    },
    "PolicyRuleInfo": {
        "type": "object",
        "required": ["name", "description", "formats", "params", "source"],
        "properties": {"name": STRING, "description": STRING, "formats": array(STRING),
                       "params": {"type": "object"}, "source": STRING},
    },
    # The DEK registry, as Confluent's entities.
    "Kek": {
        "type": "object",
        "properties": {"name": STRING, "kmsType": STRING, "kmsKeyId": STRING, "kmsProps": STRING_MAP, "doc": STRING,
                       "shared": BOOLEAN, "ts": INT64, "deleted": BOOLEAN},
    },
    "Dek": {
        "type": "object",
        "description": "`keyMaterial` (base64) only for a shared KEK's DEK; it is never stored.",
        "properties": {"kekName": STRING, "subject": STRING, "version": INT32,
                       "algorithm": {"type": "string", "enum": DEK_ALGORITHMS},
                       "encryptedKeyMaterial": STRING, "keyMaterial": STRING, "ts": INT64, "deleted": BOOLEAN},
    },
    "CreateKekRequest": {
        "type": "object",
        "properties": {"name": nullable("string", maxLength=NAME_MAX_LENGTH),
                       "kmsType": nullable("string", maxLength=KMS_TYPE_MAX_LENGTH),
                       "kmsKeyId": nullable("string", maxLength=KMS_KEY_ID_MAX_LENGTH), "kmsProps": KMS_PROPS,
                       "doc": nullable("string", maxLength=DOC_MAX_LENGTH), "shared": nullable("boolean"),
                       "deleted": nullable("boolean")},
    },
    "UpdateKekRequest": {
        "type": "object",
        "properties": {"kmsProps": KMS_PROPS, "doc": nullable("string", maxLength=DOC_MAX_LENGTH),
                       "shared": nullable("boolean")},
    },
    "CreateDekRequest": {
        "type": "object",
        "properties": {"subject": nullable("string"), "version": nullable("integer", format="int32", minimum=1),
                       "algorithm": nullable("string", examples=DEK_ALGORITHMS),
                       "encryptedKeyMaterial": nullable("string", format="byte",
                                                        maxLength=ENCRYPTED_KEY_MATERIAL_MAX_LENGTH),
                       "deleted": nullable("boolean")},
    },
    "Exporter": {
        "type": "object",
        "description": "A schema exporter: which subjects it copies, under which names and context, and where "
                       "(`config`: the target's `schema.registry.url` and credentials; secrets come back masked).",
        "properties": {"name": STRING, "subjects": array(STRING),
                       "contextType": {"type": "string", "enum": ["AUTO", "CUSTOM", "NONE"]},
                       "context": STRING, "subjectRenameFormat": nullable("string"), "config": STRING_MAP},
    },
    "ExporterName": {"type": "object", "required": ["name"], "properties": {"name": STRING}},
    "ExporterStatus": {
        "type": "object",
        "required": ["name", "state", "offset", "ts"],
        "properties": {"name": STRING, "state": {"type": "string", "enum": ["STARTING", "RUNNING", "PAUSED", "ERROR"]},
                       "offset": INT64, "ts": INT64, "trace": STRING},
    },
    "ExporterConfig": STRING_MAP,
}
