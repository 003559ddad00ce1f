"""Options on an `extensions` statement go to each range it declares: a schema asking for more
than `MAX_COPIES` such assignments is refused before protoc runs (protoc's work, and the
canonical text, grow with ranges times options and no work budget can stop protoc)."""
from __future__ import annotations

import pytest
from support.protoc_calls import CountingProtoc, counting_protoc

from app.formats.base import SchemaParseError
from app.formats.protobuf import ProtobufFormat
from app.formats.protobuf.range_options import MAX_COPIES, REFUSED, too_many_copies


def _schema(ranges: int, options: int) -> str:
    numbers = ", ".join(str(n) for n in range(1, ranges + 1))
    assignments = ", ".join(f"(opt{k}) = 1" for k in range(options))
    return f'syntax = "proto2";\nmessage A {{\n  extensions {numbers} [{assignments}];\n}}\n'


@pytest.fixture
def protoc(monkeypatch: pytest.MonkeyPatch) -> CountingProtoc:
    return counting_protoc(monkeypatch)


def test_ranges_times_options_past_the_cap_are_refused_before_protoc_runs(protoc: CountingProtoc) -> None:
    with pytest.raises(SchemaParseError, match=REFUSED):
        ProtobufFormat().parse(_schema(101, 100), {})
    assert protoc.calls == {}


def test_options_copied_to_ranges_up_to_the_cap_are_kept_on_each_range() -> None:
    parsed = ProtobufFormat().parse(_schema(3, 2), {})
    assert parsed.canonical.count(" [(opt0) = 1, (opt1) = 1];") == 3


@pytest.mark.parametrize("ranges, options, refused", [
    (100, 100, False), (101, 100, True), (1, MAX_COPIES + 1, True), (MAX_COPIES + 1, 0, False),
])
def test_the_count_is_ranges_times_options_per_statement(ranges: int, options: int, refused: bool) -> None:
    text = _schema(ranges, options).replace(" []", "")
    assert too_many_copies(text) is refused


def test_statements_add_up_and_other_brackets_do_not_count() -> None:
    statement = "  extensions " + ", ".join(str(n) for n in range(1, 101)) + " [(a) = {x: [1, 2]}, (b) = 1];\n"
    field = "  repeated int32 extensions = 1000 [packed = true];\n"
    many = "syntax = 'proto2';\nmessage A {\n" + field + statement * 49 + "}\n"  # 1 + 49 x 100 x 2
    assert not too_many_copies(many)
    assert too_many_copies(many.replace(statement * 49, statement * 51))
