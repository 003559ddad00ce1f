"""Protobuf files shared by the Protobuf serializer tests (tests/client, tests/interop), compiled
with grpc_tools' protoc at test time into a temporary directory (generated code is never
committed).

`serde_samples/order.proto` imports `customer.proto` (which imports `address.proto`, so an
order reaches the address only transitively), `google/protobuf/timestamp.proto` and
`google/type/date.proto`. It declares two top-level messages and a two-level nesting, so
records have message indexes `[0]`, `[1]`, `[0, 0]` and `[0, 0, 0]`.
"""
from __future__ import annotations

import importlib
import os
import sys
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType

import grpc_tools
from google.protobuf import descriptor_pb2, descriptor_pool
from google.protobuf.message import Message
from google.protobuf.message_factory import GetMessageClass
from google.type import date_pb2
from grpc_tools import protoc

PACKAGE = "serde_samples"

PROTOS = {
    "address.proto": """
syntax = "proto3";
package serde.samples.common;

message Address {
  string city = 1;
  string zip = 2;
}
""",
    "customer.proto": """
syntax = "proto3";
package serde.samples.common;

import "serde_samples/address.proto";

message Customer {
  int64 id = 1;
  string name = 2;
  Address address = 3;
}
""",
    "order.proto": """
syntax = "proto3";
package serde.samples;

import "serde_samples/customer.proto";
import "google/protobuf/timestamp.proto";
import "google/type/date.proto";

message Order {
  int64 id = 1;
  serde.samples.common.Customer buyer = 2;
  google.protobuf.Timestamp placed_at = 3;
  repeated Line lines = 4;
  google.type.Date deliver_on = 5;

  message Line {
    string sku = 1;
    int32 quantity = 2;
    Discount discount = 3;

    message Discount {
      int32 percent = 1;
    }
  }
}

message Refund {
  int64 order_id = 1;
  string reason = 2;
}
""",
}


@dataclass(frozen=True)
class Samples:
    address_pb2: ModuleType
    customer_pb2: ModuleType
    order_pb2: ModuleType

    def order(self, number: int) -> Message:
        """An order whose every field is set, the imported and well-known ones included."""
        common, shop = self.customer_pb2, self.order_pb2
        order = shop.Order(
            id=number,
            buyer=common.Customer(id=100 + number, name=f"buyer {number} ✓",
                                  address=self.address_pb2.Address(city="Porto", zip=f"{4000 + number}")),
            lines=[shop.Order.Line(sku=f"sku-{i}", quantity=i + 1,
                                   discount=shop.Order.Line.Discount(percent=i * 5)) for i in range(number % 3 + 1)],
        )
        order.placed_at.FromSeconds(1_700_000_000 + number)
        order.deliver_on.CopyFrom(date_pb2.Date(year=2026, month=11, day=1 + number % 28))
        return order


def generate(directory: Path) -> Samples:
    """Compiles the sample files into `directory` and imports the generated modules (once per
    process: the protobuf runtime's default pool keeps every file it has loaded)."""
    if f"{PACKAGE}.order_pb2" in sys.modules:
        return _loaded()
    sources, out = directory / "src", directory / "out"
    (sources / PACKAGE).mkdir(parents=True)
    out.mkdir()
    for name, text in PROTOS.items():
        (sources / PACKAGE / name).write_text(text.lstrip())
    includes = [
        str(sources),
        os.path.join(os.path.dirname(grpc_tools.__file__), "_proto"),  # google/protobuf/*.proto
        str(Path(date_pb2.__file__).resolve().parents[2]),  # google/type/*.proto (googleapis-common-protos)
    ]
    arguments = ["protoc", *(f"-I{path}" for path in includes), f"--python_out={out}",
                 *(f"{PACKAGE}/{name}" for name in PROTOS)]
    if protoc.main(arguments) != 0:
        raise RuntimeError(f"protoc failed on the sample files: {arguments}")
    sys.path.insert(0, str(out))
    return _loaded()


def _loaded() -> Samples:
    return Samples(*(importlib.import_module(f"{PACKAGE}.{name}_pb2") for name in ("address", "customer", "order")))


def wide_file_message(count: int, pick: int) -> type[Message]:
    """Message `pick` of a file of `count` top-level messages, built from descriptors in a pool
    of its own: an index past 63 needs a two-byte zig-zag varint."""
    file = descriptor_pb2.FileDescriptorProto(name=f"serde_samples/wide_{count}.proto", package="serde.samples.wide",
                                              syntax="proto3")
    for index in range(count):
        message = file.message_type.add(name=f"M{index}")
        message.field.add(name="n", number=1, type=descriptor_pb2.FieldDescriptorProto.TYPE_INT64,
                          label=descriptor_pb2.FieldDescriptorProto.LABEL_OPTIONAL)
    pool = descriptor_pool.DescriptorPool()
    pool.Add(file)
    return GetMessageClass(pool.FindMessageTypeByName(f"serde.samples.wide.M{pick}"))
