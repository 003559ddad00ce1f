"""The Associations API's errors, with Confluent's codes and wording (its `Errors` class).

Confluent's 40902 (too many associations) is documented but never answered by its registry;
this registry has no such limit either, so it has no such error.
"""
from __future__ import annotations

from app.core.errors import RegistryError


class InvalidAssociation(RegistryError):
    http_status, error_code = 422, 42212

    @classmethod
    def property(cls, name: str, detail: str) -> InvalidAssociation:
        return cls(f"The association specified an invalid value for property: '{name}', detail: {detail}")


class AssociationNotFound(RegistryError):
    http_status, error_code = 404, 40410

    @classmethod
    def for_resource(cls, resource: str) -> AssociationNotFound:
        return cls(f"Association for '{resource}' not found.")


class AssociationForResourceExists(RegistryError):
    http_status, error_code = 409, 40903

    @classmethod
    def of_type(cls, association_type: str, resource: str) -> AssociationForResourceExists:
        return cls(f"An association of type '{association_type}' already exists for resource '{resource}'")


class AssociationForSubjectExists(RegistryError):
    http_status, error_code = 409, 40904

    @classmethod
    def for_subject(cls, subject: str) -> AssociationForSubjectExists:
        return cls(f"An association already exists for subject '{subject}'")


class StrongAssociationForSubjectExists(RegistryError):
    http_status, error_code = 409, 40905

    @classmethod
    def for_subject(cls, subject: str) -> StrongAssociationForSubjectExists:
        return cls(f"A strong association already exists for subject '{subject}'")


class NoActiveSubjectVersion(RegistryError):
    http_status, error_code = 409, 40907

    @classmethod
    def for_subject(cls, subject: str) -> NoActiveSubjectVersion:
        return cls(f"No active (non-deleted) version exists for subject '{subject}'")


class AssociationFrozen(RegistryError):
    http_status, error_code = 409, 40908

    @classmethod
    def of_type(cls, association_type: str, subject: str) -> AssociationFrozen:
        # Confluent's message has the two spaces.
        return cls(f"The association of type  '{association_type}' is frozen for subject '{subject}'")
