"""The exporter resource's errors, with the codes Confluent documents for `/exporters`
(Confluent Cloud's API reference: "Exporters (v1)").

40450 is also this project's own PolicyNotFound (`/policies`, an extension older than this
resource): the two never answer the same endpoint, and Confluent's number wins here because
its clients branch on it.
"""
from __future__ import annotations

from app.core.errors import RegistryError


class ExporterNotFound(RegistryError):
    http_status, error_code = 404, 40450

    @classmethod
    def named(cls, name: str) -> ExporterNotFound:
        return cls(f"Exporter '{name}' not found")


class InvalidExporterName(RegistryError):
    http_status, error_code = 409, 40950


class InvalidExporterConfig(RegistryError):
    http_status, error_code = 409, 40951


class InvalidExporterSubjects(RegistryError):
    http_status, error_code = 409, 40952


class ExporterExists(RegistryError):
    http_status, error_code = 409, 40960

    @classmethod
    def named(cls, name: str) -> ExporterExists:
        return cls(f"Exporter '{name}' already exists")


class ExporterNotPaused(RegistryError):
    http_status, error_code = 409, 40963

    @classmethod
    def named(cls, name: str) -> ExporterNotPaused:
        return cls(f"Exporter '{name}' is not paused")
