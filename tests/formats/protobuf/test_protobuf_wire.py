"""Reading serialized protobuf fields without a descriptor (app/formats/protobuf/wire.py)."""
from __future__ import annotations

import pytest
from google.protobuf.descriptor_pb2 import FileDescriptorProto, FileDescriptorSet

from app.formats.protobuf import wire


def test_a_descriptor_set_reads_as_its_files_bytes_in_order() -> None:
    files = [FileDescriptorProto(name="a.proto", package="a"), FileDescriptorProto(name="b.proto")]
    data = FileDescriptorSet(file=files).SerializeToString()
    found = list(wire.fields(data))
    assert [f.number for f in found] == [1, 1]
    assert [FileDescriptorProto.FromString(f.payload or b"") for f in found] == files


def test_varint_and_fixed_fields_come_without_payload() -> None:
    # field 1 varint 150, field 2 fixed32, field 3 fixed64, field 4 "hi"
    data = b"\x08\x96\x01" + b"\x15" + b"\0" * 4 + b"\x19" + b"\0" * 8 + b"\x22\x02hi"
    assert list(wire.fields(data)) == [(1, None), (2, None), (3, None), (4, b"hi")]


@pytest.mark.parametrize("data", [b"\x08\x96", b"\x22\x05hi", b"\x0b"])
def test_bytes_cut_short_or_of_an_unread_wire_type_are_malformed(data: bytes) -> None:
    with pytest.raises(wire.Malformed):
        list(wire.fields(data))
