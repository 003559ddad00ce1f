"""JSON Schema and Protobuf schemas and records shared by the pipeline's format tests (and the
JSON decode benchmark): a JSON Schema subject over two versions with every mapped type, and a
`.proto` file of two messages (the second has a nested, repeated, map, enum, Timestamp and
wrapper field of each kind), compiled by protoc at test time (generated code is never committed)."""
from __future__ import annotations

import importlib
import os
import sys
from datetime import datetime, timedelta, timezone
from pathlib import Path
from types import ModuleType

READING_V1 = {
    "$schema": "http://json-schema.org/draft-07/schema#", "title": "Reading", "type": "object",
    "properties": {
        "id": {"type": "integer"},
        "score": {"type": "number"},
        "name": {"type": "string"},
        "at": {"type": "string", "format": "date-time"},
        "ok": {"type": "boolean"},
        "tags": {"type": "array", "items": {"type": "string"}},
        "counts": {"type": "object", "additionalProperties": {"type": "integer"}},
        "place": {"$ref": "#/definitions/Place"},
        "note": {"oneOf": [{"type": "string"}, {"type": "null"}]},
    },
    "required": ["id", "name"],
    "definitions": {"Place": {"type": "object", "properties": {"city": {"type": "string"},
                                                                 "zip": {"type": "string"}}}},
}
READING_V2 = {**READING_V1, "properties": {**READING_V1["properties"],
                                           "unit": {"type": "string", "default": "celsius"},
                                           "level": {"type": "integer"}}}
START = datetime(2026, 1, 2, 3, 4, 5, tzinfo=timezone.utc)


def reading(n: int, version: int = 1) -> dict:
    """A JSON record of READING_V1 (or V2), with the optional properties left out now and then."""
    record: dict = {"id": n, "score": n / 4, "name": f"r-{n}",
                    "at": (START + timedelta(seconds=n)).isoformat().replace("+00:00", "Z"),
                    "ok": n % 2 == 0, "tags": [f"t{n % 3}"] * (n % 3), "counts": {"a": n, "b": n * 2},
                    "place": {"city": "Porto", "zip": str(4000 + n)}, "note": None if n % 2 else f"note {n}"}
    if n % 5 == 4:
        del record["counts"], record["place"]
    if version >= 2:
        record.update(unit="kelvin", level=n)
    return record


PROTO_PACKAGE = "pipeline_samples"
PROTO_V1 = """
syntax = "proto3";
package pipeline.samples;
import "google/protobuf/timestamp.proto";
import "google/protobuf/wrappers.proto";

message Heartbeat {
  int64 at = 1;
}
message Reading {
  enum Kind { UNKNOWN = 0; TEMPERATURE = 1; HUMIDITY = 2; }
  message Sensor {
    string name = 1;
    Position position = 2;
    message Position { double lat = 1; double lon = 2; }
  }
  int32 small = 1;
  int64 big = 2;
  uint32 u32 = 3;
  uint64 u64 = 4;
  fixed64 f64 = 5;
  sint32 s32 = 6;
  float ratio = 7;
  bool ok = 8;
  string label = 9;
  bytes raw = 10;
  Kind kind = 11;
  Sensor sensor = 12;
  repeated int32 counts = 13;
  repeated Sensor sensors = 14;
  map<string, int64> totals = 15;
  google.protobuf.Timestamp taken_at = 16;
  google.protobuf.Int64Value maybe = 17;
  optional string note = 18;
}
"""
# Version 2 adds a field: records of version 1 read it as its proto3 default.
PROTO_V2 = PROTO_V1.replace("  optional string note = 18;\n", "  optional string note = 18;\n  string unit = 19;\n"
                            "  repeated string extra = 20;\n")
RECURSIVE_PROTO = """
syntax = "proto3";
package pipeline.samples.tree;
message Tree {
  string name = 1;
  Node root = 2;
}
message Node {
  int32 value = 1;
  repeated Node children = 2;
}
"""


def compile_proto(directory: Path) -> ModuleType:
    """PROTO_V1 compiled by grpc_tools' protoc and imported (once per process)."""
    name = f"{PROTO_PACKAGE}.reading_pb2"
    if name in sys.modules:
        return sys.modules[name]
    import grpc_tools
    from grpc_tools import protoc

    sources, out = directory / "src", directory / "out"
    (sources / PROTO_PACKAGE).mkdir(parents=True)
    out.mkdir()
    (sources / PROTO_PACKAGE / "reading.proto").write_text(PROTO_V1.lstrip())
    arguments = ["protoc", f"-I{sources}", f"-I{os.path.join(os.path.dirname(grpc_tools.__file__), '_proto')}",
                 f"--python_out={out}", f"{PROTO_PACKAGE}/reading.proto"]
    if protoc.main(arguments) != 0:
        raise RuntimeError(f"protoc failed on the sample file: {arguments}")
    sys.path.insert(0, str(out))
    return importlib.import_module(name)


def proto_reading(module: ModuleType, n: int):
    """A Reading with every kind of field set (some left unset or empty now and then)."""
    Reading = module.Reading
    message = Reading(
        small=-n, big=2**40 + n, u32=2**32 - 1 - n, u64=2**64 - 1 - n, f64=2**63 + n, s32=-7 * n, ratio=0.5,
        ok=n % 2 == 0, label=f"r-{n} ✓", raw=bytes([n % 256, 0, 255]), kind=Reading.Kind.HUMIDITY if n % 2 else 0,
        counts=list(range(n % 3)), totals={"a": n, "b": -n} if n % 3 else {},
        sensors=[Reading.Sensor(name=f"s{i}", position=Reading.Sensor.Position(lat=i, lon=-i)) for i in range(n % 2)],
    )
    if n % 4:
        message.sensor.CopyFrom(Reading.Sensor(name="main", position=Reading.Sensor.Position(lat=41.1, lon=-8.6)))
    message.taken_at.FromDatetime(datetime(2026, 1, 2, tzinfo=timezone.utc) + timedelta(microseconds=n * 1001))
    if n % 2:
        message.maybe.value = n
        message.note = f"note {n}"
    return message
