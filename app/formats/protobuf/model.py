"""A parsed Protobuf schema as the format's parts share it: descriptors, not text.

protoc turns the `.proto` text into a `FileDescriptorProto`; the canonical text, the
`format=serialized` reply and the checker all work from descriptors, so a parsed schema
carries the schema's own file and every file it imports (transitively, the well-known
ones included), each under its import name.
"""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from google.protobuf.descriptor_pb2 import FileDescriptorProto

from app.formats.protobuf.unlinked import Unlinked


@dataclass(frozen=True, eq=False)
class ProtobufNative:
    """`file` is the schema's own file (its `name` is the registry's, not the user's);
    `imports` maps each import name (`google/protobuf/timestamp.proto`, a reference name)
    to its file, transitive imports included. Treat both as read-only: they are cached.
    `dependencies` are the reference texts it was compiled with (reference name -> text), so
    that a derived form (normalized) can be compiled in the same context. `source` is the
    `.proto` text as sent (policy rules read its comments and point into it); None for a
    descriptor sent in base64 and for derived forms, whose canonical text is all there is.
    `source_info` is protoc's serialized `SourceCodeInfo` for `source` (empty without one),
    kept from the one compilation so that a policy check does not compile the text again.
    `unlinked` holds the custom options nothing defines, by the element that declares them:
    protoc never saw them, the canonical text prints them (see `unlinked`)."""

    file: FileDescriptorProto
    imports: Mapping[str, FileDescriptorProto]
    dependencies: Mapping[str, str] = field(default_factory=dict)
    source: str | None = None
    source_info: bytes = b""
    unlinked: Unlinked = field(default_factory=dict)
