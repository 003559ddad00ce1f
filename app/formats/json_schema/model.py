"""A parsed JSON Schema as the format's parts share it: the document and a resolver for `$ref`.

The checker walks the reader and the writer side by side and follows `$ref`s into local
definitions and into referenced subjects alike, so a parsed schema carries a `referencing`
registry holding the root and every dependency under its reference name.
"""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from referencing import Registry, Resource, Specification
from referencing.jsonschema import DRAFT7, specification_with

# The document a `$ref` without a base resolves against when the root has no `$id`.
ROOT_URI = ""


@dataclass(frozen=True, eq=False)
class JsonNative:
    """`document` is the root schema (a dict, or a bool for `true`/`false`); `registry` holds
    it at `base_uri` and each dependency at its reference name; `specification` is the draft
    chosen by `$schema` (draft 7 when absent)."""

    document: Any
    base_uri: str
    registry: Registry
    specification: Specification

    def resolver(self):  # -> referencing.Resolver
        """A resolver positioned at the root, for `resolver.lookup(ref)`."""
        return self.registry.resolver(base_uri=self.base_uri)


def specification_of(document: Any) -> Specification:
    """The draft a document's `$schema` names; draft 7 (Confluent's default) when it names none."""
    uri = document.get("$schema") if isinstance(document, dict) else None
    return specification_with(uri, default=DRAFT7) if isinstance(uri, str) else DRAFT7


def build_native(document: Any, dependencies: Mapping[str, Any]) -> JsonNative:
    """The root `document` with its already-decoded `dependencies` (reference name -> schema
    document, transitive ones included) loaded into one registry."""
    specification = specification_of(document)
    registry: Registry = Registry()
    for name, dependency in dependencies.items():
        resource = Resource(contents=dependency, specification=specification_of(dependency))
        registry = registry.with_resource(name, resource)
    root = Resource(contents=document, specification=specification)
    base_uri = root.id() or ROOT_URI
    registry = registry.with_resource(base_uri, root).crawl()
    return JsonNative(document, base_uri, registry, specification)
