"""The DEK registry's errors, with the codes and wording of Confluent's `DekRegistryErrors`:
its clients branch on the HTTP status (a 404 means "create it", a 409 "someone else did")."""
from __future__ import annotations

from app.core.errors import RegistryError


class KeyNotFound(RegistryError):
    """A KEK, or a DEK of a subject: Confluent names either by the one missing."""

    http_status, error_code = 404, 40470

    @classmethod
    def named(cls, name: str) -> KeyNotFound:
        return cls(f"Key '{name}' not found")


class KeyNotSoftDeleted(RegistryError):
    http_status, error_code = 404, 40471

    @classmethod
    def named(cls, name: str) -> KeyNotSoftDeleted:
        return cls(f"Key '{name}' was not deleted first before being permanently deleted")


class KeySoftDeleted(RegistryError):
    """Undeleting a DEK whose KEK is itself deleted."""

    http_status, error_code = 404, 40472

    @classmethod
    def named(cls, name: str) -> KeySoftDeleted:
        return cls(f"Key '{name}' must be undeleted first")


class KeyAlreadyExists(RegistryError):
    http_status, error_code = 409, 40971

    @classmethod
    def named(cls, name: str) -> KeyAlreadyExists:
        return cls(f"Key '{name}' already exists; use a different value")


class InvalidKey(RegistryError):
    """A missing or malformed field; Confluent's message is the field's name alone."""

    http_status, error_code = 422, 42271


class KeyReferenceExists(RegistryError):
    """A KEK that still wraps DEKs cannot be deleted."""

    http_status, error_code = 422, 42272

    @classmethod
    def named(cls, name: str) -> KeyReferenceExists:
        return cls(f"One or more references exist to the key {name}")


class DekGenerationFailed(RegistryError):
    """The KMS could not wrap or unwrap a shared KEK's DEK (Confluent's 50070): the server's
    KMS setup is wrong, not the request."""

    http_status, error_code = 500, 50070
