"""The registry's errors, each carrying Confluent's HTTP status and error code.

Every failure a client can provoke is one of these; `app/api/errors.py` turns them into
`{"error_code": N, "message": "..."}` in one place. Numbers and message templates follow
Confluent's `Errors.java` so that clients (which sometimes branch on `error_code`) and humans
reading logs see what they would see with the reference registry.
"""
from __future__ import annotations


class RegistryError(Exception):
    http_status: int = 500
    error_code: int = 500

    def __init__(self, message: str, *, error_code: int | None = None, http_status: int | None = None):
        super().__init__(message)
        self.message = message
        if error_code is not None:
            self.error_code = error_code
        if http_status is not None:
            self.http_status = http_status


# -- framework-level errors: the HTTP status doubles as the error code ------------------
class BadRequest(RegistryError):
    http_status, error_code = 400, 400


class EndpointNotFound(RegistryError):
    http_status, error_code = 404, 404


class NotAcceptable(RegistryError):
    http_status, error_code = 406, 406


class PayloadTooLarge(RegistryError):
    """A request body over `REGISTRY_MAX_REQUEST_BYTES`, refused before it is read."""

    http_status, error_code = 413, 413

    @classmethod
    def for_size(cls, size: int, limit: int) -> PayloadTooLarge:
        return cls(f"Request body of {size} bytes exceeds the limit of {limit} bytes")


class UnsupportedMediaType(RegistryError):
    http_status, error_code = 415, 415


class UnprocessableEntity(RegistryError):
    http_status, error_code = 422, 422


# -- 403 -------------------------------------------------------------------------------------
class Forbidden(RegistryError):
    """Refused by the authorizer (Confluent's RBAC answers 403 with 40301)."""

    http_status, error_code = 403, 40301

    @classmethod
    def for_subject(cls, operation: str, subject: str) -> Forbidden:
        """Confluent's security plugin's wording: `operation` is `Read`, `Write` or `Admin`,
        `subject` qualified outside the default context."""
        return cls(f"User is denied operation {operation} on Subject: {subject}")

    @classmethod
    def for_kek(cls, operation: str, name: str) -> Forbidden:
        """A KEK the caller holds no grant on with that role (Confluent binds KEK roles on
        `Kek:<name>`)."""
        return cls(f"User is denied operation {operation} on Kek: {name}")

    @classmethod
    def for_context_admin(cls, context: str) -> Forbidden:
        """An explicit schema id (IMPORT) from a caller whose admin grant stops short of the
        whole context: ids are the context's, shared by all of its subjects."""
        return cls(f"User is denied operation Admin on context {context}: registering with an explicit schema id "
                   "needs an admin grant on every subject of the context, or a global one")

    @classmethod
    def for_server(cls) -> Forbidden:
        """A global operation (the server's or a context's settings, a context delete)."""
        return cls("User is denied operation on this server.")


# -- 404 -------------------------------------------------------------------------------------
class SubjectNotFound(RegistryError):
    http_status, error_code = 404, 40401

    @classmethod
    def for_subject(cls, subject: str) -> SubjectNotFound:
        return cls(f"Subject '{subject}' not found.")


class VersionNotFound(RegistryError):
    http_status, error_code = 404, 40402

    @classmethod
    def for_version(cls, version: int | str) -> VersionNotFound:
        return cls(f"Version {version} not found.")


class SchemaNotFound(RegistryError):
    http_status, error_code = 404, 40403

    @classmethod
    def for_id(cls, schema_id: int | str) -> SchemaNotFound:
        return cls(f"Schema {schema_id} not found")

    @classmethod
    def generic(cls) -> SchemaNotFound:
        return cls("Schema not found")


class SubjectSoftDeleted(RegistryError):
    http_status, error_code = 404, 40404

    @classmethod
    def for_subject(cls, subject: str) -> SubjectSoftDeleted:
        return cls(f"Subject '{subject}' was soft deleted.Set permanent=true to delete permanently")


class SubjectNotSoftDeleted(RegistryError):
    http_status, error_code = 404, 40405

    @classmethod
    def for_subject(cls, subject: str) -> SubjectNotSoftDeleted:
        return cls(f"Subject '{subject}' was not deleted first before being permanently deleted")


class SchemaVersionSoftDeleted(RegistryError):
    http_status, error_code = 404, 40406

    @classmethod
    def for_version(cls, subject: str, version: int) -> SchemaVersionSoftDeleted:
        return cls(f"Subject '{subject}' Version {version} was soft deleted.Set permanent=true to delete permanently")


class SchemaVersionNotSoftDeleted(RegistryError):
    http_status, error_code = 404, 40407

    @classmethod
    def for_version(cls, subject: str, version: int) -> SchemaVersionNotSoftDeleted:
        return cls(
            f"Subject '{subject}' Version {version} was not deleted first before being permanently deleted"
        )


class SubjectCompatibilityNotConfigured(RegistryError):
    http_status, error_code = 404, 40408

    @classmethod
    def for_subject(cls, subject: str) -> SubjectCompatibilityNotConfigured:
        return cls(f"Subject '{subject}' does not have subject-level compatibility configured")


class SubjectModeNotConfigured(RegistryError):
    http_status, error_code = 404, 40409

    @classmethod
    def for_subject(cls, subject: str) -> SubjectModeNotConfigured:
        return cls(f"Subject '{subject}' does not have subject-level mode configured")


class PolicyNotFound(RegistryError):
    """40450, our extension: a subject or context without a policy selection of its own."""

    http_status, error_code = 404, 40450

    @classmethod
    def for_subject(cls, subject: str) -> PolicyNotFound:
        return cls(f"Subject '{subject}' does not have a subject-level policy selection")


# -- 409 -------------------------------------------------------------------------------------
class IncompatibleSchema(RegistryError):
    """40901 as current Confluent sends it; registration raises it with the code from
    settings (`incompatible_error_code`), which may be the 7.x value 409."""

    http_status, error_code = 409, 40901


# -- 422 -------------------------------------------------------------------------------------
class InvalidSchema(RegistryError):
    http_status, error_code = 422, 42201


class WorkBudgetSpent(InvalidSchema):
    """The request's work (parsing, checking, diffing) outran its time budget
    (`REGISTRY_WORK_BUDGET_SECONDS`, app/formats/work_budget.py): refused with 42201 like the
    format's refusal it comes from, but it says nothing about the schema, so a verbose
    compatibility check does not report it as an incompatibility, and the web UI answers 503."""


class InvalidVersion(RegistryError):
    http_status, error_code = 422, 42202

    @classmethod
    def for_value(cls, value: str) -> InvalidVersion:
        return cls(
            f"The specified version '{value}' is not a valid version id. Allowed values are between "
            "[1, 2^31-1] and the string \"latest\""
        )


class InvalidFingerprint(RegistryError):
    """A `/schemas/fingerprints/{hex}` lookup with an unknown algorithm or a malformed digest."""

    http_status, error_code = 422, 42202


class InvalidCompatibilityLevel(RegistryError):
    http_status, error_code = 422, 42203


class InvalidMode(RegistryError):
    http_status, error_code = 422, 42204


class OperationNotPermitted(RegistryError):
    """42205. The mode messages name the subject and its context as Confluent prints them:
    the qualified subject (`null` for the global row) and the context qualifier, which is
    empty for the default context."""

    http_status, error_code = 422, 42205

    @classmethod
    def read_only(cls, subject: str, context: str) -> OperationNotPermitted:
        return cls(f"Subject {subject or 'null'} in context {context} is in read-only mode")

    @classmethod
    def not_import(cls, subject: str, context: str) -> OperationNotPermitted:
        return cls(f"Subject {subject} in context {context} is not in import mode")

    @classmethod
    def not_read_write(cls, subject: str, context: str) -> OperationNotPermitted:
        return cls(f"Subject {subject} in context {context} is not in read-write mode")


class ReferenceExists(RegistryError):
    """42206. Confluent names the blocked subject-version by its store key's text."""

    http_status, error_code = 422, 42206

    @classmethod
    def for_version(cls, subject: str, version: int) -> ReferenceExists:
        return cls(
            "One or more references exist to the schema "
            f"{{magic=1,keytype=SCHEMA,subject={subject},version={version}}}."
        )


class InvalidSubject(RegistryError):
    http_status, error_code = 422, 42208

    @classmethod
    def for_subject(cls, subject: str) -> InvalidSubject:
        return cls(f"The specified subject '{subject}' is not a valid.")


class SchemaTooLarge(RegistryError):
    http_status, error_code = 422, 42209


class InvalidRuleSet(RegistryError):
    http_status, error_code = 422, 42210


class ContextNotEmpty(RegistryError):
    http_status, error_code = 422, 42211

    @classmethod
    def for_context(cls, context: str) -> ContextNotEmpty:
        return cls(f"The specified context '{context}' is not empty.")


class InvalidPolicy(RegistryError):
    """42250, our extension (INVALID_POLICY): a policy document that cannot be stored; the
    message names its first problem."""

    http_status, error_code = 422, 42250


# -- 500 -------------------------------------------------------------------------------------
class StoreError(RegistryError):
    http_status, error_code = 500, 50001

    @classmethod
    def backend(cls) -> StoreError:
        """The database failed or cannot be reached (the reply names no internals)."""
        return cls("Error in the backend data store")


class OperationTimeout(RegistryError):
    """50002: the database did not answer in time (connect timeout, lock wait, busy SQLite file)."""

    http_status, error_code = 500, 50002

    @classmethod
    def backend(cls) -> OperationTimeout:
        return cls("Operation timed out")


class WriteConflict(Exception):
    """A concurrent writer won a race (unique key, deadlock, busy database): storage raises
    it and the core retries the whole transaction. Not a `RegistryError`: it never reaches
    a client unless the retries run out (then it becomes a `StoreError`)."""


class IdsExhausted(StoreError):
    """A context has used every id a Java client can hold (ids are Java ints)."""

    @classmethod
    def for_context(cls, context: str) -> IdsExhausted:
        return cls(f"No schema id left in context {context}: ids stop at 2147483647")
