"""Random reader/writer record pairs: our checker must agree with the Java-parity oracle.

The oracle (support/avro_oracle.py) is the PyPI `avro` port of Java's SchemaCompatibility,
given Java's reading of aliases; it answers the verdict and the incompatibility types (the
port's locations and messages differ from Java's: the pairs recorded from Java pin those).
Pairs are built from one pool of field names so that the two sides overlap: fields added or removed with or without defaults, types changed
(promotions included), enum symbols and fixed sizes changed, unions grown or shrunk, record
names changed, fields renamed behind aliases.
"""
from __future__ import annotations

import functools
import json
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from support import avro_oracle

from app.formats.avro import AvroFormat

PRIMITIVES = ["null", "boolean", "int", "long", "float", "double", "bytes", "string"]
FIELD_NAMES = ["a", "b", "c", "d"]
AVRO = AvroFormat()


def _default_for(schema: Any) -> Any:
    """A default value valid for `schema` (a union's default belongs to its first branch)."""
    if isinstance(schema, list):
        return _default_for(schema[0])
    if isinstance(schema, str):
        return {"null": None, "boolean": False, "int": 0, "long": 0, "float": 0.0,
                "double": 0.0, "bytes": "", "string": ""}[schema]
    kind = schema["type"]
    if kind == "enum":
        return schema["symbols"][0]
    if kind == "fixed":
        return "\u0000" * schema["size"]
    if kind == "array":
        return []
    if kind == "map":
        return {}
    return {f["name"]: _default_for(f["type"]) for f in schema["fields"]}


def _inhabited(schema: Any) -> bool:
    """False when no value exists (an empty union somewhere inside a record)."""
    if isinstance(schema, list):
        return bool(schema) and _inhabited(schema[0])
    if isinstance(schema, dict) and schema["type"] == "record":
        return all(_inhabited(f["type"]) for f in schema["fields"])
    return True


@functools.lru_cache(maxsize=None)  # building strategies is what makes generation slow
def _types(prefix: str, depth: int) -> st.SearchStrategy[Any]:
    """Field types; named types are named after their field's path so that the reader's and
    the writer's version of a field share (or, sometimes, change) a name."""
    leaf = st.sampled_from(PRIMITIVES)
    enum = st.builds(
        lambda symbols, renamed, default: {
            "type": "enum", "name": f"E_{prefix}{'x' if renamed else ''}", "symbols": symbols,
            **({"default": symbols[0]} if default else {}),
        },
        st.lists(st.sampled_from("ABCDE"), min_size=1, max_size=4, unique=True),
        st.sampled_from([False, False, False, True]),
        st.booleans(),
    )
    fixed = st.builds(lambda size: {"type": "fixed", "name": f"X_{prefix}", "size": size}, st.integers(2, 3))
    array = leaf.map(lambda t: {"type": "array", "items": t})
    map_ = leaf.map(lambda t: {"type": "map", "values": t})
    union = st.lists(leaf, min_size=1, max_size=3, unique=True)
    options = [leaf, leaf, enum, fixed, array, map_, union]
    if depth == 0:
        options.append(
            _fields(f"{prefix}_", depth + 1).map(lambda fields: {"type": "record", "name": f"R_{prefix}", "fields": fields})
        )
    return st.one_of(options)


@functools.lru_cache(maxsize=None)
def _fields(prefix: str, depth: int) -> st.SearchStrategy[list[dict[str, Any]]]:
    def field(name: str) -> st.SearchStrategy[dict[str, Any]]:
        return st.builds(
            lambda type_, with_default, alias: {
                "name": name, "type": type_,
                **({"default": _default_for(type_)} if with_default else {}),
                **({"aliases": [alias]} if alias and alias != name else {}),
            },
            _types(prefix + name, depth),
            st.booleans(),
            st.sampled_from([None, None, None, *FIELD_NAMES]),
        )

    return st.lists(st.sampled_from(FIELD_NAMES), max_size=4, unique=True).flatmap(
        lambda names: st.tuples(*[field(n) for n in names]).map(list)
    )


@functools.lru_cache(maxsize=None)
def _record(name: str) -> st.SearchStrategy[dict[str, Any]]:
    return st.builds(
        lambda fields, namespace, alias: {
            "type": "record", "name": name, "fields": fields,
            **({"namespace": namespace} if namespace else {}),
            **({"aliases": [alias]} if alias else {}),
        },
        _fields("", 0),
        st.sampled_from([None, "ns1", "ns2"]),
        st.sampled_from([None, "Old", "ns1.Old"]),
    )


def _evolved_type(draw: st.DrawFn, type_: Any, prefix: str) -> Any:
    """The reader's version of a writer field type: kept, or changed the way schemas evolve."""
    change = draw(st.sampled_from(["keep", "keep", "replace", "tweak"]))
    if change == "replace":
        return draw(_types(prefix, 1))
    if change == "keep":
        return type_
    if isinstance(type_, str):  # a promotion, a demotion or a union around it
        return draw(st.sampled_from(PRIMITIVES) | st.just(["null", type_] if type_ != "null" else [type_]))
    if isinstance(type_, list):
        return draw(st.lists(st.sampled_from(PRIMITIVES), min_size=0, max_size=4, unique=True))
    kind = type_["type"]
    if kind == "enum":
        symbols = draw(st.lists(st.sampled_from("ABCDEF"), min_size=1, max_size=5, unique=True))
        default = {"default": symbols[0]} if draw(st.booleans()) else {}
        return {**{k: v for k, v in type_.items() if k != "default"}, "symbols": symbols, **default}
    if kind == "fixed":
        return {**type_, "size": draw(st.integers(2, 3))}
    if kind == "record":
        return {**type_, "fields": draw(_evolved_fields(type_["fields"], prefix + "_"))}
    key = "items" if kind == "array" else "values"
    return {**type_, key: draw(st.sampled_from(PRIMITIVES))}


@st.composite
def _evolved_fields(draw: st.DrawFn, fields: list[dict[str, Any]], prefix: str) -> list[dict[str, Any]]:
    """Reader fields from writer fields: some dropped, renamed behind an alias, retyped,
    given or stripped of a default, plus new fields."""
    evolved = []
    for field in fields:
        if draw(st.integers(0, 5)) == 0:
            continue
        type_ = _evolved_type(draw, field["type"], prefix + field["name"])
        new = {"name": field["name"], "type": type_}
        if draw(st.integers(0, 5)) == 0:
            new = {"name": field["name"] + "2", "type": type_, "aliases": [field["name"]]}
        if _inhabited(type_) and draw(st.booleans()):
            new["default"] = _default_for(type_)
        evolved.append(new)
    taken = {f["name"] for f in evolved} | {f["name"] for f in fields}  # named types follow field names
    extra = draw(_fields(prefix, 1))
    return evolved + [f for f in extra if f["name"] not in taken and not set(f.get("aliases", [])) & taken]


@st.composite
def _pairs(draw: st.DrawFn) -> tuple[dict[str, Any], dict[str, Any]]:
    """(reader, writer): usually an evolution of the writer, sometimes an unrelated record."""
    writer = draw(_record("Old"))
    if draw(st.integers(0, 4)) == 0:
        return draw(_record("New") | _record("Old")), writer
    reader = {**writer, "fields": draw(_evolved_fields(writer["fields"], ""))}
    rename = draw(st.sampled_from([None, None, None, "New", "Other"]))
    if rename:
        reader = {**reader, "name": rename, "aliases": [draw(st.sampled_from(["Old", "ns1.Old", "Old2"]))]}
    return reader, writer


PAIRS = _pairs()


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(pair=PAIRS)
def test_checker_agrees_with_java_parity_oracle(pair: tuple[dict, dict]) -> None:
    reader_json, writer_json = (json.dumps(s) for s in pair)
    expected = avro_oracle.check(reader_json, writer_json)
    found = AVRO.can_read(AVRO.parse(reader_json, {}), AVRO.parse(writer_json, {}))
    assert (not found) == expected.compatible
    if expected.ambiguous:  # Java threw (ambiguous aliases): Confluent reports one entry
        assert [i.type for i in found] == ["UNEXPECTED_EXCEPTION"]
    else:
        assert {i.type for i in found} == expected.types
