"""Parsed Protobuf schemas for the checker's tests, compiled by the real protoc.

The checker takes `ProtobufNative`s (the schema's `FileDescriptorProto` and every file it
imports); here they come from grpcio-tools' protoc, as the format builds them, so the tests
see exactly the descriptors the registry will. Imports resolve from the dependencies given
(import name -> text), from protoc's bundled `google/protobuf/*`, and from the Confluent
files confluent-kafka ships compiled (`confluent/meta.proto`, `confluent/type/decimal.proto`),
which protoc reads as a descriptor set.
"""
from __future__ import annotations

import os
import tempfile
from collections.abc import Mapping
from functools import lru_cache
from pathlib import Path

import grpc_tools
from google.protobuf import descriptor_pb2
from google.protobuf.descriptor_pb2 import FileDescriptorSet
from grpc_tools import protoc

from app.formats.protobuf.diff import compare
from app.formats.protobuf.model import ProtobufNative

SCHEMA_NAME = "schema.proto"
_PROTOC_INCLUDE = Path(grpc_tools.__file__).parent / "_proto"


class ProtocRefused(Exception):
    """protoc rejected a test schema (its message went to stderr)."""


@lru_cache(maxsize=1)
def _confluent_descriptor_set() -> bytes:
    from confluent_kafka.schema_registry.confluent import meta_pb2
    from confluent_kafka.schema_registry.confluent.type import decimal_pb2

    files = FileDescriptorSet()
    for module in (descriptor_pb2, meta_pb2, decimal_pb2):
        module.DESCRIPTOR.CopyToProto(files.file.add())
    return files.SerializeToString()


def compile_native(text: str, dependencies: Mapping[str, str] | None = None) -> ProtobufNative:
    """`text` compiled as the schema, `dependencies` (import name -> .proto text) beside it.
    Compiled once per distinct input: natives are immutable, like the registry's."""
    return _compiled(text, tuple(sorted((dependencies or {}).items())))


def differences(
    writer: str,
    reader: str,
    writer_dependencies: Mapping[str, str] | None = None,
    reader_dependencies: Mapping[str, str] | None = None,
) -> list[str]:
    """What the checker reports for `reader` reading `writer`'s data (a BACKWARD check of
    `reader` as the new schema), each difference as `TYPE #/location`, in its order."""
    found = compare(compile_native(writer, writer_dependencies), compile_native(reader, reader_dependencies))
    return [f"{d.type} {d.location}" for d in found]


@lru_cache(maxsize=512)
def _compiled(text: str, dependencies: tuple[tuple[str, str], ...]) -> ProtobufNative:
    with tempfile.TemporaryDirectory(prefix="protodiff-") as directory:
        root = Path(directory)
        for name, dependency in {**dict(dependencies), SCHEMA_NAME: text}.items():
            path = root / name
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(dependency, encoding="utf-8")
        known = root / "known.pb"
        known.write_bytes(_confluent_descriptor_set())
        out = root / "out.pb"
        code = protoc.main(
            [
                "protoc",
                f"-I{root}",
                f"-I{_PROTOC_INCLUDE}",
                f"--descriptor_set_in={known}",
                "--include_imports",
                f"--descriptor_set_out={out}",
                os.fspath(root / SCHEMA_NAME),
            ]
        )
        if code != 0:
            raise ProtocRefused(f"protoc exited with {code} for:\n{text}")
        files = FileDescriptorSet.FromString(out.read_bytes()).file
    *imported, own = files
    return ProtobufNative(file=own, imports={f.name: f for f in imported})
