"""Where deserializers and framings find schemas: the `SchemaSource` interface.

A framing names its writer schema by id (Confluent) or by fingerprint (single-object
encoding); references name schemas by subject and version. `RegistryClient` answers all
three through the registry, with caches. `InMemoryResolver` answers them from schemas it was
given, for data that travels without a registry, for tests, and as the small example of
what another source (a file of schemas, a cache shared between processes) must implement.
"""
from __future__ import annotations

import threading
from typing import Iterable, Protocol, Sequence

from app.fingerprinting.canonical import parsing_canonical_form
from app.client.errors import SchemaNotFound, SubjectNotFound, VersionNotFound
from app.fingerprinting.fingerprint import DIGEST_SIZES, Fingerprint, fingerprint_of_form
from app.client.records import AVRO, RegisteredSchema, Schema, SchemaReference


class SchemaSource(Protocol):
    def get_schema(self, schema_id: int, subject: str | None = None, *, format: str | None = None) -> Schema:
        """The schema behind a global id; `subject` only picks the context; `format` names
        a rendering other than the stored text (Protobuf readers ask for `serialized`)."""

    def get_schema_by_fingerprint(self, fingerprint: Fingerprint) -> RegisteredSchema:
        """An Avro schema whose Parsing Canonical Form has this fingerprint."""

    def get_version(self, subject: str, version: int | str, *, format: str | None = None) -> RegisteredSchema:
        """A numbered version of a subject (how references are resolved)."""


def resolve_references(
    source: SchemaSource, schema: Schema, format: str | None = None
) -> list[tuple[SchemaReference, Schema]]:
    """Every reference edge below `schema`, transitively, with the schema it names: dependencies
    before their dependents, each (subject, version) fetched once but every name it is known by
    kept (JSON Schema resolves `$ref`s by those names; Avro only needs each schema once).
    `format` is the rendering to fetch them in, as for `SchemaSource.get_schema`."""
    edges: list[tuple[SchemaReference, Schema]] = []
    fetched: dict[tuple[str, int], Schema] = {}

    def visit(references: Sequence[SchemaReference], trail: tuple[tuple[str, int], ...]) -> None:
        for reference in references:
            key = (reference.subject, reference.version)
            if key in trail:
                raise ValueError(f"circular schema references through {reference.subject} v{reference.version}")
            found = fetched.get(key)
            if found is None:
                found = source.get_version(reference.subject, reference.version, format=format).schema
                visit(found.references, trail + (key,))
                fetched[key] = found
            edges.append((reference, found))

    visit(schema.references, ())
    return edges


def referenced_schemas(source: SchemaSource, schema: Schema) -> list[Schema]:
    """Every schema `schema` depends on, transitively, dependencies before their dependents,
    each once: the order parsers and the canonical form need them in."""
    ordered: dict[tuple[str, int], Schema] = {}
    for reference, found in resolve_references(source, schema):
        ordered.setdefault((reference.subject, reference.version), found)
    return list(ordered.values())


def canonical_form_of(source: SchemaSource, schema: Schema) -> str:
    """The Parsing Canonical Form of an Avro schema with its references inlined."""
    return parsing_canonical_form(schema.text, [found.text for found in referenced_schemas(source, schema)])


class InMemoryResolver:
    """A `SchemaSource` over schemas added to it; ids count from 1 unless given.

    It holds each schema in the one rendering it was added in and answers every `format` with
    it: add Protobuf schemas in their serialized form (base64 `FileDescriptorProto`) for a
    Protobuf deserializer, which reads no other.

    Fingerprints of every algorithm are computed when a schema is added, as the registry does
    at registration, so a lookup is one dict read. When two schemas share a canonical form the
    first added answers, as the registry answers with the smallest id.
    """

    def __init__(self, schemas: Iterable[Schema | str] = ()) -> None:
        self._lock = threading.Lock()
        self._by_id: dict[int, RegisteredSchema] = {}
        self._versions: dict[str, dict[int, RegisteredSchema]] = {}
        self._by_fingerprint: dict[Fingerprint, RegisteredSchema] = {}
        for schema in schemas:
            self.add(schema)

    def add(
        self, schema: Schema | str, *, schema_id: int | None = None, subject: str | None = None
    ) -> RegisteredSchema:
        """Keep `schema` under `schema_id` (next free id if None) and, if `subject` is given,
        as that subject's next version (so other schemas can reference it)."""
        if isinstance(schema, str):
            schema = Schema(schema)
        with self._lock:
            if schema_id is None:
                schema_id = max(self._by_id, default=0) + 1
            version = len(self._versions.get(subject, {})) + 1 if subject is not None else None
            registered = RegisteredSchema(schema_id, schema, subject, version)
            self._by_id[schema_id] = registered
            if subject is not None and version is not None:
                self._versions.setdefault(subject, {})[version] = registered
        if schema.schema_type == AVRO:
            form = canonical_form_of(self, schema)
            with self._lock:
                for algorithm in DIGEST_SIZES:
                    self._by_fingerprint.setdefault(fingerprint_of_form(form, algorithm), registered)
        return registered

    def get_schema(self, schema_id: int, subject: str | None = None, *, format: str | None = None) -> Schema:
        try:
            return self._by_id[schema_id].schema
        except KeyError:
            raise SchemaNotFound(f"Schema {schema_id} not found") from None

    def get_schema_by_fingerprint(self, fingerprint: Fingerprint) -> RegisteredSchema:
        try:
            return self._by_fingerprint[fingerprint]
        except KeyError:
            raise SchemaNotFound("Schema not found") from None

    def get_version(self, subject: str, version: int | str, *, format: str | None = None) -> RegisteredSchema:
        versions = self._versions.get(subject)
        if not versions:
            raise SubjectNotFound(f"Subject '{subject}' not found.")
        number = max(versions) if version in ("latest", -1) else int(version)
        try:
            return versions[number]
        except KeyError:
            raise VersionNotFound(f"Version {version} not found.") from None
