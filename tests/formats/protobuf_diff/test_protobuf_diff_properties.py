"""Random schema pairs drawn from one pool of names, numbers and types, so the two sides
overlap the way successive versions do. What must hold for any pair (old = writer, new =
reader): a schema differs from itself in nothing; nothing but `SchemaParseError` escapes; and
the rules are mirror images where Confluent's are: what one direction calls added the other
calls removed at the same place, and kind, group, label, name and index changes show both
ways (oneofs are left out of that property, because a changed field is located in the
reader's oneof)."""
from __future__ import annotations

from collections import Counter

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from app.formats.protobuf.diff import changes as c
from app.formats.protobuf.diff import compare

from .protobuf_diff_support import compile_native

SCALARS = ["int32", "int64", "uint32", "sint64", "bool", "string", "bytes", "fixed32", "sfixed64", "float", "double"]
MESSAGE_NAMES = ["A", "B", "C"]
FIELD_NAMES = ["x", "y", "z", "w"]
MIRRORED = {
    c.MESSAGE_ADDED: c.MESSAGE_REMOVED,
    c.ENUM_ADDED: c.ENUM_REMOVED,
    c.ENUM_CONST_ADDED: c.ENUM_CONST_REMOVED,
    c.FIELD_ADDED: c.FIELD_REMOVED,
    c.REQUIRED_FIELD_ADDED: c.REQUIRED_FIELD_REMOVED,
    c.ONEOF_ADDED: c.ONEOF_REMOVED,
}
MIRRORED.update({removed: added for added, removed in list(MIRRORED.items())})
SYMMETRIC = {
    c.PACKAGE_CHANGED, c.MESSAGE_MOVED, c.ENUM_CONST_CHANGED, c.FIELD_NAME_CHANGED, c.FIELD_KIND_CHANGED,
    c.FIELD_SCALAR_KIND_CHANGED, c.FIELD_NAMED_TYPE_CHANGED, c.FIELD_NUMERIC_LABEL_CHANGED,
    c.FIELD_STRING_OR_BYTES_LABEL_CHANGED,
}
ALL_TYPES = {v for k, v in vars(c).items() if k.isupper() and isinstance(v, str)}


@st.composite
def schemas(draw: st.DrawFn, oneofs: bool) -> str:
    names = draw(st.lists(st.sampled_from(MESSAGE_NAMES), min_size=1, max_size=3, unique=True))
    with_enum = draw(st.booleans())
    package = draw(st.sampled_from(["", "package p;", "package q;"]))
    kinds = SCALARS + (["E"] if with_enum else []) + names + ["map"]
    parts = ['syntax = "proto3";', package]
    if with_enum:
        values = draw(st.lists(st.sampled_from(["ONE", "TWO", "UNO"]), max_size=3, unique=True))
        numbers = draw(st.lists(st.integers(1, 17), min_size=len(values), max_size=len(values), unique=True))
        parts.append("enum E { ZERO = 0; " + " ".join(f"{v} = {n};" for v, n in zip(values, numbers)) + " }")
    for name in names:
        fields = []
        numbers = draw(st.lists(st.integers(1, 6), max_size=4, unique=True))
        field_names = draw(st.lists(st.sampled_from(FIELD_NAMES), min_size=len(numbers), max_size=len(numbers),
                                    unique=True))
        for number, field_name in zip(numbers, field_names):
            kind = draw(st.sampled_from(kinds))
            if kind == "map":
                value = draw(st.sampled_from(SCALARS + names))
                fields.append(f"map<string, {value}> {field_name} = {number};")
            else:
                label = draw(st.sampled_from(["", "optional ", "repeated "]))
                fields.append(f"{label}{kind} {field_name} = {number};")
        if oneofs and len(fields) > 1 and draw(st.booleans()):
            cut = draw(st.integers(1, len(fields)))
            inside = [f for f in fields[:cut] if not f.startswith(("optional", "repeated", "map"))]
            outside = [f for f in fields[:cut] if f not in inside] + fields[cut:]
            if inside:
                fields = outside + ["oneof " + draw(st.sampled_from(["o", "p"])) + " { " + " ".join(inside) + " }"]
        nested = "message N { int32 v = 1; } " if draw(st.booleans()) else ""
        parts.append(f"message {name} {{ {nested}{' '.join(fields)} }}")
    return "\n".join(parts)


def _found(writer: str, reader: str) -> list[tuple[str, str]]:
    return [(d.type, d.location) for d in compare(compile_native(writer), compile_native(reader))]


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(schemas(oneofs=True), schemas(oneofs=True))
def test_any_pair_compares_cleanly_and_a_schema_equals_itself(old: str, new: str) -> None:
    assert _found(old, old) == []
    found = _found(old, new)
    assert {change for change, _ in found} <= ALL_TYPES
    assert all(location.startswith("#/") for _, location in found)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(schemas(oneofs=False), schemas(oneofs=False))
def test_the_two_directions_mirror_each_other(old: str, new: str) -> None:
    forward = _found(old, new)
    backward = _found(new, old)
    mirrored = Counter((MIRRORED.get(change, change), location) for change, location in forward
                       if change in MIRRORED or change in SYMMETRIC)
    assert mirrored == Counter(d for d in backward if d[0] in MIRRORED or d[0] in SYMMETRIC)
