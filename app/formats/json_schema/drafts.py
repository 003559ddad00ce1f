"""Which JSON Schema draft a document is written in, as Confluent decides it.

Confluent reads `$schema` through its own table (`SpecificationVersion`): the http and https
spellings of each draft's metaschema URI, with or without the empty fragment, and the bare
`http://json-schema.org/schema` for draft 4. Anything else, or no `$schema` at all, is draft 7.
The `jsonschema` and `referencing` libraries know fewer spellings (no https for the old drafts,
no http for the new ones), so the choice is made here and each library is handed its own object
for the draft.
"""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from jsonschema import Draft4Validator, Draft6Validator, Draft7Validator, Draft201909Validator, Draft202012Validator
from jsonschema.protocols import Validator
from referencing import Specification
from referencing.jsonschema import DRAFT4, DRAFT6, DRAFT7, DRAFT201909, DRAFT202012


# The shapes of a keyword's value where it holds subschemas.
SCHEMA = "schema"
SCHEMA_ARRAY = "array"
SCHEMA_MAP = "map"  # name -> schema (`dependencies`: name -> schema or array of names)
SCHEMA_OR_ARRAY = "schema-or-array"  # `items` before 2020-12

# Where each draft's metaschema puts subschemas: exactly the keywords it validates against
# the metaschema itself. Elsewhere a value is data to the draft, even if it looks like a schema.
_DRAFT_4_SUBSCHEMAS: dict[str, str] = {
    **dict.fromkeys(("additionalItems", "additionalProperties", "not"), SCHEMA),
    "items": SCHEMA_OR_ARRAY,
    **dict.fromkeys(("allOf", "anyOf", "oneOf"), SCHEMA_ARRAY),
    **dict.fromkeys(("definitions", "dependencies", "patternProperties", "properties"), SCHEMA_MAP),
}
_DRAFT_6_SUBSCHEMAS = {**_DRAFT_4_SUBSCHEMAS, **dict.fromkeys(("contains", "propertyNames"), SCHEMA)}
_DRAFT_7_SUBSCHEMAS = {**_DRAFT_6_SUBSCHEMAS, **dict.fromkeys(("if", "then", "else"), SCHEMA)}
_DRAFT_2019_09_SUBSCHEMAS = {
    **_DRAFT_7_SUBSCHEMAS,
    **dict.fromkeys(("contentSchema", "unevaluatedItems", "unevaluatedProperties"), SCHEMA),
    **dict.fromkeys(("$defs", "dependentSchemas"), SCHEMA_MAP),
}
_DRAFT_2020_12_SUBSCHEMAS = {
    **{k: v for k, v in _DRAFT_2019_09_SUBSCHEMAS.items() if k != "additionalItems"},
    "items": SCHEMA,
    "prefixItems": SCHEMA_ARRAY,
}


@dataclass(frozen=True, eq=False)
class Draft:
    """One draft: its name, its `referencing` specification and its metaschema validator.

    `id_keyword` is the keyword that sets a schema's base URI (`id` before draft 6);
    `ref_overrides` says whether `$ref` makes its sibling keywords (`$id` included) inert,
    as it does up to draft 7; `subschemas` maps the keywords holding subschemas to the shape
    of their value.
    """

    name: str
    specification: Specification
    validator: Validator
    id_keyword: str
    ref_overrides: bool
    subschemas: Mapping[str, str]


def _draft(name: str, specification: Specification, cls: Any, id_keyword: str, ref_overrides: bool,
           subschemas: Mapping[str, str]) -> Draft:
    # One metaschema validator per draft, shared by every parse.
    return Draft(name, specification, cls(cls.META_SCHEMA), id_keyword, ref_overrides, subschemas)


DRAFT_4 = _draft("draft-04", DRAFT4, Draft4Validator, "id", True, _DRAFT_4_SUBSCHEMAS)
DRAFT_6 = _draft("draft-06", DRAFT6, Draft6Validator, "$id", True, _DRAFT_6_SUBSCHEMAS)
DRAFT_7 = _draft("draft-07", DRAFT7, Draft7Validator, "$id", True, _DRAFT_7_SUBSCHEMAS)
DRAFT_2019_09 = _draft("draft-2019-09", DRAFT201909, Draft201909Validator, "$id", False, _DRAFT_2019_09_SUBSCHEMAS)
DRAFT_2020_12 = _draft("draft-2020-12", DRAFT202012, Draft202012Validator, "$id", False, _DRAFT_2020_12_SUBSCHEMAS)
ALL_DRAFTS = (DRAFT_4, DRAFT_6, DRAFT_7, DRAFT_2019_09, DRAFT_2020_12)

_BY_URI: dict[str, Draft] = {}
for _draft_, _paths in (
    (DRAFT_4, ("json-schema.org/draft-04/schema", "json-schema.org/schema")),
    (DRAFT_6, ("json-schema.org/draft-06/schema",)),
    (DRAFT_7, ("json-schema.org/draft-07/schema",)),
    (DRAFT_2019_09, ("json-schema.org/draft/2019-09/schema",)),
    (DRAFT_2020_12, ("json-schema.org/draft/2020-12/schema",)),
):
    for _path in _paths:
        for _scheme in ("http://", "https://"):
            _BY_URI[_scheme + _path] = _draft_

DEFAULT_DRAFT = DRAFT_7


def draft_of(document: Any) -> Draft:
    """The draft a document's `$schema` names (one trailing `#` ignored); draft 7 otherwise,
    boolean schemas included."""
    uri = document.get("$schema") if isinstance(document, dict) else None
    if not isinstance(uri, str):
        return DEFAULT_DRAFT
    return _BY_URI.get(uri[:-1] if uri.endswith("#") else uri, DEFAULT_DRAFT)
