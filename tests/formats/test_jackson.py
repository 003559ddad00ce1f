"""The JSON text writer both JSON-based formats share (app/formats/jackson.py)."""
from __future__ import annotations

import pytest

from app.formats import jackson


def _plain(value: float) -> str:
    return repr(value)


@pytest.mark.parametrize(("value", "text"), [
    ({"b": 1, "a": [True, None, "x"]}, '{"b":1,"a":[true,null,"x"]}'),
    ("tab\there", '"tab\\there"'),
    ("bell\x07", '"bell\\u0007"'),
    ("\x1f", '"\\u001F"'),  # upper-case hex, where Python writes \\u001f
    ("\ud800", '"\\uD800"'),  # an unpaired surrogate stays escaped: the text must encode as UTF-8
    ("é€😀", '"é€😀"'),  # everything else is written raw
    (1.5, "1.5"),
])
def test_values_are_written_as_jackson_writes_them(value: object, text: str) -> None:
    assert jackson.dumps(value, _plain) == text
    jackson.dumps(value, _plain).encode("utf-8")


def test_floats_go_through_the_format_s_number_printer() -> None:
    assert jackson.dumps([1.0, 2], lambda v: "F") == "[F,2]"


@pytest.mark.parametrize(("text", "deeper"), [
    ("[" * 200 + "]" * 200, False),
    ("[" * 201 + "]" * 201, True),
    ('["' + "[" * 500 + '"]', False),  # brackets inside strings do not count
    ('{"a":' * 201 + "1" + "}" * 201, True),
])
def test_depth_is_measured_without_recursion(text: str, deeper: bool) -> None:
    assert jackson.depth_exceeds(text) is deeper
