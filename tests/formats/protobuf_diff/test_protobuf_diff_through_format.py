"""The checker behind the registry's Protobuf format: schemas parsed as the registry parses
them (compiled, printed as canonical text, compiled again) must give the checker exactly what
compiling the texts directly gives, so the stored form loses nothing a rule looks at. Every
pair of the rule tables and of Confluent's examples is checked both ways."""
from __future__ import annotations

from app.formats.protobuf import ProtobufFormat
from app.formats.protobuf.diff import compare, incompatible

from .protobuf_diff_support import compile_native
from .test_protobuf_diff_shortcut import _pairs

FORMAT = ProtobufFormat()


def test_parsed_schemas_compare_as_compiled_ones() -> None:
    mismatches = []
    pairs = _pairs()
    for writer, writer_deps, reader, reader_deps in pairs:
        parsed_writer = FORMAT.parse(writer, writer_deps)
        parsed_reader = FORMAT.parse(reader, reader_deps)
        direct = incompatible(compare(compile_native(writer, writer_deps), compile_native(reader, reader_deps)))
        through_format = FORMAT.can_read(parsed_reader, parsed_writer)
        if through_format != direct:
            mismatches.append((writer, reader, direct, through_format))
    assert not mismatches, mismatches[:2]
    assert len(pairs) > 100


def test_verbose_entries_through_the_format() -> None:
    """A BACKWARD check as the core words it: the new schema reads, the old one wrote."""
    old = FORMAT.parse('syntax = "proto3";\nimport "google/type/date.proto";\nmessage A { google.type.Date d = 1; }', {})
    new = FORMAT.parse('syntax = "proto3";\nmessage A { int64 d = 1; }', {})
    entries = [FORMAT.describe(i, "new", "old") for i in FORMAT.can_read(new, old)]
    assert entries == [
        "{errorType:\"FIELD_KIND_CHANGED\", description:\"The type of a field at path '#/A/1' in the new schema "
        "does not match the old schema\"}"
    ]


RICH = """syntax = "proto3";
package shop.orders.v1;

import "google/protobuf/timestamp.proto";
import "google/type/money.proto";

enum Channel { CHANNEL_UNSPECIFIED = 0; WEB = 1; STORE = 2; }

message Order {
  string id = 1;
  google.protobuf.Timestamp placed_at = 2;
  repeated Line lines = 3;
  map<string, string> labels = 4;
  optional string coupon = 5;
  Channel channel = 6;
  oneof payment { Card card = 7; string voucher = 8; }
  google.type.Money total = 9;
  map<int32, Line> by_position = 10;
  reserved 20 to 25;

  message Line {
    string sku = 1;
    uint32 quantity = 2;
    enum Kind { option allow_alias = true; GOOD = 0; PRODUCT = 0; SERVICE = 1; }
    Kind kind = 3;
  }
}

message Card { string last4 = 1; int32 expiry_month = 2; int32 expiry_year = 3; }
"""


def test_a_schema_sent_as_a_serialized_descriptor_compares_equal_to_its_text() -> None:
    """confluent-kafka sends base64 `FileDescriptorProto`s; the same schema sent as text and as
    a descriptor must show no difference at all, either way round."""
    as_text = FORMAT.parse(RICH, {})
    serialized = FORMAT.formatted(as_text, "serialized")
    assert serialized is not None
    as_descriptor = FORMAT.parse(serialized, {})
    assert compare(as_text.native, as_descriptor.native) == []
    assert compare(as_descriptor.native, as_text.native) == []
