"""The Avro format's nesting bounds (app/formats/avro/nesting.py): a schema too deep to walk is
a `SchemaParseError` with a clear message, never a RecursionError, and one at the bound works
in every operation with room to spare on the stack."""
from __future__ import annotations

import json
import sys
from collections.abc import Callable
from typing import TypeVar

import pytest

from app.formats.avro import AvroFormat
from app.formats.base import ParsedSchema, SchemaParseError

AVRO = AvroFormat()
TOO_DEEP = "Invalid schema of type AVRO, details: Schema is nested more than 200 levels deep (JSON arrays and objects)"
WALK_TOO_DEEP = (
    "Invalid schema of type AVRO, details: Schema is nested more than 400 levels deep, "
    "following its named types and references"
)
T = TypeVar("T")


def arrays(levels: int, leaf: str = '"int"') -> str:
    return '{"type":"array","items":' * levels + leaf + "}" * levels


def optional_arrays(levels: int) -> str:
    return '["null",{"type":"array","items":' * levels + '"int"' + "}]" * levels


def records(levels: int, prefix: str = "R") -> str:
    opening = "".join('{"type":"record","name":"%s%d","fields":[{"name":"f","type":' % (prefix, i) for i in range(levels))
    return opening + '"int"' + "}]}" * levels


def lists(levels: int) -> str:
    return "[" * levels + "1" + "]" * levels


def with_default(levels: int) -> str:
    return '{"type":"record","name":"D","fields":[{"name":"f","type":%s,"default":%s}]}' % (
        arrays(levels), lists(levels))


def at_stack_depth(frames: int, call: Callable[[], T]) -> T:
    """`call()` with `frames` more frames below it, as a web stack would put there."""
    return call() if frames == 0 else at_stack_depth(frames - 1, call)


TOO_DEEP_SCHEMAS = {
    "arrays_201": arrays(201),
    "arrays_1000": arrays(1000),
    "maps_1000": '{"type":"map","values":' * 1000 + '"int"' + "}" * 1000,
    "unions_500": lists(500),
    "optional_arrays_500": optional_arrays(500),
    "records_67": records(67),
    "records_400": records(400),
    "json_default_1000": '{"type":"record","name":"D","fields":[{"name":"f","type":"int","default":%s}]}' % lists(1000),
    "json_property_1000": '{"type":"int","x":%s}' % lists(1000),
}

AT_THE_BOUND = {
    "arrays_200": arrays(200),
    "optional_arrays_100": optional_arrays(100),
    "records_66": records(66),
    "array_and_default_197": with_default(197),
}


@pytest.mark.parametrize("text", TOO_DEEP_SCHEMAS.values(), ids=TOO_DEEP_SCHEMAS.keys())
@pytest.mark.parametrize("strict", [True, False])
def test_a_schema_deeper_than_the_bound_is_refused_before_any_walk(text: str, strict: bool) -> None:
    with pytest.raises(SchemaParseError) as raised:
        AVRO.parse(text, {}, strict=strict)
    assert raised.value.message == TOO_DEEP


def test_a_referenced_schema_deeper_than_the_bound_is_refused() -> None:
    with pytest.raises(SchemaParseError) as raised:
        AVRO.parse('"int"', {"deep": arrays(201)})
    assert raised.value.message == TOO_DEEP


def test_brackets_inside_strings_do_not_count() -> None:
    doc = '\\"' + "[{" * 300
    text = '{"type":"record","name":"R","doc":"%s","fields":[{"name":"f","type":%s}]}' % (doc, arrays(190))
    assert json.loads(AVRO.parse(text, {}).canonical)["doc"] == '"' + "[{" * 300


def operations(text: str) -> tuple[ParsedSchema, ParsedSchema, str | None]:
    """Everything the registry does with one schema: parse, normalize, compare with itself
    (one parse, and two, so that no pair is memoized), render `resolved`."""
    parsed = AVRO.parse(text, {})
    normalized = AVRO.normalize(parsed)
    assert AVRO.can_read(parsed, parsed) == []
    assert AVRO.can_read(parsed, AVRO.parse(text, {}, strict=False)) == []
    return parsed, normalized, AVRO.formatted(parsed, "resolved")


@pytest.mark.parametrize("text", AT_THE_BOUND.values(), ids=AT_THE_BOUND.keys())
def test_a_schema_at_the_bound_works_in_every_operation_and_round_trips(text: str) -> None:
    parsed, normalized, resolved = operations(text)
    assert json.loads(parsed.canonical) == json.loads(text)
    assert AVRO.parse(parsed.canonical, {}).canonical == parsed.canonical
    assert normalized.canonical == parsed.canonical
    assert resolved == parsed.canonical


@pytest.mark.parametrize("text", AT_THE_BOUND.values(), ids=AT_THE_BOUND.keys())
def test_the_bound_leaves_room_for_a_deep_caller(text: str) -> None:
    """The web stack below a request takes under 100 frames; 400 still fit."""
    at_stack_depth(400, lambda: operations(text))


def test_comparing_two_cycles_of_named_types_stops_at_the_walk_bound() -> None:
    """Records A1..A19 and B1..B20 each point to the next and the last to the first: the
    pairs only repeat after 380 records, over 1,000 steps, far deeper than either text."""

    def cycle(prefix: str, length: int) -> str:
        links = "".join(
            '["null",{"type":"record","name":"%s%d","fields":[{"name":"f","default":null,"type":' % (prefix, i)
            for i in range(1, length + 1)
        )
        return links + f'["null","{prefix}1"]' + "}]}]" * length

    reader, writer = AVRO.parse(cycle("A", 19), {}), AVRO.parse(cycle("B", 20), {})
    with pytest.raises(SchemaParseError) as raised:
        AVRO.can_read(reader, writer)
    assert raised.value.message == WALK_TOO_DEEP


def test_resolved_text_through_references_stops_at_the_walk_bound() -> None:
    """Each schema is 190 levels deep and names the next by reference; `resolved` inlines them."""
    base = records(1, "Base").replace('"int"', arrays(190))
    middle = records(1, "Middle").replace('"int"', arrays(190, '"Base0"'))
    parsed = AVRO.parse(arrays(190, '"Middle0"'), {"base": base, "middle": middle})
    assert json.loads(parsed.canonical) == json.loads(arrays(190, '"Middle0"'))
    with pytest.raises(SchemaParseError) as raised:
        AVRO.formatted(parsed, "resolved")
    assert raised.value.message == WALK_TOO_DEEP


def test_a_canonical_text_too_deep_to_parse_again_is_refused() -> None:
    """A type nested inside a referenced schema is written out in full where the referrer
    uses it, so the text to store can be deeper than the text sent."""
    inner = records(1, "Inner").replace('"int"', arrays(20))
    base = records(1, "Base").replace('"int"', arrays(160, inner))
    assert AVRO.parse(arrays(170, '"Inner0"'), {"base": base})
    with pytest.raises(SchemaParseError) as raised:
        AVRO.parse(arrays(190, '"Inner0"'), {"base": base})
    assert raised.value.message == TOO_DEEP


def test_recursion_limit_reached_anyway_is_still_a_parse_error() -> None:
    """The last line of defence: a caller that has used almost all of the stack."""
    frames = sys.getrecursionlimit() - len(_stack()) - 40
    with pytest.raises(SchemaParseError) as raised:
        at_stack_depth(frames, lambda: AVRO.parse(arrays(200), {}))
    assert raised.value.message == "Invalid schema of type AVRO, details: Schema is nested too deeply to process"


def _stack() -> list[object]:
    frame, frames = sys._getframe(1), []
    while frame is not None:
        frames.append(frame)
        frame = frame.f_back
    return frames
