"""Query parameters and JSON bodies, parsed the way Confluent's JAX-RS/Jackson stack does.

Why these rules:
* booleans are true only for `true` in any case, because the Python client sends `True`;
* an integer query or path parameter that does not parse as a Java `Integer` (a number
  outside 32 bits included) is 404/404 "HTTP 404 Not Found": JAX-RS cannot build the
  resource method's arguments, so the resource "does not exist" (Jersey's ParamException,
  mapped by rest-utils with the HTTP status as the code). Jersey reports it after content
  negotiation, so a bad `Accept` still wins (406);
* a subject, in the path or in `?subject=`, must be UTF-8: undecodable bytes are refused
  (42208) rather than replaced, which would make two spellings name one subject;
* a body that is not JSON is 400 with the parser's text, a JSON value of the wrong type
  is 400 too, a missing body is 422, and unknown properties are ignored;
* a body holding a string (a value or a key, at any depth) that cannot be stored, NUL or a
  lone surrogate from a `\\ud800` escape (app/core/storable_text.py), is 400/400 naming
  where: such a body is closest to one that is not JSON at all (Confluent answers 400 for
  those; Jackson itself would accept the escape and its store would mangle it), whereas
  42201 says the schema is invalid, and the refusal is the same whichever field holds the
  string. A schema text that spells `\\u0000` as an escape holds six ordinary characters
  and stays accepted (the format decides what they mean);
* a body's size and nesting are bounded before it is parsed (app/api/limits.py): 413 past
  `REGISTRY_MAX_REQUEST_BYTES`, 400 past 64 levels; the schema text's own size (42209) and
  nesting (42201) are the core's to judge.
"""
from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any
from urllib.parse import unquote_to_bytes

from flask import request
from werkzeug.datastructures import ImmutableMultiDict, MultiDict
from werkzeug.exceptions import HTTPException

from app.api.limits import check_body_depth
from app.core.dek.errors import InvalidKey
from app.core.dek.records import DekRequest, KekChanges, KekRequest
from app.core.errors import (
    BadRequest,
    EndpointNotFound,
    InvalidSubject,
    UnprocessableEntity,
)
from app.core.reads.found_tags import QUALIFIED, wanted_tags
from app.core.storable_text import first_flaw
from app.core.registration.tags import TagRequest
from app.core.types import SchemaRequest
from app.formats.base import (
    DEFAULT_SCHEMA_TYPE,
    FIELD_ENTITY,
    RECORD_ENTITY,
    EntityTags,
)

_INTEGER = re.compile(r"[+-]?\d+")
_NO_ARGS: ImmutableMultiDict[str, str] = ImmutableMultiDict()
# Java `Integer` bounds: path ids, query integers and body ints all parse as one.
INT32_MIN, INT32_MAX = -(2**31), 2**31 - 1


# ------------------------------------------------------------------ query parameters
def _args() -> MultiDict[str, str]:
    """The query parameters; the hot reads usually have none, and parsing nothing still costs."""
    return request.args if request.query_string else _NO_ARGS


def flag(name: str) -> bool:
    value = _args().get(name)
    return value is not None and value.lower() == "true"


def _java_integer(value: str) -> int:
    """`Integer.valueOf` as Jersey applies it to a parameter; 404 when it would throw."""
    if _INTEGER.fullmatch(value):
        number = int(value)
        if INT32_MIN <= number <= INT32_MAX:
            return number
    raise EndpointNotFound("HTTP 404 Not Found")


def integer(name: str, default: int) -> int:
    value = _args().get(name)
    if value is None or not value.strip():
        return default
    return _java_integer(value.strip())


def schema_id(segment: str) -> int:
    """The `{id}` of `/schemas/ids/{id}...`."""
    return _java_integer(segment)


def page() -> tuple[int, int]:
    """`offset` (default 0) and `limit` (default -1: the service's default limit)."""
    return integer("offset", 0), integer("limit", -1)


def text(name: str) -> str | None:
    """A string parameter; absent and empty both mean "not given"."""
    return _args().get(name) or None


def texts(name: str) -> list[str]:
    """A repeatable string parameter's values, in order; empty ones mean "not given"."""
    return [value for value in _args().getlist(name) if value]


def read_options() -> tuple[frozenset[str], bool]:
    """A schema read's `findTags` (split at commas) and whether `referenceFormat=qualified`;
    also read as `reference_format`, which confluent-kafka's Python client sends."""
    return wanted_tags(texts("findTags")), QUALIFIED in (text("referenceFormat"), text("reference_format"))


def subject_hint() -> str | None:
    """`?subject=` of the schema-by-id reads, refused when it is not UTF-8 (42208)."""
    value = _args().get("subject") or None
    # Werkzeug leaves an escape that is not UTF-8 as it was (`%FF` stays those three
    # characters), so any `%` left in the value means looking at the bytes sent.
    if value is not None and "%" in value:
        require_utf8_subject(_raw_query_value("subject").decode("utf-8", "surrogateescape"))
    return value


def _raw_query_value(name: str) -> bytes:
    """The first value of `name` in the query string as the client's bytes."""
    key = name.encode("ascii")
    for part in request.query_string.split(b"&"):
        raw_key, _, raw_value = part.partition(b"=")
        if unquote_to_bytes(raw_key.replace(b"+", b" ")) == key:
            return unquote_to_bytes(raw_value.replace(b"+", b" "))
    return b""


def check_parameters() -> None:
    """The API's `before_request` hook after the media types: a subject path parameter that
    is not UTF-8 is invalid (42208) at every endpoint naming one, and a query string that is
    not UTF-8 (raw bytes, which Werkzeug cannot decode) is a 400 rather than a crash later."""
    view_args = request.view_args
    subject = view_args.get("subject") if view_args else None
    if subject is not None:
        require_utf8_subject(subject)
    try:
        request.query_string.decode("utf-8")
    except UnicodeDecodeError:
        raise BadRequest("The query string is not valid UTF-8") from None


def require_utf8_subject(subject: str) -> None:
    """42208 for a subject holding lone surrogates (bytes that were not UTF-8), shown escaped."""
    try:
        subject.encode("utf-8")
    except UnicodeEncodeError:
        shown = subject.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")
        raise InvalidSubject(f"The specified subject '{shown}' is not valid UTF-8.") from None


def metadata_pairs() -> dict[str, str]:
    """`key`/`value` of `/subjects/{s}/metadata`, paired by position as Confluent does: an
    unpaired extra is dropped, a repeated key keeps its last value."""
    return dict(zip(request.args.getlist("key"), request.args.getlist("value")))


def subject_prefix() -> str | None:
    """`subjectPrefix` of `/subjects`, as sent: absent (None) means every context, while an
    empty value is a given (empty) prefix."""
    return request.args.get("subjectPrefix")


# ------------------------------------------------------------------ bodies
def _reject_constant(name: str) -> Any:
    raise ValueError(f"Non-standard token '{name}'")


def read_body(required: bool = True) -> dict[str, Any] | None:
    """The request body as a JSON object; None when absent (only allowed if not required)."""
    document = read_json(required)
    if document is not None and not isinstance(document, dict):
        raise BadRequest(f"Request body must be a JSON object, not {_json_type(document)}")
    return document


def read_json(required: bool = True) -> Any:
    """The request body as any JSON value (a policy document that is not an object is the
    document's problem, 42250, not the request's); None when absent."""
    try:
        # The size limit middleware has bounded the body (and given a chunked one its length).
        data = request.stream.read()
    except HTTPException:
        raise
    except Exception as exc:  # noqa: BLE001 - the server's reader refuses the client's framing
        # (gunicorn raises its own parse errors for a truncated body): the request is bad.
        raise BadRequest(f"The request body could not be read: {exc}") from None
    document = json_document(data)
    if document is None and required:
        raise UnprocessableEntity("Request body is missing")
    return document


def json_document(data: bytes) -> Any:
    """A body's JSON value, None for an empty body; 400 for anything that is not JSON."""
    if not data.strip():
        return None
    check_body_depth(data)
    try:
        document = json.loads(data, parse_constant=_reject_constant)
    except (ValueError, RecursionError) as exc:  # JSONDecodeError and UnicodeDecodeError are ValueErrors
        raise BadRequest(f"Invalid JSON: {exc}") from None
    # Cheap for the common body (a few keys and one long ASCII schema text): an ASCII string
    # costs a NUL search and an `isascii`, both in C.
    flaw = first_flaw(document)
    if flaw is not None:
        what = "key" if flaw.in_key else "value"
        raise BadRequest(f"Invalid {what} at '{flaw.path or '(the body)'}': the string {flaw.problem}")
    return document


def _json_type(value: Any) -> str:
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "an array"
    if isinstance(value, dict):
        return "an object"
    return "null"


def _mismatch(path: str, expected: str, value: Any) -> BadRequest:
    return BadRequest(f"Invalid value at '{path}': expected {expected}, got {_json_type(value)}")


# Field readers: each takes (value, path) and returns the checked value; None passes through
# because Jackson treats an explicit null like an absent property.
Reader = Callable[[Any, str], Any]


def _string(value: Any, path: str) -> str | None:
    if value is None or isinstance(value, str):
        return value
    raise _mismatch(path, "a string", value)


def _boolean(value: Any, path: str) -> bool | None:
    if value is None or isinstance(value, bool):
        return value
    raise _mismatch(path, "a boolean", value)


def _int32(value: Any, path: str) -> int | None:
    """Jackson's `Integer`: accepts integral numbers and numeric strings, within 32 bits."""
    if value is None:
        return None
    number: int | None = None
    if isinstance(value, bool):
        number = None
    elif isinstance(value, int):
        number = value
    elif isinstance(value, float) and value.is_integer():
        number = int(value)
    elif isinstance(value, str) and _INTEGER.fullmatch(value.strip()):
        number = int(value.strip())
    if number is None or not INT32_MIN <= number <= INT32_MAX:
        raise _mismatch(path, "a 32-bit integer", value)
    return number


def _dek_version(value: Any) -> int | None:
    """A DEK's `version`: a JSON integer only (its range is the service's to check). Unlike
    `_int32`, no numeric string: a key's version is never written as text by a client, and a
    string here is a client's bug to report (42271), not to guess at."""
    if value is None or (isinstance(value, int) and not isinstance(value, bool)):
        return value
    raise InvalidKey("version")


def _string_list(value: Any, path: str) -> list[str] | None:
    if value is None:
        return None
    if not isinstance(value, list):
        raise _mismatch(path, "an array of strings", value)
    return [_required_string(item, f"{path}[{i}]") for i, item in enumerate(value)]


def _required_string(value: Any, path: str) -> str:
    if isinstance(value, str):
        return value
    raise _mismatch(path, "a string", value)


def _string_map(value: Any, path: str) -> dict[str, str] | None:
    if value is None:
        return None
    if not isinstance(value, dict):
        raise _mismatch(path, "an object of strings", value)
    return {k: _required_string(v, f"{path}.{k}") for k, v in value.items()}


def _object(fields: dict[str, Reader]) -> Reader:
    """A reader for a JSON object with known fields: unknown ones are dropped, nulls kept out."""

    def read(value: Any, path: str) -> dict[str, Any] | None:
        if value is None:
            return None
        if not isinstance(value, dict):
            raise _mismatch(path, "an object", value)
        out = {}
        for key, reader in fields.items():
            item = reader(value.get(key), f"{path}.{key}")
            if item is not None:
                out[key] = item
        return out

    return read


def _list_of(reader: Reader) -> Reader:
    """A reader for a JSON array; null items are passed to `reader` like any other value."""

    def read(value: Any, path: str) -> list[Any] | None:
        if value is None:
            return None
        if not isinstance(value, list):
            raise _mismatch(path, "an array", value)
        items = (reader(item, f"{path}[{i}]") for i, item in enumerate(value))
        return [item for item in items if item is not None]

    return read


def _tags(value: Any, path: str) -> dict[str, list[str]] | None:
    if value is None:
        return None
    if not isinstance(value, dict):
        raise _mismatch(path, "an object of string arrays", value)
    return {k: _string_list(v, f"{path}.{k}") or [] for k, v in value.items()}


_metadata = _object({"tags": _tags, "properties": _string_map, "sensitive": _string_list})
_rule = _object({
    "name": _string, "doc": _string, "kind": _string, "mode": _string, "type": _string,
    "tags": _string_list, "params": _string_map, "expr": _string,
    "onSuccess": _string, "onFailure": _string, "disabled": _boolean,
})
_rule_set = _object({
    "migrationRules": _list_of(_rule), "domainRules": _list_of(_rule), "encodingRules": _list_of(_rule),
    "enableAt": _string, "enableOnlyAt": _string,
})
_reference_fields = _object({"name": _string, "subject": _string, "version": _int32})


def _reference(value: Any, path: str) -> dict[str, Any]:
    """A null reference becomes an empty one, which the core rejects as an invalid reference."""
    return _reference_fields(value, path) or {}


def schema_request(body: dict[str, Any]) -> SchemaRequest:
    """A register / lookup / compatibility body (Confluent's RegisterSchemaRequest), checked at the
    JSON level only."""
    references = _list_of(_reference)(body.get("references"), "references") or []
    return SchemaRequest(
        schema=_string(body.get("schema"), "schema"),
        schema_type=_string(body.get("schemaType"), "schemaType") or DEFAULT_SCHEMA_TYPE,
        references=references,
        metadata=_metadata(body.get("metadata"), "metadata"),
        rule_set=_rule_set(body.get("ruleSet"), "ruleSet"),
        id=_int32(body.get("id"), "id"),
        version=_int32(body.get("version"), "version"),
        sent_keys=tuple(body),
    )


# Confluent's ConfigUpdateRequest. `compatibilityLevel` is not among them: Confluent ignores it on PUT.
_CONFIG_FIELDS: dict[str, Reader] = {
    "compatibility": _string,
    "alias": _string,
    "normalize": _boolean,
    "validateFields": _boolean,
    "validateRules": _boolean,
    "compatibilityGroup": _string,
    "defaultMetadata": _metadata,
    "overrideMetadata": _metadata,
    "defaultRuleSet": _rule_set,
    "overrideRuleSet": _rule_set,
    "aliasForDeks": _string,
    "validateNewSchemas": _boolean,
    "compatibilityPolicy": _string,
}


def config_changes(body: dict[str, Any]) -> dict[str, Any]:
    """The fields a config PUT sets: absent keys are left out, explicit nulls kept (they clear)."""
    return {key: reader(body[key], key) for key, reader in _CONFIG_FIELDS.items() if key in body}


def mode_value(body: dict[str, Any]) -> str | None:
    """The `mode` of a mode PUT; None (absent or null) removes the stored mode."""
    return _string(body.get("mode"), "mode")


# ------------------------------------------------------------------ tag edits
_ENTITY_TYPES = (RECORD_ENTITY, FIELD_ENTITY)


def _schema_tags(value: Any, path: str) -> EntityTags:
    """One SchemaTags item. Jackson cannot build a SchemaEntity without a path or with an
    unknown type, and a null item breaks Confluent later with a 500; all are 400 here."""
    if not isinstance(value, dict):
        raise _mismatch(path, "an object", value)
    entity = value.get("schemaEntity")
    if not isinstance(entity, dict):
        raise _mismatch(f"{path}.schemaEntity", "an object", entity)
    entity_path = entity.get("entityPath")
    if not isinstance(entity_path, str):
        raise _mismatch(f"{path}.schemaEntity.entityPath", "a string", entity_path)
    entity_type = entity.get("entityType")
    if entity_type not in _ENTITY_TYPES:
        raise BadRequest(
            f"Invalid value at '{path}.schemaEntity.entityType': expected one of {', '.join(_ENTITY_TYPES)}"
        )
    tags = _string_list(value.get("tags"), f"{path}.tags") or []
    return EntityTags(entity_path, entity_type, tuple(tags))


def tag_request(body: dict[str, Any]) -> TagRequest:
    """A TagSchemaRequest body, checked at the JSON level only; unknown fields are ignored."""
    entities = _list_of(_schema_tags)
    to_remove = _string_list(body.get("rulesToRemove"), "rulesToRemove")
    return TagRequest(
        new_version=_int32(body.get("newVersion"), "newVersion"),
        tags_to_add=tuple(entities(body.get("tagsToAdd"), "tagsToAdd") or ()),
        tags_to_remove=tuple(entities(body.get("tagsToRemove"), "tagsToRemove") or ()),
        metadata=_metadata(body.get("metadata"), "metadata"),
        rule_set=_rule_set(body.get("ruleSet"), "ruleSet"),
        rules_to_merge=_rule_set(body.get("rulesToMerge"), "rulesToMerge"),
        rules_to_remove=tuple(to_remove) if to_remove is not None else None,
    )


# ------------------------------------------------------------------ the DEK registry's bodies
def kek_request(body: dict[str, Any]) -> KekRequest:
    """CreateKekRequest; the service says which required field is missing (42271)."""
    return KekRequest(
        name=_string(body.get("name"), "name"),
        kms_type=_string(body.get("kmsType"), "kmsType"),
        kms_key_id=_string(body.get("kmsKeyId"), "kmsKeyId"),
        kms_props=_string_map(body.get("kmsProps"), "kmsProps"),
        doc=_string(body.get("doc"), "doc"),
        shared=bool(_boolean(body.get("shared"), "shared")),
        deleted=bool(_boolean(body.get("deleted"), "deleted")),
    )


def kek_changes(body: dict[str, Any]) -> KekChanges:
    """UpdateKekRequest: the fields a KEK's PUT may change."""
    return KekChanges(
        kms_props=_string_map(body.get("kmsProps"), "kmsProps"),
        doc=_string(body.get("doc"), "doc"),
        shared=_boolean(body.get("shared"), "shared"),
    )


def dek_request(body: dict[str, Any], subject: str | None = None) -> DekRequest:
    """CreateDekRequest; `subject` from the path wins over the body's (`POST .../deks/{subject}`)."""
    return DekRequest(
        subject=subject if subject is not None else _string(body.get("subject"), "subject"),
        version=_dek_version(body.get("version")),
        algorithm=_string(body.get("algorithm"), "algorithm"),
        encrypted_key_material=_string(body.get("encryptedKeyMaterial"), "encryptedKeyMaterial"),
        deleted=bool(_boolean(body.get("deleted"), "deleted")),
    )
