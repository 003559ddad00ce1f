"""Custom string options that are not UTF-8 are refused before protoc reads them (it aborts its
process on them), naming the option and its line; bytes, proto2 strings, escapes that spell
UTF-8 and options nothing defines are accepted as before."""
from __future__ import annotations

import base64

import pytest

from support.protobuf_crash_shapes import ACCEPTED_SHAPES, CRASH_SHAPES

from app.formats.base import SchemaParseError
from app.formats.protobuf import compiler, protoc_process
from app.formats.protobuf.format import ProtobufFormat
from app.formats.protobuf.option_utf8 import literal_bytes


@pytest.fixture
def crashes_counted(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Every compile process that ended while compiling (none may, for a refused shape)."""
    seen: list[str] = []
    real = protoc_process.ProtocProcess._stop

    def stop(self: protoc_process.ProtocProcess, child, why):  # type: ignore[no-untyped-def]
        if why is not None:
            seen.append(why)
        real(self, child, why)

    monkeypatch.setattr(protoc_process.ProtocProcess, "_stop", stop)
    return seen


@pytest.mark.parametrize("name", sorted(CRASH_SHAPES))
def test_a_string_option_that_is_not_utf8_is_refused_naming_option_and_line(name: str, crashes_counted: list[str]) -> None:
    text, option, line = CRASH_SHAPES[name]
    with pytest.raises(SchemaParseError) as refused:
        ProtobufFormat().parse(text, {})
    message = str(refused.value)
    assert f"the option {option} on line {line} sets the string field" in message
    assert "not valid UTF-8" in message
    assert crashes_counted == []


@pytest.mark.parametrize("name", sorted(ACCEPTED_SHAPES))
def test_escapes_that_protoc_can_take_are_accepted(name: str) -> None:
    parsed = ProtobufFormat().parse(ACCEPTED_SHAPES[name], {})
    assert ProtobufFormat().parse(parsed.canonical, {}, strict=False).canonical == parsed.canonical


def test_without_the_check_protoc_crashes_and_the_schema_is_refused_all_the_same(
    monkeypatch: pytest.MonkeyPatch, crashes_counted: list[str]
) -> None:
    """The compile process is what stands between such a crash and the worker."""
    monkeypatch.setattr(compiler.option_utf8, "refusal", lambda text, compile_text: None)
    with pytest.raises(SchemaParseError) as refused:
        ProtobufFormat().parse(CRASH_SHAPES["confluent_field_meta"][0], {})
    assert str(refused.value) == compiler.REFUSAL.format(compiler.CRASHED)
    assert crashes_counted == ["ended while compiling a schema"]
    assert ProtobufFormat().parse('syntax = "proto3";\nmessage After { int32 a = 1; }\n', {}).canonical


@pytest.mark.parametrize(("literal", "expected"), [
    ('"\\377"', b"\xff"),
    ("'\\xFf\\x7'", b"\xff\x07"),
    ('"\\101\\n\\t\\\\\\""', b"A\n\t\\\""),
    ('"\\u00e9"', "é".encode()),
    ('"\\U0001F600"', "😀".encode()),
    ('"\\ud83d\\ude00"', "😀".encode()),
    ('"\\ud800"', b"\xed\xa0\x80"),
    ('"é"', "é".encode()),
    ('"unterminated', b"unterminated"),
])
def test_literal_bytes_decode_escapes_as_protoc_does(literal: str, expected: bytes) -> None:
    assert literal_bytes(literal) == expected


def test_a_sent_descriptor_whose_string_option_is_not_utf8_is_refused() -> None:
    """confluent-kafka sends base64 descriptors: such an option cannot even be read back (nor
    the descriptor at all, once this process has loaded confluent/meta's generated module)."""
    text = 'syntax = "proto3";\nimport "confluent/meta.proto";\nmessage M { string a = 1 [(confluent.field_meta).doc = "ok"]; }\n'
    sent = compiler.compile_text(text, {}).file.SerializeToString().replace(b"ok", b"\xff\xfe")
    with pytest.raises(SchemaParseError):
        ProtobufFormat().parse(base64.b64encode(sent).decode(), {})
