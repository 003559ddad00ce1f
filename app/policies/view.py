"""The rules' one way into a parsed schema: the format's `PolicyView`, walked once per schema.

Parsed schemas are immutable and cached by the core, so their element lists are kept beside
them (weakly: they go when the schema leaves the cache) and seven rules cost one walk.
"""
from __future__ import annotations

import threading
import weakref
from collections.abc import Sequence

from app.formats import FORMATS
from app.formats.base import ParsedSchema, PolicyView, SchemaElement

_CACHE: weakref.WeakKeyDictionary[ParsedSchema, Sequence[SchemaElement]] = weakref.WeakKeyDictionary()
_LOCK = threading.Lock()


class UnsupportedFormat(Exception):
    """The schema's format has no `PolicyView`: its rules are skipped, not failed."""


def elements_of(schema: ParsedSchema) -> Sequence[SchemaElement]:
    cached = _CACHE.get(schema)
    if cached is not None:
        return cached
    fmt = FORMATS[schema.schema_type]
    if not isinstance(fmt, PolicyView):
        raise UnsupportedFormat(schema.schema_type)
    found = tuple(fmt.elements(schema))
    with _LOCK:
        _CACHE[schema] = found
    return found
