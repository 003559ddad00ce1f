"""How often protoc runs for one schema, counted at the binding: once for a text, whatever
its layout, and not again for a policy's element walk; protoc's Python code generator (whose
cost grows with the square of the file) never runs for a schema that compiles."""
from __future__ import annotations

import pytest
from support.protoc_calls import CountingProtoc, counting_protoc

from app.formats import work_budget
from app.formats.base import SchemaParseError
from app.formats.protobuf import ProtobufFormat
from app.formats.protobuf.tokens import pieces, same_pieces

CANONICAL = 'syntax = "proto3";\npackage shop;\n\nmessage Order {\n  string id = 1;\n  int64 cents = 2;\n}\n'
# The same tokens as CANONICAL, laid out otherwise and commented.
UNTIDY = ('// Orders.\nsyntax="proto3"; package shop;\n/* the order */ message Order{string id=1;'
          '\n\n\tint64 cents = 2; // in cents\n}')


@pytest.fixture
def protoc(monkeypatch: pytest.MonkeyPatch) -> CountingProtoc:
    return counting_protoc(monkeypatch)


def test_a_canonical_text_compiles_once(protoc: CountingProtoc) -> None:
    parsed = ProtobufFormat().parse(CANONICAL, {})
    assert parsed.canonical == CANONICAL
    assert protoc.calls == {"run_main": 1}


def test_a_text_laid_out_otherwise_compiles_once_and_stores_the_canonical_text(protoc: CountingProtoc) -> None:
    parsed = ProtobufFormat().parse(UNTIDY, {})
    assert parsed.canonical == CANONICAL
    assert protoc.calls == {"run_main": 1}


def test_a_text_the_printer_rewrites_is_compiled_again_to_prove_it_means_the_same(protoc: CountingProtoc) -> None:
    qualified = CANONICAL.replace("message Order {", "message Order {\n  .shop.Order parent = 3;")
    parsed = ProtobufFormat().parse(qualified, {})
    assert "  Order parent = 3;" in parsed.canonical
    assert protoc.calls == {"run_main": 2}


def test_the_policy_view_reads_the_source_info_of_the_one_compile(protoc: CountingProtoc) -> None:
    fmt = ProtobufFormat()
    parsed = fmt.parse(UNTIDY, {})
    located = {(e.kind, e.name): e.location for e in fmt.elements(parsed)}
    assert located[("record", "Order")] == "3:17"  # in the text as sent, after its comment
    assert located[("field", "cents")] == "5:9"  # protoc counts a tab as up to 8 columns
    assert protoc.calls == {"run_main": 1}


def test_the_stored_text_of_a_schema_sent_otherwise_is_compiled_for_its_own_locations(protoc: CountingProtoc) -> None:
    fmt = ProtobufFormat()
    parsed = fmt.parse(UNTIDY, {})
    located = {(e.kind, e.name): e.location for e in fmt.elements(parsed, as_stored=True)}
    assert located[("record", "Order")] == "4:1"
    assert protoc.calls == {"run_main": 2}


def test_a_refused_text_reads_protocs_errors_from_the_binding_once(protoc: CountingProtoc) -> None:
    with pytest.raises(SchemaParseError) as caught:
        ProtobufFormat().parse('syntax = "proto3";\nmessage A {\n  Missing m = 1;\n}\n', {})
    assert caught.value.message.endswith('schema.proto:3:3: "Missing" is not defined.')
    assert protoc.calls == {"run_main": 1, "get_protos": 1}


def test_unused_import_warnings_never_reach_stderr(capfd: pytest.CaptureFixture[str]) -> None:
    ProtobufFormat().parse('syntax = "proto3";\nimport "google/protobuf/timestamp.proto";\nmessage A {\n  int32 a = 1;\n}\n', {})
    assert capfd.readouterr().err == ""


@pytest.mark.parametrize("a, b", [
    (CANONICAL, UNTIDY),
    ('option (x) = "a  b";', 'option(x)="a  b" ;'),
    ('m { a = 1; } // trailing', 'm{a=1;}'),
    ("a /* x */ b", "a\n// x\nb"),
    ("f = -1.5e-3;", "f=-1.5e-3;"),
])
def test_texts_differing_in_whitespace_and_comments_have_the_same_pieces(a: str, b: str) -> None:
    assert same_pieces(a, b)


@pytest.mark.parametrize("a, b", [
    ('option (x) = "a  b";', 'option (x) = "a b";'),  # inside a string whitespace counts
    ('s = "//x";', 's = "";'),  # a string is no comment
    ("a b", "ab"),
    ("f = 1.5;", "f = 1 .5;"),
    ('s = "a" "b";', 's = "ab";'),  # the same value, other tokens: left to protoc
    ("a\u00a0b", "a b"),  # a no-break space is no whitespace to protoc
])
def test_texts_differing_in_tokens_have_other_pieces(a: str, b: str) -> None:
    assert not same_pieces(a, b)


def test_pieces_know_where_they_are() -> None:
    text = 'option (x) = { a: "b c" }; // done'
    found = [(p.text, text[p.start:p.end]) for p in pieces(text)]
    assert [t for t, _ in found] == ["option", "(", "x", ")", "=", "{", "a", ":", '"b c"', "}", ";"]
    assert all(t == s for t, s in found)


def test_a_parse_past_its_work_budget_is_refused_without_waiting_for_protoc(protoc: CountingProtoc) -> None:
    """protoc runs in a process of its own, which is killed once the budget is spent."""
    text = 'syntax = "proto3";\n' + "".join(f"message M{i} {{ int32 a = 1; }}\n" for i in range(50))
    with work_budget.limited(1e-9), pytest.raises(work_budget.WorkBudgetExceeded):
        ProtobufFormat().parse(text, {})
    assert protoc.calls == {}
    assert ProtobufFormat().parse(text, {}).canonical.startswith('syntax = "proto3";')


def test_a_stored_texts_parse_keeps_no_source_info_and_compiles_again_for_a_policy(protoc: CountingProtoc) -> None:
    fmt = ProtobufFormat()
    stored = fmt.parse(CANONICAL, {}, strict=False)
    assert stored.native.source_info == b""
    located = {(e.kind, e.name): e.location for e in fmt.elements(stored, as_stored=True)}
    assert located[("record", "Order")] == "4:1"
    assert protoc.calls == {"run_main": 2}
