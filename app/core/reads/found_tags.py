"""What the schema reads add on request in Confluent 8.x: `findTags` (the schema's tagged
records and fields, Confluent's `schemaTags`) and `referenceFormat=qualified` (references
named by their subject qualified with the reading's context).

The facts kept to, from Confluent's `SchemasResource#getSchema`,
`SubjectVersionsResource#getSchemaByVersion` and `AbstractSchemaRegistry#extractSchemaTags`:

* `findTags` is repeatable; `*` among the values means every tagged entity, otherwise an
  entity is listed when it carries at least one of the values, with all its tags. An entity is
  a record (`sr_record`) or a field (`sr_field`) of the schema's own text, named by the
  format (`TaggedEntities`); a format without tags lists none. Values are also split at
  commas, since Confluent's Java client sends `findTags=A,B` for the latest version.
* `referenceFormat=qualified` changes only a schema read under a subject of a named context:
  each reference whose subject names no context is named in that context (`:.ctx:common`);
  references already qualified, and every reference of a default-context read, stay as
  stored. Any other value changes nothing, as in Confluent.
"""
from __future__ import annotations

from collections.abc import Sequence

from app.core.records import SchemaReference
from app.core.types import DEFAULT_CONTEXT, QualifiedSubject
from app.formats.base import EntityTags, ParsedSchema, SchemaFormat, TaggedEntities, supports

ALL_TAGS = "*"
QUALIFIED = "qualified"


def wanted_tags(values: Sequence[str]) -> frozenset[str]:
    """The `findTags` values, split at commas, blanks dropped."""
    return frozenset(tag.strip() for value in values for tag in value.split(",") if tag.strip())


def found_tags(fmt: SchemaFormat, parsed: ParsedSchema, wanted: frozenset[str]) -> list[EntityTags]:
    if not wanted or not supports(fmt, TaggedEntities):
        return []
    everything = ALL_TAGS in wanted
    return [entity for entity in fmt.tagged_entities(parsed) if everything or not wanted.isdisjoint(entity.tags)]


def qualified_references(subject: str, references: Sequence[SchemaReference]) -> list[SchemaReference]:
    """`references` as read under `subject` (a qualified subject) with `referenceFormat=qualified`."""
    context = QualifiedSubject.parse(subject).context
    if context == DEFAULT_CONTEXT:
        return list(references)
    return [ref if QualifiedSubject.parse(ref.subject).context != DEFAULT_CONTEXT
            else SchemaReference(ref.name, QualifiedSubject(context, ref.subject).qualified(), ref.version)
            for ref in references]
