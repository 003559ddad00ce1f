"""`ProtobufFormat`, the Protobuf `SchemaFormat`, put together from the modules beside it.

A schema is compiled by protoc (`compiler`), printed back as canonical text (`printer`), and
that text is what the registry stores and hashes. What is stored must mean exactly what was
sent: a printed text that differs from the sent one in whitespace and comments only reads as
the same tokens to protoc (`tokens`), so it needs no check; any other printed text is compiled
once more and must give the same descriptor. So a stored text (already canonical) and a text
laid out differently compile once. Input may also be a base64 `FileDescriptorProto`, as
confluent-kafka's Python serializer sends: it is printed as text and then takes the same road.
"""
from __future__ import annotations

import base64
import binascii
import dataclasses
import re
from collections.abc import Mapping

from google.protobuf.descriptor_pb2 import FileDescriptorProto
from google.protobuf.message import DecodeError

from app.formats.base import (
    STRICT_POLICY,
    EntityTags,
    Incompatibility,
    Node,
    ParsedSchema,
    SchemaElement,
    SchemaParseError,
)
from app.formats.protobuf.compiler import REFUSAL, Compiled, compile_text, source_info_of
from app.formats.protobuf.diff import compare, describe, incompatible
from app.formats.protobuf.diff.report import description
from app.formats.protobuf.elements import elements as schema_elements
from app.formats.protobuf.equivalence import same_schema
from app.formats.protobuf.model import ProtobufNative
from app.formats.protobuf.options import quote
from app.formats.protobuf.printer import render
from app.formats.protobuf.recent import RecentParses
from app.formats.protobuf.tokens import same_pieces

SCHEMA_TYPE = "PROTOBUF"
SERIALIZED = "serialized"
IGNORE_EXTENSIONS = "ignore_extensions"

_BASE64 = re.compile(r"[A-Za-z0-9+/\s]+={0,2}\s*")


def _native(schema: ParsedSchema) -> ProtobufNative:
    return schema.native


def decode_descriptor(text: str) -> FileDescriptorProto | None:
    """`text` as a base64 `FileDescriptorProto`, or None when it is not one."""
    if not _BASE64.fullmatch(text):
        return None
    try:
        file = FileDescriptorProto.FromString(base64.b64decode("".join(text.split()), validate=True))
    except (binascii.Error, DecodeError, ValueError):
        return None
    return file if file.ByteSize() else None


def _imports_for(file: FileDescriptorProto, dependencies: Mapping[str, str]) -> ProtobufNative:
    """The imports a sent descriptor names, compiled, so that its type and option names can be
    printed (a stand-in file that only imports them)."""
    stub = 'syntax = "proto3";\n' + "".join(f"import {quote(name)};\n" for name in file.dependency)
    compiled = compile_text(stub, dependencies)
    return ProtobufNative(file, compiled.imports, dependencies)


def _kept(compiled: Compiled, dependencies: Mapping[str, str], source: str | None) -> ProtobufNative:
    """A compilation as the format keeps it; its source info only with the text it describes."""
    source_info = compiled.source_info if source else b""
    return ProtobufNative(compiled.file, compiled.imports, dependencies, source, source_info, compiled.unlinked)


class ProtobufFormat:
    schema_type = SCHEMA_TYPE
    file_extension = "proto"  # what a downloaded schema file is named with (the web UI)

    def __init__(self) -> None:
        self._recent = RecentParses()

    def parse(self, text: str, dependencies: Mapping[str, str], *, strict: bool = True) -> ParsedSchema:
        """protoc is as strict as it gets either way. `strict=False` marks a stored text,
        which may be a normalized one: that is its own canonical text too."""
        key = self._recent.key(text, dependencies, strict)
        found = self._recent.get(key)
        if found is not None:
            return found
        parsed = self._recent.put(key, self._parse(text, dependencies, strict))
        if parsed.canonical != text:
            # The canonical text now has a parse too: its own (as stored, or sent back by a
            # client that read it) is this one, without the text sent here as its source.
            own = ParsedSchema(SCHEMA_TYPE, parsed.canonical, dataclasses.replace(_native(parsed), source=None, source_info=b""))
            for as_stored in (False, True):
                self._recent.put(self._recent.key(parsed.canonical, dependencies, as_stored), own)
        return parsed

    def _parse(self, text: str, dependencies: Mapping[str, str], strict: bool) -> ParsedSchema:
        native = self._compile(text, dependencies)
        if not strict:
            # A stored text's parse stays in the registry's caches for long, and protoc's source
            # info weighs about 3 bytes per character of text: only a policy reading an older
            # version `as_stored` wants it, and compiles the text once more for it.
            native = dataclasses.replace(native, source_info=b"")
        printed = render(native)
        if printed == text or (not strict and render(native, normalize=True) == text):
            return ParsedSchema(SCHEMA_TYPE, text, native)
        if native.source is not None and same_pieces(printed, native.source):
            return ParsedSchema(SCHEMA_TYPE, printed, native)
        return self._checked(printed, native, dependencies)

    def _compile(self, text: str, dependencies: Mapping[str, str]) -> ProtobufNative:
        deps = dict(dependencies)
        sent = decode_descriptor(text)  # a .proto text is never valid base64 of a descriptor
        if sent is None:
            return _kept(compile_text(text, deps), deps, text)
        try:
            printed = render(_imports_for(sent, deps), qualify=True)
        except RecursionError:  # a sent descriptor nested deeper than protoc would ever accept
            raise SchemaParseError(REFUSAL.format("Reached maximum recursion limit for nested messages.")) from None
        except (TypeError, ValueError, IndexError, KeyError, DecodeError):  # not UTF-8, no such type, oneof or enum value
            raise SchemaParseError(REFUSAL.format("the FileDescriptorProto sent cannot be read as a schema")) from None
        return _kept(compile_text(printed, deps), deps, None)

    def _checked(self, printed: str, native: ProtobufNative, dependencies: Mapping[str, str]) -> ParsedSchema:
        """The printed text, once it compiles back to the schema; short type names that
        would not are written fully qualified instead."""
        for qualify in (False, True):
            text = render(native, qualify=True) if qualify else printed
            compiled = compile_text(text, dependencies)
            again = dataclasses.replace(native, file=compiled.file, unlinked=compiled.unlinked)
            if same_schema(native, again):
                return ParsedSchema(SCHEMA_TYPE, text, again)
        raise SchemaParseError(REFUSAL.format("the schema cannot be printed as text that compiles to the same descriptor"))

    def normalize(self, schema: ParsedSchema) -> ParsedSchema:
        """Confluent stores the normalized text itself; it compiles like any other."""
        native = _native(schema)
        text = render(native, normalize=True)
        return ParsedSchema(SCHEMA_TYPE, text, _kept(compile_text(text, native.dependencies), native.dependencies, None))

    def can_read(
        self, reader: ParsedSchema, writer: ParsedSchema, *, policy: str = STRICT_POLICY
    ) -> list[Incompatibility]:
        """Confluent's SchemaDiff.compare(previous, new) with the writer as the previous
        schema and the reader as the new one; Protobuf has no lenient rules, so `policy`
        changes nothing."""
        return incompatible(compare(_native(writer), _native(reader)))

    def describe(self, incompatibility: Incompatibility, reader_label: str, writer_label: str) -> str:
        return describe(incompatibility, reader_label, writer_label)

    def explain(self, incompatibility: Incompatibility, reader_label: str, writer_label: str) -> str:
        """`Explains`: the sentence of `describe`'s entry."""
        return description(incompatibility.type, incompatibility.location, reader_label, writer_label)

    def outline(self, schema: ParsedSchema) -> Node:
        """`Outlines`: messages and enums with their fields, as the text declares them."""
        from app.formats.protobuf.outline import outline

        return outline(_native(schema))

    def field_tags(self, schema: ParsedSchema) -> dict[str, tuple[str, ...]]:
        """`FieldTags`: the fields' `(confluent.field_meta).tags`."""
        from app.formats.protobuf.field_tags import field_tags

        return field_tags(_native(schema).file)

    def tagged_entities(self, schema: ParsedSchema) -> list[EntityTags]:
        """`TaggedEntities`: messages' `(confluent.message_meta).tags` and fields'."""
        from app.formats.protobuf.field_tags import tagged_entities

        return tagged_entities(_native(schema).file)

    def elements(self, schema: ParsedSchema, *, as_stored: bool = False) -> list[SchemaElement]:
        """`PolicyView`: messages, fields, enums, values, oneofs and the package, located by
        `line:column` in the text as sent (the canonical text for a descriptor sent in
        base64, or `as_stored`); see `elements`. The parse kept protoc's source info for the
        text it compiled; another text (the canonical one of a schema sent laid out
        differently, read `as_stored`) is compiled once more for its own."""
        native = _native(schema)
        text = schema.canonical if as_stored or native.source is None else native.source
        if text == native.source and native.source_info:
            info = native.source_info
        else:
            info = compile_text(text, native.dependencies).source_info
        return schema_elements(source_info_of(native.file, info))

    def formatted(self, schema: ParsedSchema, fmt: str) -> str | None:
        """`serialized`: the compiled `FileDescriptorProto` in base64, which confluent-kafka's
        Protobuf deserializer loads into its descriptor pool; `ignore_extensions`: the text
        without custom options and `extend` blocks."""
        value = fmt.lower()
        if value == SERIALIZED:
            return base64.b64encode(_native(schema).file.SerializeToString()).decode("ascii")
        if value == IGNORE_EXTENSIONS:
            return render(_native(schema), ignore_extensions=True)
        return None

    def field_names(self, schema: ParsedSchema) -> set[str]:
        """The first message's field names (`TopLevelFields`): the message Confluent names
        the schema after and checks reserved fields against."""
        messages = _native(schema).file.message_type
        return {f.name for f in messages[0].field} if messages else set()
