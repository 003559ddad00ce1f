"""The rules' one way into a parsed schema: the format's `PolicyView`, walked once per schema.

Parsed schemas are immutable and cached by the core, so their element lists are kept beside
them (weakly: they go when the schema leaves the cache) and seven rules cost one walk.
"""
from __future__ import annotations

import threading
import weakref
from collections.abc import Sequence

from app.formats import FORMATS
from app.formats.base import ParsedSchema, PolicyView, SchemaElement, supports

_CACHE: weakref.WeakKeyDictionary[ParsedSchema, dict[bool, Sequence[SchemaElement]]] = weakref.WeakKeyDictionary()
_LOCK = threading.Lock()


class UnsupportedFormat(Exception):
    """The schema's format has no `PolicyView`: its rules are skipped, not failed."""


def elements_of(schema: ParsedSchema, *, as_stored: bool = False) -> Sequence[SchemaElement]:
    """The proposed schema is read as sent; an older version `as_stored`, so that what a rule
    says of it (a removed field's location) does not depend on which text registered it."""
    cached = _CACHE.get(schema)
    if cached is not None and as_stored in cached:
        return cached[as_stored]
    fmt = FORMATS[schema.schema_type]
    if not supports(fmt, PolicyView):
        raise UnsupportedFormat(schema.schema_type)
    found = tuple(fmt.elements(schema, as_stored=as_stored))
    with _LOCK:
        _CACHE.setdefault(schema, {})[as_stored] = found
    return found
