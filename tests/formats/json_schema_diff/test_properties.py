"""Properties over random schemas (drafts 7 and 2020-12, local references included): a reader
equal to its writer is compatible, a reader that accepts anything is compatible, and no input
makes the checker raise anything but a `SchemaParseError`."""
from __future__ import annotations

import copy
from typing import Any

from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from app.formats.base import LENIENT_POLICY, STRICT_POLICY, SchemaParseError
from app.formats.json_schema.diff import compare, incompatible
from app.formats.json_schema.model import build_native

NAMES = ["a", "b", "c"]
DRAFTS = [None, "https://json-schema.org/draft/2020-12/schema"]

leaves = st.one_of(
    st.just({}), st.just(True), st.just(False),
    st.fixed_dictionaries({"type": st.sampled_from(["string", "integer", "number", "boolean", "null"])}),
    st.fixed_dictionaries({"type": st.just("string")}, optional={
        "maxLength": st.integers(0, 5), "minLength": st.integers(0, 5), "pattern": st.sampled_from(["^a", "b$"]),
        "format": st.sampled_from(["date", "email"])}),
    st.fixed_dictionaries({"type": st.sampled_from(["number", "integer"])}, optional={
        "minimum": st.integers(-3, 3), "maximum": st.integers(-3, 3), "multipleOf": st.sampled_from([1, 2, 0.5]),
        "exclusiveMaximum": st.integers(-3, 3)}),
    st.fixed_dictionaries({"enum": st.lists(st.sampled_from(["x", "y", 1, True, None]), min_size=1, max_size=3)}),
    st.fixed_dictionaries({"const": st.sampled_from(["x", 1, None])}),
    st.just({"$ref": "#/definitions/d"}),
    st.fixed_dictionaries({"type": st.lists(st.sampled_from(["string", "null", "integer"]), min_size=1, max_size=3,
                                            unique=True)}),
)


def _extend(children: st.SearchStrategy[Any], modern: bool) -> st.SearchStrategy[Any]:
    if modern:
        array = {"items": children, "prefixItems": st.lists(children, max_size=3),
                 "unevaluatedItems": st.one_of(st.booleans(), children)}
    else:
        array = {"items": st.one_of(children, st.lists(children, max_size=3)),
                 "additionalItems": st.one_of(st.booleans(), children)}
    return st.one_of(
        st.fixed_dictionaries({"type": st.just("object"),
                               "properties": st.dictionaries(st.sampled_from(NAMES), children, max_size=3)},
                              optional={"required": st.lists(st.sampled_from(NAMES), max_size=2, unique=True),
                                        "additionalProperties": st.one_of(st.booleans(), children),
                                        "patternProperties": st.dictionaries(st.just("^a"), children, max_size=1),
                                        "dependencies": st.dictionaries(st.sampled_from(NAMES),
                                                                        st.lists(st.sampled_from(NAMES), max_size=2,
                                                                                 unique=True), max_size=1),
                                        "maxProperties": st.integers(0, 3)}),
        st.fixed_dictionaries({"type": st.just("array")},
                              optional={**array, "minItems": st.integers(0, 2), "uniqueItems": st.booleans()}),
        st.sampled_from(["oneOf", "anyOf", "allOf"]).flatmap(
            lambda keyword: st.fixed_dictionaries({keyword: st.lists(children, min_size=1, max_size=3)})),
        st.fixed_dictionaries({"not": children}),
        st.fixed_dictionaries({"if": children, "then": children}),
    )


def schemas(modern: bool) -> st.SearchStrategy[Any]:
    return st.recursive(leaves, lambda children: _extend(children, modern), max_leaves=10)


# (draft URI or None for the default draft 7, a schema, the schema behind #/definitions/d)
documents = st.sampled_from(DRAFTS).flatmap(
    lambda draft: st.tuples(st.just(draft), schemas(draft is not None), schemas(draft is not None)))
pairs = st.sampled_from(DRAFTS).flatmap(
    lambda draft: st.tuples(st.just(draft), schemas(draft is not None), schemas(draft is not None),
                            schemas(draft is not None)))


# A definition that is only a `$ref` to itself points to no schema: the checker refuses it
# ("Circular $ref"), which is not what the properties below are about.
SELF_REFERENCE = {"$ref": "#/definitions/d"}


def _document(draft: str | None, schema: Any, definition: Any) -> Any:
    if not isinstance(schema, dict):
        return schema
    document = {**schema, "definitions": {"d": definition}}
    if draft is not None:
        document["$schema"] = draft
    return document


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(document=documents)
def test_a_reader_equal_to_its_writer_is_compatible(document: tuple[str | None, Any, Any]) -> None:
    assume(document[2] != SELF_REFERENCE)
    writer = _document(*document)
    reader = copy.deepcopy(writer)
    for policy in (STRICT_POLICY, LENIENT_POLICY):
        found = compare(build_native(writer, {}), build_native(reader, {}), policy=policy)
        assert incompatible(found, policy) == [], (writer, found)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(document=documents)
def test_a_reader_that_accepts_anything_reads_every_writer(document: tuple[str | None, Any, Any]) -> None:
    assume(document[2] != SELF_REFERENCE)
    writer = build_native(_document(*document), {})
    for reader in ({}, True):
        assert incompatible(compare(writer, build_native(reader, {})), STRICT_POLICY) == []


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(pair=pairs)
def test_any_pair_compares_or_is_refused_cleanly(pair: tuple[str | None, Any, Any, Any]) -> None:
    draft, writer, reader, definition = pair
    try:
        found = compare(build_native(_document(draft, writer, definition), {}),
                        build_native(_document(draft, reader, definition), {}))
    except SchemaParseError:
        return
    for difference in found:
        assert difference.pointer.startswith("#/")
        assert difference.type.isupper()
