"""Each built-in rule over Protobuf, table-driven: messages (nested, recursive), fields,
enums and values, oneofs, repeated and map fields, the package. Every location is a
`line:column` in the text as sent and must point at the declaration the violation names."""
from __future__ import annotations

from typing import Any

import pytest

from app.formats import FORMATS
from app.formats.base import ParsedSchema
from app.policies.catalogue import load_catalogue
from app.policies.engine import RuleUse, evaluate
from app.policies.rule import RuleContext, Violation

CATALOGUE = load_catalogue(plugins=False)
PROTOBUF = FORMATS["PROTOBUF"]

ORDER = '''syntax = "proto3";
package com.acme.orders;
import "google/protobuf/timestamp.proto";

// An order.
message Order {
  // Key
  int64 id = 1;
  float Amount = 2; // a trailing comment is not a doc
  // Counts
  map<string, int32> counts = 3;
  // Lines
  repeated Line lines = 4;
  oneof pay {
    string card = 5;
    int64 cash = 6;
    bytes token = 7;
  }
  // When
  google.protobuf.Timestamp at = 8;

  // A line.
  message Line {
    // Stock unit
    string sku = 1;
    // Linked list
    Line next = 2;
    // Kind
    Kind kind = 3;
  }
  enum Kind {
    KIND_A = 0;
    kind_b = 1;
  }
}

// Status.
enum Status {
  STATUS_OK = 0;
}
'''


def at(text: str, location: str) -> str:
    """The rest of the line `location` (`line:column`, 1-based) points at in `text`."""
    line, column = (int(part) for part in location.split(":"))
    assert line >= 1 and column >= 1, location
    return text.splitlines()[line - 1][column - 1:]


def check_locations(text: str, found: list[Violation]) -> None:
    """Every location points at the declaration of the element its path names."""
    for v in found:
        if v.location:
            assert v.path.rsplit(".", 1)[-1] in at(text, v.location) or v.path in at(text, v.location), v


def run(rule: str, params: dict[str, Any], schema: str = ORDER) -> list[tuple[str, str]]:
    proposed = PROTOBUF.parse(schema, {})
    outcome = evaluate([RuleUse(rule, params=params)], CATALOGUE, None, proposed, RuleContext("orders-value"))
    assert outcome.checked == [rule] and outcome.skipped == []
    check_locations(schema, outcome.violations)
    return [(v.location, v.message) for v in outcome.violations]


CASES = [
    ("doc-required", {}, ORDER, [
        ("9:3", 'field "Amount" has no doc'),
        ("15:5", 'field "card" has no doc'),
        ("16:5", 'field "cash" has no doc'),
        ("17:5", 'field "token" has no doc'),
    ]),
    ("doc-required", {"on": ["record", "enum"], "minLength": 8}, ORDER, [
        ("23:3", 'message "com.acme.orders.Order.Line" has a doc shorter than 8 characters'),
        ("31:3", 'enum "com.acme.orders.Order.Kind" has no doc'),
        ("38:1", 'enum "com.acme.orders.Status" has a doc shorter than 8 characters'),
    ]),
    ("name-pattern", {"field": "snake_case", "enumSymbol": "UPPER_SNAKE_CASE", "record": "PascalCase"}, ORDER, [
        ("9:3", 'field "Amount" does not match snake_case'),
        ("33:5", 'enum value "kind_b" does not match UPPER_SNAKE_CASE'),
    ]),
    ("name-pattern", {"namespace": "snake_case", "enum": "[A-Z][a-z]+"}, ORDER.replace("com.acme.orders", "com.Acme"), [
        ("2:1", 'package "com.Acme" does not match snake_case'),  # once, not once per message
    ]),
    ("name-pattern", {"record": "camelCase"}, ORDER, [
        ("6:1", 'message "Order" does not match camelCase'),
        ("23:3", 'message "Line" does not match camelCase'),
    ]),
    ("required-fields", {"fields": [{"name": "id", "type": "int64"}, {"name": "lines", "type": "repeated string"},
                                    {"name": "at", "type": "google.protobuf.Timestamp"}, {"name": "tenant"},
                                    {"name": "sku"}]}, ORDER, [
        ("13:3", 'field "lines" is of type repeated com.acme.orders.Order.Line, not repeated string'),
        ("6:1", 'message "com.acme.orders.Order" has no field "tenant"'),
        ("6:1", 'message "com.acme.orders.Order" has no field "sku"'),  # nested fields do not count
    ]),
    ("required-fields", {"fields": [{"name": "counts", "type": "map<string, int32>"}, {"name": "card"}]}, ORDER, []),
    ("required-fields", {"fields": [{"name": "id"}]}, 'syntax = "proto3";\nenum E {\n  E_A = 0;\n}\n', [
        ("", "schema is an enum, not a record with the required fields"),
    ]),
    ("max-size", {"fields": 10, "depth": 1, "enumSymbols": 1, "unionBranches": 2}, ORDER, [
        ("", "schema has 11 fields, over the limit of 10"),
        ("23:3", 'message "com.acme.orders.Order.Line" is nested 2 records deep, over the limit of 1'),
        ("31:3", 'enum "com.acme.orders.Order.Kind" has 2 symbols, over the limit of 1'),
        ("14:3", 'oneof "com.acme.orders.Order.pay" has 3 branches, over the limit of 2'),
    ]),
    ("max-size", {"fields": 11, "depth": 2, "unionBranches": 3}, ORDER, []),
    ("namespace-prefix", {"prefixes": ["com.acme"]}, ORDER, []),
    ("namespace-prefix", {"prefixes": ["com.acme", "org.example"]}, ORDER.replace("com.acme.orders", "com.acmex"), [
        ("2:1", 'package "com.acmex" is not under com.acme, org.example'),
    ]),
    ("namespace-prefix", {"prefixes": ["com.acme"]}, ORDER.replace("package com.acme.orders;", ""), [
        ("", "schema has no package, expected under com.acme"),
    ]),
    ("namespace-prefix", {"prefixes": ["com.acme"], "require": False}, ORDER.replace("package com.acme.orders;", ""), []),
    ("forbidden-types", {"types": ["float", "bytes", "map"], "maxUnionBranches": 2}, ORDER, [
        ("9:3", 'type "float" at "com.acme.orders.Order.Amount" is forbidden'),
        ("11:3", 'type "map" at "com.acme.orders.Order.counts" is forbidden'),
        ("17:5", 'type "bytes" at "com.acme.orders.Order.token" is forbidden'),
        ("14:3", 'oneof "com.acme.orders.Order.pay" has 3 branches, over the limit of 2'),
    ]),
    ("forbidden-types", {"types": ["array", "int32"]}, ORDER, [
        ("13:3", 'type "array" at "com.acme.orders.Order.lines" is forbidden'),
        ("11:3", 'type "int32" at "com.acme.orders.Order.counts" is forbidden'),
    ]),
]


@pytest.mark.parametrize(("rule", "params", "schema", "expected"), CASES,
                         ids=[f"{c[0]}-{i}" for i, c in enumerate(CASES)])
def test_rule_over_protobuf(rule: str, params: dict[str, Any], schema: str, expected: list[tuple[str, str]]) -> None:
    assert sorted(run(rule, params, schema)) == sorted(expected)


def changes(old: str, new: str, wanted: list[str]) -> list[Violation]:
    older, proposed = PROTOBUF.parse(old, {}), PROTOBUF.parse(new, {})
    uses = [RuleUse("forbidden-changes", params={"changes": wanted})]
    found = evaluate(uses, CATALOGUE, older, proposed, RuleContext("s", [(3, older)])).violations
    for v in found:  # an older version is read as stored: its locations are in its canonical text
        check_locations(older.canonical if v.version is not None else new, [v])
    return found


def test_forbidden_changes_between_protobuf_versions() -> None:
    old = ('syntax = "proto2";\npackage com.acme;\nmessage Order {\n  optional int64 id = 1;\n'
           '  optional string note = 2 [default = "x"];\n  optional int32 qty = 3;\n  optional string gone = 4;\n'
           '  enum Kind {\n    KIND_A = 0;\n    KIND_B = 1;\n  }\n}\n')
    new = ('syntax = "proto2";\npackage com.acme.v2;\nmessage Purchase {\n  optional string id = 1;\n'
           '  optional string note = 2 [default = "y"];\n  optional int32 quantity = 3;\n  required bool paid = 5;\n'
           '  enum Kind {\n    KIND_A = 0;\n    KIND_C = 2;\n  }\n}\n')
    found = changes(old, new, ["FIELD_REMOVED", "FIELD_ADDED_WITHOUT_DEFAULT", "FIELD_TYPE_CHANGED", "FIELD_RENAMED",
                               "FIELD_DEFAULT_CHANGED", "ENUM_SYMBOL_REMOVED", "ENUM_SYMBOL_ADDED", "NAME_CHANGED",
                               "NAMESPACE_CHANGED"])
    older_text = PROTOBUF.parse(old, {}).canonical
    removed = next(v for v in found if v.version is not None and "gone" in v.message)
    assert at(older_text, removed.location).startswith("optional string gone = 4;")
    assert sorted((v.message, v.version) for v in found) == sorted([
        ('message name changed from "Order" to "Purchase"', None),
        ('package changed from "com.acme" to "com.acme.v2"', None),
        ('field "id" changed type from int64 to string', None),
        ('field "note" changed its default', None),
        ('field "qty" was renamed to "quantity"', None),  # the same wire number
        ('field "paid" was added without a default', None),  # proto2 `required`
        ('field "gone" was removed', 3),
    ])
    # The nested enum is known by its full name, which moved with the package: under the
    # old names its symbols are compared too.
    new = new.replace("com.acme.v2", "com.acme").replace("Purchase", "Order")
    found = changes(old, new, ["ENUM_SYMBOL_REMOVED", "ENUM_SYMBOL_ADDED"])
    assert sorted((v.message, v.version) for v in found) == sorted([
        ('enum "com.acme.Order.Kind" lost symbol "KIND_B"', 3),
        ('enum "com.acme.Order.Kind" gained symbol "KIND_C"', None),
    ])


def test_a_proto3_field_always_has_a_default_and_a_lost_comment_is_not_a_change() -> None:
    old = 'syntax = "proto3";\n// An order.\nmessage Order {\n  // Key\n  int64 id = 1;\n}\n'
    new = 'syntax = "proto3";\nmessage Order {\n  int64 id = 1;\n  string added = 2;\n}\n'
    # Stored Protobuf texts keep no comments (as Confluent's), so DOC_REMOVED has nothing to compare.
    assert changes(old, new, ["FIELD_ADDED_WITHOUT_DEFAULT", "DOC_REMOVED"]) == []


def test_recursive_message_is_walked_once() -> None:
    names = [e.path for e in PROTOBUF.elements(PROTOBUF.parse(ORDER, {})) if e.kind == "record"]
    assert names == ["com.acme.orders.Order", "com.acme.orders.Order.Line"]


def test_types_from_imports_are_not_checked() -> None:
    found = run("doc-required", {"on": ["record", "field"]}, 'syntax = "proto3";\nimport "google/protobuf/timestamp.proto";\n'
                '// A.\nmessage A {\n  // At.\n  google.protobuf.Timestamp at = 1;\n}\n')
    assert found == []


def test_the_canonical_text_is_read_as_itself_not_as_the_text_first_sent() -> None:
    """Parses are cached by text, and a sent text's canonical form shares its compile: the
    canonical text, sent on its own, has no comments, so its fields have no docs."""
    sent = PROTOBUF.parse(ORDER, {})
    again: ParsedSchema = PROTOBUF.parse(sent.canonical, {})
    docs = {e.name: e.doc for e in PROTOBUF.elements(again) if e.kind == "field"}
    assert docs["id"] is None and {e.name: e.doc for e in PROTOBUF.elements(sent) if e.kind == "field"}["id"] == "Key"


def test_locations_of_a_descriptor_sent_in_base64_are_in_the_canonical_text() -> None:
    sent = PROTOBUF.parse(ORDER, {})
    encoded = PROTOBUF.formatted(sent, "serialized")
    assert encoded is not None
    parsed = PROTOBUF.parse(encoded, {})
    for element in PROTOBUF.elements(parsed):
        if element.kind == "field":
            assert element.name in at(parsed.canonical, element.location)


def test_protoc_warnings_do_not_reach_stderr(capfd: pytest.CaptureFixture[str]) -> None:
    """The unused import makes protoc warn; a policy check must print nothing."""
    text = 'syntax = "proto3";\nimport "google/protobuf/timestamp.proto";\nmessage Unused {\n  int32 a = 1;\n}\n'
    run("doc-required", {}, text)
    assert capfd.readouterr().err == ""
