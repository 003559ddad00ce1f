"""Protobuf serializers of `app.client` against confluent-kafka's, in one run.

A 10-field message (a well-known `Timestamp` and an enum among them) is serialized and
deserialized by: the protobuf runtime alone (`SerializeToString` / `ParseFromString`: the floor,
no framing, no registry), our `ProtobufSerializer` / `ProtobufDeserializer` reading into the
generated class and into a dynamic message built from the registry's descriptors, and
confluent-kafka's `ProtobufSerializer` / `ProtobufDeserializer` against the same registry. The
message class is generated at start-up by grpc_tools' protoc into a temporary directory. The
timing loop is `client_serde.py`'s: the variants take turns over several rounds and the best
round of each counts. The registry runs under gunicorn on SQLite (`sqlregistry serve`).
Prints figures only.

    python bench/client_protobuf_serde.py [--records 20000] [--rounds 5]
"""
from __future__ import annotations

import argparse
import importlib
import os
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

from client_serde import Serde, time_round  # also puts the repository and tests/ on sys.path
from bench.timing import best_of_rounds
from confluent_kafka.schema_registry import SchemaRegistryClient
from confluent_kafka.schema_registry.protobuf import ProtobufDeserializer as ConfluentDeserializer
from confluent_kafka.schema_registry.protobuf import ProtobufSerializer as ConfluentSerializer
from confluent_kafka.serialization import MessageField, SerializationContext

from app.client import ProtobufDeserializer, ProtobufSerializer, RegistryClient

PROTO = """
syntax = "proto3";
package bench;

import "google/protobuf/timestamp.proto";

message Purchase {
  enum Status {
    NEW = 0;
    PAID = 1;
    SHIPPED = 2;
  }
  int64 id = 1;
  string customer = 2;
  optional string email = 3;
  int32 quantity = 4;
  double price = 5;
  float discount = 6;
  bool paid = 7;
  google.protobuf.Timestamp at = 8;
  Status status = 9;
  repeated string tags = 10;
}
"""


def generate(directory: Path) -> ModuleType:
    """`bench_purchase_pb2`, compiled by protoc into `directory` and imported."""
    import grpc_tools
    from grpc_tools import protoc

    (directory / "bench_purchase.proto").write_text(PROTO)
    well_known = os.path.join(os.path.dirname(grpc_tools.__file__), "_proto")
    if protoc.main(["protoc", f"-I{directory}", f"-I{well_known}", f"--python_out={directory}",
                    "bench_purchase.proto"]) != 0:
        raise RuntimeError("protoc failed on the benchmark's file")
    sys.path.insert(0, str(directory))
    return importlib.import_module("bench_purchase_pb2")


def make_messages(module: ModuleType, count: int) -> list[Any]:
    messages = []
    for i in range(count):
        message = module.Purchase(
            id=10_000_000 + i, customer=f"customer-{i % 997}", quantity=i % 17, price=19.99 + i % 100,
            discount=0.5, paid=bool(i % 2), status=i % 3, tags=["a", "b"][: i % 3],
        )
        if not i % 4:
            message.email = f"c{i}@example.com"
        message.at.FromSeconds(1_767_225_600 + i)
        messages.append(message)
    return messages


def bare_protobuf(module: ModuleType) -> Serde:
    cls = module.Purchase

    def deserialize(data: bytes) -> Any:
        message = cls()
        message.ParseFromString(data)
        return message

    return (lambda message: message.SerializeToString()), deserialize


def ours(url: str, subject: str, module: ModuleType, typed: bool) -> Serde:
    client = RegistryClient(url)
    return (ProtobufSerializer(client, module.Purchase, subject=subject),
            ProtobufDeserializer(client, module.Purchase if typed else None))


def confluent(url: str, topic: str, module: ModuleType) -> Serde:
    client = SchemaRegistryClient({"url": url})
    context = SerializationContext(topic, MessageField.VALUE)
    serializer = ConfluentSerializer(module.Purchase, client)
    deserializer = ConfluentDeserializer(module.Purchase, {})
    return (lambda message: serializer(message, context)), (lambda data: deserializer(data, context))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--records", type=int, default=20_000)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()

    from support.live import scratch_registry

    with scratch_registry("client-protobuf-serde-") as scratch:
        module = generate(scratch.workdir)
        messages = make_messages(module, args.records)
        variants: dict[str, Serde] = {
            "protobuf alone": bare_protobuf(module),
            "app.client, typed": ours(scratch.server.url, "bench-pb-value", module, typed=True),
            "app.client, dynamic": ours(scratch.server.url, "bench-pb-value", module, typed=False),
            "confluent-kafka": confluent(scratch.server.url, "bench-pb", module),
        }
        for serde in variants.values():  # warm-up: registration, first fetches, descriptor pools
            time_round(serde, messages[:100])
        best = best_of_rounds(args.rounds, {name: (lambda serde=serde: time_round(serde, messages))
                                            for name, serde in variants.items()})

        per = 1e6 / args.records
        print(f"{args.records} Protobuf messages of 10 fields, best of {args.rounds} rounds "
              f"(protobuf runtime: {_runtime()})")
        print(f"{'':22}{'ser µs':>8}{'de µs':>8}{'ser rec/s':>12}{'de rec/s':>12}")
        for name, (write, read) in best.items():
            print(f"{name:22}{write * per:8.2f}{read * per:8.2f}{args.records / write:12,.0f}"
                  f"{args.records / read:12,.0f}")
        mine, theirs = best["app.client, typed"], best["confluent-kafka"]
        print(f"confluent-kafka / app.client: serialize {theirs[0] / mine[0]:.2f}x, "
              f"deserialize {theirs[1] / mine[1]:.2f}x, round trip {sum(theirs) / sum(mine):.2f}x")


def _runtime() -> str:
    from google.protobuf.internal import api_implementation

    return api_implementation.Type()


if __name__ == "__main__":
    main()
