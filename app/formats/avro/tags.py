"""Inline schema tags in Avro: the `confluent:tags` property of records and fields.

What Confluent's Avro provider does when its tags endpoint edits a schema (the facts this
module keeps to; see `AvroSchema#modifySchemaTags` and `AvroSchemaUtils#findMatchingEntity`):

* A tag set is the JSON property `confluent:tags` (an array of strings) on a record object
  (entity type `sr_record`) or on a field object (`sr_field`). It is an ordinary Avro
  property, so it takes part in the canonical text (and thus in the schema's identity) but
  not in compatibility.
* An entity path is split at dots. For a record the last part is its simple name and the
  parts before it its namespace, i.e. the path is the record's full name (`com.acme.Order`).
  For a field the last part is the field name and the rest names its record
  (`com.acme.Order.customer`). A nested record is addressed by its own full name, never by a
  chain of field names. A path without a namespace part matches a record of that simple name
  in any namespace.
* The search is breadth-first from the root, through record fields, union branches, array
  items and map values; the first record that matches wins. Types defined by referenced
  schemas are not part of the schema's text and cannot be tagged through it.
* Per entity, the new tag list is the existing tags in their order, then the added ones not
  already present, minus the removed ones (adding happens before removing, so a tag both
  added and removed ends up absent). An empty list drops the property; an existing property
  keeps its position among the entity's properties, a new one comes after them.
* An entity the schema does not have fails the whole request (`SchemaParseError`, 42201)
  "No matching path '<path>' found in the schema".
* Requests may name an entity several times; their tags are united. A leading dot on a path
  is ignored, as in Confluent's `SchemaEntity` equality.

One deliberate difference: Java compares a path's namespace with the root record's namespace
for every record it visits, so a nested record declared in another namespace can only be
found by a namespace-less path. Here a record's own namespace is used, which is what its full
name (and Confluent's own listing of tagged entities) says.
"""
from __future__ import annotations

from collections import deque
from collections.abc import Iterator, Sequence
from typing import Any

from app.formats.avro.json_text import dumps
from app.formats.avro.model import Array, Field, Map, Record, Schema, Union
from app.formats.base import FIELD_ENTITY, RECORD_ENTITY, EntityTags, SchemaParseError

TAGS_PROPERTY = "confluent:tags"

# (normalized path, entity type) -> (tags to add, tags to remove), in request order.
_Edits = dict[tuple[str, str], tuple[list[str], list[str]]]


def modify_tags(root: Schema, known: set[str], add: Sequence[EntityTags], remove: Sequence[EntityTags]) -> None:
    """Edit the tags of `root`'s records and fields in place.

    `root` must be a private copy: parsed schemas are cached and shared. `known` holds the
    full names of types that come from referenced schemas (written by name, not inline).
    """
    for (path, entity_type), (to_add, to_remove) in _group(add, remove).items():
        target = _find(root, known, path, entity_type)
        tags = _existing_tags(target, path)
        tags += [tag for tag in dict.fromkeys(to_add) if tag not in tags]
        removed = set(to_remove)
        tags = [tag for tag in tags if tag not in removed]
        if tags:
            target.props[TAGS_PROPERTY] = tags
        else:
            target.props.pop(TAGS_PROPERTY, None)


def _group(add: Sequence[EntityTags], remove: Sequence[EntityTags]) -> _Edits:
    """Every entity once: those being added to first, then those only being removed from."""
    edits: _Edits = {}
    for entity in add:
        edits.setdefault(_key(entity), ([], []))[0].extend(entity.tags)
    for entity in remove:
        edits.setdefault(_key(entity), ([], []))[1].extend(entity.tags)
    return edits


def _key(entity: EntityTags) -> tuple[str, str]:
    path = entity.path.removeprefix(".")
    return path, entity.entity_type


def _find(root: Schema, known: set[str], path: str, entity_type: str) -> Record | Field:
    parts = path.split(".")
    field_name = parts.pop() if entity_type == FIELD_ENTITY else None
    if entity_type not in (FIELD_ENTITY, RECORD_ENTITY) or not parts:
        raise _no_match(path)
    record_name, namespace = parts[-1], ".".join(parts[:-1])
    for node in _records(root, known):
        if node.name.name == record_name and namespace in ("", node.name.space or ""):
            if field_name is None:
                return node
            if field_name in node.field_map:
                return node.field_map[field_name]
    raise _no_match(path)


def _records(root: Schema, known: set[str]) -> Iterator[Record]:
    """The records this text defines, breadth-first from the root through record fields,
    union branches, array items and map values (those named in `known` are referenced)."""
    queue: deque[Schema] = deque([root])
    visited: set[int] = set()
    while queue:
        node = queue.popleft()
        if isinstance(node, Union):
            queue.extend(node.branches)
        elif isinstance(node, Array):
            queue.append(node.items)
        elif isinstance(node, Map):
            queue.append(node.values)
        elif isinstance(node, Record) and id(node) not in visited and node.name.full not in known:
            visited.add(id(node))
            yield node
            queue.extend(field.type for field in node.fields)


def _no_match(path: str) -> SchemaParseError:
    return SchemaParseError(f"No matching path '{path}' found in the schema")


def _existing_tags(target: Record | Field, path: str) -> list[str]:
    """The entity's current tags; non-string items read as their JSON text, as Jackson's
    `asText` would. A property that is not an array cannot be edited (42201)."""
    value = target.props.get(TAGS_PROPERTY)
    if value is None:
        return []
    if not isinstance(value, list):
        raise SchemaParseError(f"The {TAGS_PROPERTY} property of '{path}' is not an array")
    return list(dict.fromkeys(_text(item) for item in value))


def _text(item: Any) -> str:
    if isinstance(item, str):
        return item
    return "" if isinstance(item, (list, dict)) else dumps(item)


def field_tags(root: Schema, known: set[str]) -> dict[str, tuple[str, ...]]:
    """`FieldTags` for Avro: `Record.field` -> the field's tags, records in the order the tags
    endpoint searches them (referenced types, named in `known`, are not this text's)."""
    found: dict[str, tuple[str, ...]] = {}
    for record in _records(root, known):
        for field in record.fields:
            value = field.props.get(TAGS_PROPERTY)
            if isinstance(value, list) and value:
                found[f"{record.name.full}.{field.name}"] = _distinct(value)
    return found


def tagged_entities(root: Schema, known: set[str]) -> list[EntityTags]:
    """`TaggedEntities` for Avro: each record with tags by its full name, each field with tags
    as `Record.field` (records breadth-first, as `field_tags`; Confluent walks depth-first,
    so only the order of the list can differ)."""
    found: list[EntityTags] = []
    for record in _records(root, known):
        tags = record.props.get(TAGS_PROPERTY)
        if isinstance(tags, list) and tags:
            found.append(EntityTags(record.name.full, RECORD_ENTITY, _distinct(tags)))
        for field in record.fields:
            tags = field.props.get(TAGS_PROPERTY)
            if isinstance(tags, list) and tags:
                found.append(EntityTags(f"{record.name.full}.{field.name}", FIELD_ENTITY, _distinct(tags)))
    return found


def _distinct(tags: list[Any]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(_text(item) for item in tags))
