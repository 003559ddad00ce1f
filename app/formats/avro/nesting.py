"""How deeply an Avro schema may nest, so that no walk over it can exhaust Python's stack.

Every walk over a schema (the JSON decoder, the parser, the writers, the compatibility check,
default validation) recurses per level, and Python stops at 1,000 frames, some of them already
taken by the web stack below the format. Java's limits are higher (Jackson reads 1,000 levels),
so an unbounded schema would be a 500 here and a success there; a bound that holds for every
input, with a clear 42201, is the lesser difference. Real schemas nest a few levels, schemas
generated from deep documents a few tens.

Two bounds, both checked before the recursion they protect:

* `MAX_DOCUMENT_DEPTH`: JSON arrays and objects in one schema text (the schema as sent, each
  referenced schema, and the canonical text the registry stores, so that whatever is stored
  can be parsed again). Arrays or unions may nest 200 deep, records 66 (a record level is
  three JSON levels: the record, its `fields` array, the field).
* `MAX_WALK_DEPTH`: steps of a walk over the parsed schema that can go further than one text
  does, because it follows references into other schemas or compares two schemas at once
  (`can_read`, the `resolved` writer, default validation). Twice the document bound, so that
  any two schemas within it compare.

The walks are written so that a level costs one frame (two in the parser's unions and in
normalization's value walks): a schema at the bounds leaves at least 400 of Python's 1,000
frames to the caller (tests/formats/test_avro_nesting.py holds that), and a web stack takes
under 100.
"""
from __future__ import annotations

from app.formats import jackson
from app.formats.avro.errors import InvalidAvro

MAX_DOCUMENT_DEPTH = jackson.MAX_DOCUMENT_DEPTH
MAX_WALK_DEPTH = 2 * MAX_DOCUMENT_DEPTH


class NestingTooDeep(InvalidAvro):
    """A schema deeper than this registry walks (see the module's bounds)."""


def check_document(text: str) -> None:
    """Refuse a JSON text nested deeper than `MAX_DOCUMENT_DEPTH`, without recursing."""
    if jackson.depth_exceeds(text, MAX_DOCUMENT_DEPTH):
        raise NestingTooDeep(
            f"Schema is nested more than {MAX_DOCUMENT_DEPTH} levels deep (JSON arrays and objects)"
        )


def deeper(depth: int) -> int:
    """The next step's depth in a walk over parsed schemas; `NestingTooDeep` past the bound."""
    if depth >= MAX_WALK_DEPTH:
        raise NestingTooDeep(
            f"Schema is nested more than {MAX_WALK_DEPTH} levels deep, following its named types and references"
        )
    return depth + 1
