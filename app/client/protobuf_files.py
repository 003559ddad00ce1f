"""Protobuf files as the registry holds them, turned into descriptors and back.

A Protobuf schema in the registry is one `.proto` file; its imports are references to other
subjects, except the well-known ones (`google/protobuf/*`, `google/type/*`, `confluent/*`),
which every client is expected to know without asking. Readers fetch schemas with
`format=serialized` (base64 `FileDescriptorProto`, which needs no `.proto` parser here) and
build a private `DescriptorPool` per writer schema, so two versions of one file never clash
in one process, as they would in the default pool.
"""
from __future__ import annotations

import base64
import binascii
import importlib
from collections.abc import Callable

from google.protobuf import descriptor_pool
from google.protobuf.descriptor import FileDescriptor
from google.protobuf.descriptor_pb2 import DescriptorProto, FileDescriptorProto
from google.protobuf.message import DecodeError

from app.client.errors import SerializationError
from app.client.records import PROTOBUF, Schema
from app.client.resolver import SchemaSource, resolve_references

SERIALIZED = "serialized"
WELL_KNOWN_PREFIXES = ("google/protobuf/", "google/type/", "confluent/")

_well_known: dict[str, FileDescriptorProto] = {}


def is_well_known(import_path: str) -> bool:
    """An import every client resolves itself, never registered nor referenced."""
    return import_path.startswith(WELL_KNOWN_PREFIXES)


def serialized_text(file: FileDescriptor) -> str:
    """The schema text a serializer registers for a generated file: its descriptor in base64,
    as confluent-kafka sends it, so both clients register identical text."""
    return base64.b64encode(file.serialized_pb).decode("ascii")


def file_proto(schema: Schema, described: str) -> FileDescriptorProto:
    """The `FileDescriptorProto` of a schema fetched with `format=serialized`."""
    if schema.schema_type != PROTOBUF:
        raise SerializationError(f"{described} is {schema.schema_type}, not PROTOBUF")
    try:
        return FileDescriptorProto.FromString(base64.b64decode(schema.text, validate=True))
    except (binascii.Error, DecodeError, ValueError) as exc:
        raise SerializationError(
            f"{described} is not a base64 FileDescriptorProto (the registry's format=serialized): {exc}"
        ) from exc


def _well_known_file(import_path: str) -> FileDescriptorProto:
    """A well-known file from the protobuf runtime's own descriptors (importing its generated
    module, `google/type/date.proto` -> `google.type.date_pb2`, when not loaded yet)."""
    found = _well_known.get(import_path)
    if found is not None:
        return found
    default = descriptor_pool.Default()
    try:
        file = default.FindFileByName(import_path)
    except KeyError:
        module = import_path.removesuffix(".proto").replace("/", ".") + "_pb2"
        try:
            importlib.import_module(module)
            file = default.FindFileByName(import_path)
        except (ImportError, KeyError):
            raise SerializationError(
                f"the schema imports {import_path}, a well-known file this process has no descriptor for "
                f"(import its generated module, {module}, first)"
            ) from None
    return _well_known.setdefault(import_path, FileDescriptorProto.FromString(file.serialized_pb))


def build_pool(source: SchemaSource, writer: Schema, described: str) -> FileDescriptor:
    """The writer's file in a pool of its own, with every file it imports: references as
    the registry renders them, well-known imports from the runtime."""
    root = file_proto(writer, described)
    try:
        edges = resolve_references(source, writer, SERIALIZED)
    except ValueError as exc:  # a reference cycle
        raise SerializationError(str(exc)) from exc
    by_name: dict[str, FileDescriptorProto] = {}
    for reference, found in edges:
        proto = file_proto(found, f"reference {reference.name} ({reference.subject} v{reference.version})")
        proto.name = reference.name
        by_name.setdefault(reference.name, proto)
    # The registry names the file itself as it likes; it must not shadow one of its imports.
    while root.name in by_name or not root.name:
        root.name = f"_{root.name or 'schema.proto'}"
    pool = descriptor_pool.DescriptorPool()
    _add_with_imports(pool, root, by_name.get, set())
    return pool.FindFileByName(root.name)


def _add_with_imports(
    pool: descriptor_pool.DescriptorPool,
    file: FileDescriptorProto,
    referenced: Callable[[str], FileDescriptorProto | None],
    added: set[str],
) -> None:
    """Adds `file` after its imports, each once (a pool refuses a file before its imports)."""
    added.add(file.name)
    for import_path in file.dependency:
        if import_path in added:
            continue
        dependency = referenced(import_path)
        if dependency is None:
            if not is_well_known(import_path):
                raise SerializationError(f"{file.name} imports {import_path}, which is neither among the "
                                         f"schema's references nor a well-known file")
            dependency = _well_known_file(import_path)
        _add_with_imports(pool, dependency, referenced, added)
    try:
        pool.Add(file)
    except (TypeError, ValueError) as exc:  # conflicting or undefined names
        raise SerializationError(f"cannot build descriptors for {file.name}: {exc}") from exc


def message_at(file: FileDescriptorProto, path: tuple[int, ...], described: str) -> str:
    """The full name of the message the index path names in `file`."""
    messages: list[DescriptorProto] = list(file.message_type)
    names = [file.package] if file.package else []
    where = "at the top level"
    for index in path:
        if not 0 <= index < len(messages):
            raise SerializationError(f"message index {list(path)} is out of range: {described} has "
                                     f"{len(messages)} message(s) {where}")
        message = messages[index]
        names.append(message.name)
        messages, where = list(message.nested_type), f"nested in {message.name}"
    return ".".join(names)
