"""Checking a schema against its draft's metaschema, and saying where it is wrong.

Confluent refuses a malformed schema when its loader trips over the keyword (`#/minimum:
expected type: Number, found: String`); here the `jsonschema` library checks the document
against the metaschema of its draft, and the refusal names the JSON pointer of the offending
value and the schema keyword it belongs to. `format` values are not asserted (the metaschemas
use `format` as an annotation, and so does Confluent).
"""
from __future__ import annotations

from typing import Any

from jsonschema.exceptions import best_match

from app.formats.json_schema.drafts import Draft
from app.formats.json_schema.errors import InvalidJsonSchema
from app.formats.json_schema.subschemas import keyword_of, pointer

# A metaschema message quotes the offending value, which may be a whole subschema.
_MAX_MESSAGE = 300


def check_against_metaschema(document: Any, draft: Draft) -> None:
    """`InvalidJsonSchema` naming the pointer and keyword of the most relevant error, if any."""
    error = best_match(draft.validator.iter_errors(document))
    if error is None:
        return
    path = list(error.absolute_path)
    message = error.message if len(error.message) <= _MAX_MESSAGE else error.message[:_MAX_MESSAGE] + "..."
    keyword = keyword_of(path)
    where = f" (keyword '{keyword}')" if keyword is not None else ""
    raise InvalidJsonSchema(f"{pointer(path)}: {message}{where}")
