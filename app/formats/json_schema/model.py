"""A parsed JSON Schema as the format's parts share it: the document and a resolver for `$ref`.

The checker walks the reader and the writer side by side and follows `$ref`s into local
definitions and into referenced subjects alike, so a parsed schema carries a `referencing`
registry holding the root and every dependency under its reference name.

A dependency is also reachable under the names Confluent's loaders give it: its name resolved
against the root's `$id` (how draft 4 to 7 schemas with an `$id` refer to `customer.json`), and
`./name` for a relative name. The draft metaschemas are in the registry too, as Confluent
bundles them, so a `$ref` to one resolves without fetching anything.
"""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import urljoin, urlsplit

from jsonschema_specifications import REGISTRY as METASCHEMAS
from referencing import Registry, Resource, Specification

from app.formats.json_schema.drafts import draft_of

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
    """The draft a document's `$schema` names, spelled as Confluent accepts it; draft 7
    (Confluent's default) when it names none or one Confluent does not know."""
    return draft_of(document).specification


def dependency_uris(name: str, base_uri: str) -> list[str]:
    """The URIs a dependency called `name` is found under from a root at `base_uri`."""
    uris = [name]
    if base_uri:
        uris.append(urljoin(base_uri, name))
    if not urlsplit(name).scheme and not name.startswith("."):
        uris.append("./" + name)
    return uris


def build_native(document: Any, dependencies: Mapping[str, Any], *, crawl: bool = True) -> JsonNative:
    """The root `document` with its already-decoded `dependencies` (reference name -> schema
    document, transitive ones included) loaded into one registry.

    `crawl=False` leaves out indexing the subschemas' own ids and anchors, which costs as much
    as the rest of a parse: for a caller that knows the documents have none, lookups by name
    and by JSON pointer resolve the same without it.
    """
    specification = specification_of(document)
    root = Resource(contents=document, specification=specification)
    base_uri = root.id() or ROOT_URI
    pairs: list[tuple[str, Resource[Any]]] = []
    for name, dependency in dependencies.items():
        resource = Resource(contents=dependency, specification=specification_of(dependency))
        pairs.extend((uri, resource) for uri in dependency_uris(name, base_uri))
    pairs.append((base_uri, root))
    registry = METASCHEMAS.with_resources(pairs)
    if crawl:
        registry = registry.crawl()
    return JsonNative(document, base_uri, registry, specification)
