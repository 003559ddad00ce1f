"""Errors raised by the client, each carrying the registry's `error_code` and `http_status`.

The registry answers failures with `{"error_code": N, "message": "..."}`; `error_for` turns
one into the subclass for N, so callers catch `SchemaNotFound` rather than compare numbers.
Failures that never reached a registry (every URL down, timeouts) are `RegistryUnavailable`,
with `http_status` None, so they are never confused with an answer.
"""
from __future__ import annotations

from typing import Any


class RegistryClientError(Exception):
    """Anything the client raises about talking to the registry."""

    error_code: int | None = None
    http_status: int | None = None

    def __init__(self, message: str, *, error_code: int | None = None, http_status: int | None = None):
        super().__init__(message)
        self.message = message
        if error_code is not None:
            self.error_code = error_code
        if http_status is not None:
            self.http_status = http_status

    def __str__(self) -> str:
        if self.error_code is None:
            return self.message
        return f"{self.message} (error_code {self.error_code}, HTTP {self.http_status})"


class RegistryUnavailable(RegistryClientError):
    """No registry answered: connection refused or reset, timeout, after every retry."""


class RegistryServerError(RegistryClientError):
    """A 5xx answer that persisted through every retry."""


class RegistryRequestError(RegistryClientError):
    """A 4xx answer: the request itself is wrong, so it is never retried."""


class SubjectNotFound(RegistryRequestError):
    error_code, http_status = 40401, 404


class VersionNotFound(RegistryRequestError):
    error_code, http_status = 40402, 404


class SchemaNotFound(RegistryRequestError):
    error_code, http_status = 40403, 404


class IncompatibleSchema(RegistryRequestError):
    """409: 40901 from current registries, plain 409 from 7.x ones."""

    error_code, http_status = 40901, 409


class InvalidSchema(RegistryRequestError):
    error_code, http_status = 42201, 422


class InvalidVersion(RegistryRequestError):
    error_code, http_status = 42202, 422


class OperationNotPermitted(RegistryRequestError):
    error_code, http_status = 42205, 422


class ReferenceExists(RegistryRequestError):
    error_code, http_status = 42206, 422


class SerializationError(Exception):
    """A record could not be framed or encoded, or bytes could not be decoded."""


class RecordInvalid(SerializationError):
    """A record broke its schema's rules (JSON Schema validation), on the way out or in.

    `path` is the JSON pointer of the offending value in the record (`""`: the record itself),
    `keyword` the rule it broke (`required`, `maximum`, ...) and `schema_path` the pointer to
    that rule in the schema, so a producer can log what to fix without parsing the message.
    """

    def __init__(self, message: str, *, path: str, keyword: str, schema_path: str) -> None:
        super().__init__(message)
        self.path = path
        self.keyword = keyword
        self.schema_path = schema_path


class RuleFailed(SerializationError):
    """A data-contract rule refused a record or could not run (`app.client.rules`).

    `rule`, `subject`, `version` and `mode` (WRITE, READ, UPGRADE, DOWNGRADE) say which rule
    of which schema failed where; the executor's own exception, if any, is `__cause__`.
    A `SerializationError`, so that handlers written before data contracts still catch it.
    """

    def __init__(self, message: str, *, rule: str, subject: str | None, version: int | None, mode: str) -> None:
        super().__init__(message)
        self.rule = rule
        self.subject = subject
        self.version = version
        self.mode = mode


class RulesUnavailable(SerializationError):
    """A schema's rules need a library that is not installed (`pip install 'sqlregistry[rules]'`),
    or a KMS type no driver is registered for: the record is refused rather than written or
    read without its rules."""


_BY_CODE: dict[int, type[RegistryRequestError]] = {
    cls.error_code: cls  # type: ignore[misc]
    for cls in (SubjectNotFound, VersionNotFound, SchemaNotFound, IncompatibleSchema, InvalidSchema,
                InvalidVersion, OperationNotPermitted, ReferenceExists)
}
_BY_CODE[409] = IncompatibleSchema


def error_for(http_status: int, body: Any, fallback_text: str) -> RegistryClientError:
    """The exception for an error reply; a body that is not Confluent's error JSON keeps
    the HTTP status as its code, as the framework's own errors do."""
    if isinstance(body, dict) and isinstance(body.get("error_code"), int):
        code = body["error_code"]
        message = str(body.get("message") or fallback_text)
    else:
        code, message = http_status, fallback_text or f"HTTP {http_status}"
    if http_status >= 500:
        return RegistryServerError(message, error_code=code, http_status=http_status)
    cls = _BY_CODE.get(code, RegistryRequestError)
    return cls(message, error_code=code, http_status=http_status)
