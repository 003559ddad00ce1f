"""`.proto` text to descriptors with the real protoc, run in a child process (`protoc_process`).

grpcio-tools links protoc into `grpc_tools._protoc_compiler`. Its command-line entry point
(`run_main`) compiles a file from disk into a descriptor set: the schema's own
`FileDescriptorProto` with protoc's source info (the span of every declaration and the
comments around it, which policy rules read) and every file it imports. So protoc decides
what a valid schema is (duplicate names, undefined types, missing imports, editions), and
we never write a parser of our own. protoc runs in C++ and is linear in the text (20,000
messages in about 0.4 s); past the request's work budget its process is killed.

The binding's other entry point, `get_protos`, also returns the descriptors, and its errors
as data; but it generates Python code for them, and protoc's Python generator looks each
message's bytes up in the whole file's bytes, which is quadratic (20,000 messages: 2.6 s,
40,000: 10 s). So it only runs once a compile has failed, to read protoc's errors with their
file, line and column; they come back as protoc's command line prints them.

protoc aborts its process on some inputs, so it runs in a child that may die in its place
(`protoc_child`); a crash refuses that one schema with `CRASHED`. Each call gets a private
directory there (on tmpfs when there is one) holding the schema and the texts of its
references, each under its reference name; the well-known imports come from
grpc_tools' bundled `google/protobuf/*.proto` and our `well_known/` folder, searched after the
references so that a reference of the same name wins, as in Confluent's provider.
"""
from __future__ import annotations

import os
import threading
from collections import OrderedDict
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

import grpc_tools
from google.protobuf.descriptor_pb2 import FileDescriptorProto

from app.formats.base import SchemaParseError
from app.formats.protobuf import option_utf8, range_options, unlinked, wire
from app.formats.protobuf.names import SymbolTable
from app.formats.protobuf.protoc_process import CompilerCrashed, ProtocProcess
from app.formats.protobuf.unlinked import Unlinked

REFUSAL = "Invalid schema of type PROTOBUF, details: {}"
CRASHED = "the Protobuf compiler could not process this schema"

# The file name protoc sees for the schema itself (it shows in error messages). A reference
# of the same name moves the schema to the next free `schema_<n>.proto`.
SCHEMA_FILE = "schema.proto"

_INCLUDES = (
    str(Path(__file__).with_name("well_known")),
    os.path.join(os.path.dirname(grpc_tools.__file__), "_proto"),
)

# This process's protoc, in a child process of its own (see protoc_process).
PROTOC = ProtocProcess()

# `FileDescriptorSet.file`'s number: the set is split into its files' bytes without decoding
# it, so that each imported file is looked up by its bytes.
_SET_FILES = 1


@dataclass(frozen=True)
class Compiled:
    """One compilation: the schema's own file (without source info), every file it imports
    by import name (topologically ordered, transitive ones included), the schema's
    `SourceCodeInfo` still serialized (only a policy check reads it, so it stays in bytes),
    and the custom options nothing defines, which protoc never saw (`unlinked`)."""

    file: FileDescriptorProto
    imports: dict[str, FileDescriptorProto]
    source_info: bytes
    unlinked: Unlinked = field(default_factory=dict)


@dataclass(frozen=True)
class ProtocError:
    """One of protoc's errors: `line` and `column` 0-based, `line` -1 for a whole file."""

    file: str
    line: int
    column: int
    message: str

    def text(self) -> str:
        """As protoc's command line prints it: 1-based line and column."""
        if self.line >= 0:
            return f"{self.file}:{self.line + 1}:{self.column + 1}: {self.message}"
        return f"{self.file}: {self.message}"


def _set_files(data: bytes) -> list[bytes]:
    """The serialized files of a serialized `FileDescriptorSet`, in order (the schema's own last)."""
    files: list[bytes] = []
    try:
        for found in wire.fields(data):
            if found.number != _SET_FILES or found.payload is None:
                raise wire.Malformed(f"field {found.number} is no file")
            files.append(found.payload)
    except wire.Malformed:
        files = []
    if not files:
        raise SchemaParseError(REFUSAL.format("protoc produced an unreadable descriptor set"))
    return files


class _ImportCache:
    """An imported file's bytes -> its `FileDescriptorProto` without source info. The
    well-known files come back byte-identical every time (descriptor.proto with its source
    info is 100 KB), so each is decoded once and shared by every parsed schema."""

    def __init__(self, capacity: int = 256) -> None:
        self._entries: OrderedDict[bytes, FileDescriptorProto] = OrderedDict()
        self._capacity = capacity
        self._lock = threading.Lock()

    def descriptor(self, data: bytes) -> FileDescriptorProto:
        with self._lock:
            found = self._entries.get(data)
            if found is not None:
                self._entries.move_to_end(data)
                return found
        file = FileDescriptorProto.FromString(data)
        file.ClearField("source_code_info")
        with self._lock:
            self._entries[data] = file
            if len(self._entries) > self._capacity:
                self._entries.popitem(last=False)
        return file


_IMPORTS = _ImportCache()


def schema_file_name(dependencies: Mapping[str, str]) -> str:
    name, n = SCHEMA_FILE, 0
    while name in dependencies:
        n += 1
        name = f"schema_{n}.proto"
    return name


def compile_text(text: str, dependencies: Mapping[str, str]) -> Compiled:
    """Compile `text` with its references (reference name -> `.proto` text).

    `SchemaParseError` carries protoc's messages, one per line, as protoc's command line
    prints them (`schema.proto:3:27: "Nope" is not defined.`). Custom options that nothing
    defines are no error (see `unlinked`): in the schema they are kept beside the
    descriptor; a reference that sets them is imported without any custom option (its own
    descriptor matters to the schema for its types and extensions only).
    """
    if range_options.too_many_copies(text):
        raise SchemaParseError(REFUSAL.format(range_options.REFUSED))
    not_utf8 = option_utf8.refusal(text, lambda marked: compile_text(marked, dependencies))
    if not_utf8 is not None:
        raise SchemaParseError(REFUSAL.format(not_utf8))
    found = _compiled(text, dependencies)
    if isinstance(found, Compiled):
        return found
    main = schema_file_name(dependencies)
    # A reference that sets such options fails to import, and everything that uses its types
    # fails with it: it is compiled again without them first.
    references = {e.file for e in found if e.file != main and unlinked.is_unknown_option(e.message)} & set(dependencies)
    if references:
        dependencies = {n: _without_custom_options(t) if n in references else t for n, t in dependencies.items()}
        found = _compiled(text, dependencies)
        if isinstance(found, Compiled):
            return found
    real = [e for e in found if not unlinked.is_unknown_option(e.message)]
    if real or not found:
        raise _refusal(real)
    return _with_unlinked_options(text, dependencies)


def _with_unlinked_options(text: str, dependencies: Mapping[str, str]) -> Compiled:
    """`text`, whose only errors are custom options protoc cannot resolve, compiled without
    any custom option, then with those that resolve once the others are gone."""
    options = unlinked.custom_options(text)
    every = _checked_compile(unlinked.blanked(text, options), dependencies)
    symbols = SymbolTable(every.file, every.imports)
    extensions = unlinked.visible_extensions([every.file, *every.imports.values()])
    try:
        placed = unlinked.placed(text, options, every.file, every.source_info)
    except ValueError as exc:
        raise SchemaParseError(REFUSAL.format(exc)) from None
    undefined = [(o, e) for o, e in placed if not unlinked.defined(o, e, symbols, extensions)]
    final = every if len(undefined) == len(placed) else _checked_compile(
        unlinked.blanked(text, list({id(o): o for o, _ in undefined}.values())), dependencies)
    return Compiled(final.file, final.imports, final.source_info, unlinked.grouped(undefined))


def _without_custom_options(text: str) -> str:
    return unlinked.blanked(text, unlinked.custom_options(text))


def _checked_compile(text: str, dependencies: Mapping[str, str]) -> Compiled:
    found = _compiled(text, dependencies)
    if isinstance(found, Compiled):
        return found
    raise _refusal(found)


def _refusal(errors: list[ProtocError]) -> SchemaParseError:
    return SchemaParseError(REFUSAL.format("\n".join(e.text() for e in errors) or "protoc refused the schema"))


def _compiled(text: str, dependencies: Mapping[str, str]) -> Compiled | list[ProtocError]:
    """One protoc run, in the compile process: the compilation, or protoc's errors."""
    main = schema_file_name(dependencies)
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:  # JSON can carry lone surrogates; protoc reads UTF-8
        raise SchemaParseError(REFUSAL.format("the schema is not valid UTF-8 text")) from None
    try:
        reply = PROTOC.compile(main, {main: text, **dependencies}, list(_INCLUDES))
    except CompilerCrashed:  # the compile process has logged how it ended
        raise SchemaParseError(REFUSAL.format(CRASHED)) from None
    if not reply.compiled:
        return [ProtocError(*error) for error in reply.errors]
    *imported, own = _set_files(reply.descriptor_set)  # topological order, the schema's own file last
    file = FileDescriptorProto.FromString(own)
    source_info = file.source_code_info.SerializeToString()
    file.ClearField("source_code_info")
    imports = {f.name: f for f in map(_IMPORTS.descriptor, imported)}
    return Compiled(file, imports, source_info)


def source_info_of(file: FileDescriptorProto, source_info: bytes) -> FileDescriptorProto:
    """A copy of `file` carrying the source info a compilation kept in bytes."""
    found = FileDescriptorProto()
    found.CopyFrom(file)
    found.source_code_info.MergeFromString(source_info)
    return found
