"""Protobuf (`schemaType: "PROTOBUF"`) behind the format protocol of `app.formats.base`.

`format` holds the `SchemaFormat` the registry uses; beside it: `compiler` (protoc, run
in a child process: `protoc_process`, `protoc_child`; `option_utf8` refuses what it would
abort on), `printer` with `names` and `options` (descriptors back to canonical `.proto` text),
`model` (what a parsed schema carries) and `well_known/` (the imports that need no reference).
The compatibility checker lives in `diff`.
"""
from __future__ import annotations

from app.formats.protobuf.format import ProtobufFormat

__all__ = ["ProtobufFormat"]
