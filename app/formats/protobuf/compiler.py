"""`.proto` text to descriptors with the real protoc, in process.

grpcio-tools links protoc into `grpc_tools._protoc_compiler`. Its `get_protos` entry point
imports a file from disk, reports every error with file, line and column as data (not on
stderr), and returns the Python code generated for the file and each file it imports; that code
embeds each file's serialized `FileDescriptorProto`, which is what we keep. So protoc decides
what a valid schema is (duplicate names, undefined types, missing imports, editions), and
we never write a parser of our own.

Each call gets a private directory (on tmpfs when there is one) holding the schema and the
texts of its references, each under its reference name; the well-known imports come from
grpc_tools' bundled `google/protobuf/*.proto` and our `well_known/` folder, searched after the
references so that a reference of the same name wins, as in Confluent's provider.
"""
from __future__ import annotations

import codecs
import os
import shutil
import sys
import tempfile
import threading
from collections import OrderedDict
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path, PurePosixPath

import grpc_tools
from google.protobuf.descriptor_pb2 import FileDescriptorProto, FileDescriptorSet
from grpc_tools import _protoc_compiler

from app.formats.base import SchemaParseError
from app.formats.protobuf.model import ProtobufNative

REFUSAL = "Invalid schema of type PROTOBUF, details: {}"

# The file name protoc sees for the schema itself (it shows in error messages). A reference
# of the same name moves the schema to the next free `schema_<n>.proto`.
SCHEMA_FILE = "schema.proto"

_INCLUDES = (
    str(Path(__file__).with_name("well_known")),
    os.path.join(os.path.dirname(grpc_tools.__file__), "_proto"),
)
_SCRATCH_ROOT = "/dev/shm" if os.path.isdir("/dev/shm") and os.access("/dev/shm", os.W_OK) else None

# `DESCRIPTOR = ...AddSerializedFile(b'...')` in the generated module: one bytes literal on
# one line (the generator escapes newlines), so it ends at the first `')` + newline.
_LITERAL_START = b"AddSerializedFile(b'"
_LITERAL_END = b"')\n"

# protoc's Importer is not documented as safe to run concurrently; a call takes about 0.2 ms.
_PROTOC_LOCK = threading.Lock()


class _DescriptorCache:
    """Generated module code -> its `FileDescriptorProto`. Evaluating the bytes literal of a
    big file (descriptor.proto: 2 ms) dominates a call, and the well-known files come back
    byte-identical every time, so their descriptors are decoded once."""

    def __init__(self, capacity: int = 256) -> None:
        self._entries: OrderedDict[bytes, FileDescriptorProto] = OrderedDict()
        self._capacity = capacity
        self._lock = threading.Lock()

    def descriptor(self, code: bytes) -> FileDescriptorProto:
        with self._lock:
            found = self._entries.get(code)
            if found is not None:
                self._entries.move_to_end(code)
                return found
        start = code.find(_LITERAL_START)
        end = code.find(_LITERAL_END, start)
        if start < 0 or end < 0:
            raise SchemaParseError(REFUSAL.format("protoc produced no descriptor"))
        # Python's bytes-literal escapes are the ones escape_decode reads (in C, 100x faster).
        file = FileDescriptorProto.FromString(codecs.escape_decode(code[start + len(_LITERAL_START):end])[0])
        with self._lock:
            self._entries[code] = file
            if len(self._entries) > self._capacity:
                self._entries.popitem(last=False)
        return file


_DESCRIPTORS = _DescriptorCache()


def schema_file_name(dependencies: Mapping[str, str]) -> str:
    name, n = SCHEMA_FILE, 0
    while name in dependencies:
        n += 1
        name = f"schema_{n}.proto"
    return name


def _scratch_dir() -> str:
    """A private folder for one call: on tmpfs when the service may write there (a sandbox
    can forbid it), else in the ordinary temporary folder."""
    if _SCRATCH_ROOT is not None:
        try:
            return tempfile.mkdtemp(prefix="sqlregistry-proto-", dir=_SCRATCH_ROOT)
        except OSError:
            pass
    return tempfile.mkdtemp(prefix="sqlregistry-proto-")


def _writable(name: str) -> bool:
    """A reference name protoc could import: a relative path without `.`/`..` parts.
    Others cannot be imported by any schema, so they are simply not written."""
    if not name or name.startswith("/") or "\\" in name or "\0" in name:
        return False
    parts = PurePosixPath(name).parts
    return all(part not in (".", "..") for part in parts) and "//" not in name


@contextmanager
def _written(text: str, dependencies: Mapping[str, str]) -> Iterator[tuple[str, list[bytes]]]:
    """A private folder holding `text` and its references: (the schema's file name, the
    include path protoc searches); removed on exit."""
    main = schema_file_name(dependencies)
    scratch = _scratch_dir()
    try:
        root = Path(scratch)
        try:
            (root / main).write_bytes(text.encode("utf-8"))
        except UnicodeEncodeError:  # JSON can carry lone surrogates; protoc reads UTF-8
            raise SchemaParseError(REFUSAL.format("the schema is not valid UTF-8 text")) from None
        for name, dep_text in dependencies.items():
            if _writable(name):
                _write_dependency(root / name, dep_text)
        yield main, [scratch.encode(), *(p.encode() for p in _INCLUDES)]
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def compile_text(text: str, dependencies: Mapping[str, str]) -> ProtobufNative:
    """Compile `text` with its references (reference name -> `.proto` text).

    `SchemaParseError` carries protoc's messages, one per line, as protoc's command line
    prints them (`schema.proto:3:27: "Nope" is not defined.`).
    """
    with _written(text, dependencies) as (main, include):
        try:
            with _PROTOC_LOCK:
                generated = _protoc_compiler.get_protos(main.encode(), include)
        except _protoc_compiler.ProtocErrors as exc:
            raise SchemaParseError(REFUSAL.format(_error_text(exc))) from None
    files = [_DESCRIPTORS.descriptor(code) for _, code in generated]
    # Topological order, the schema's own file last.
    *imported, own = files
    return ProtobufNative(own, {f.name: f for f in imported})


def with_source_info(text: str, dependencies: Mapping[str, str]) -> FileDescriptorProto:
    """`text`, which compiles, as a descriptor that keeps protoc's source info: the span of
    every declaration and the comments around it (the generated code `compile_text` reads
    drops both). Only protoc's command line writes them, through a descriptor set file; it
    prints warnings (an unused import) on the process's stderr, which is caught so that a
    policy check never writes to the server's log or the CLI's error stream, and whatever
    else reached stderr meanwhile is passed on."""
    with _written(text, dependencies) as (main, include):
        # Inside the folder (removed with it); protoc has read every input before it writes.
        out = os.path.join(include[0].decode(), f".{main}.descriptor-set")
        args = [b"protoc", *(b"-I" + path for path in include), b"--include_source_info",
                b"--descriptor_set_out=" + out.encode(), main.encode()]
        with _PROTOC_LOCK, _stderr_caught((main.encode(), include[0])):
            status = _protoc_compiler.run_main(args)
        if status != 0:
            raise SchemaParseError(REFUSAL.format("protoc refused the schema"))
        with open(out, "rb") as handle:
            found = FileDescriptorSet.FromString(handle.read())
    return found.file[-1]  # dependencies first, the schema's own file last


@contextmanager
def _stderr_caught(prefixes: tuple[bytes, ...]) -> Iterator[None]:
    """File descriptor 2 sent to a temporary file for the duration; on exit, the lines that
    do not start with one of `prefixes` (protoc's, which name the file) go to the real stderr."""
    sys.stderr.flush()
    saved = os.dup(2)
    with tempfile.TemporaryFile() as caught:
        os.dup2(caught.fileno(), 2)
        try:
            yield
        finally:
            os.dup2(saved, 2)
            os.close(saved)
            caught.seek(0)
            rest = b"".join(line for line in caught.read().splitlines(keepends=True) if not line.startswith(prefixes))
            if rest:
                os.write(2, rest)


def _write_dependency(path: Path, text: str) -> None:
    """A reference's text under its name. One protoc cannot read there (a name that is also
    another reference's folder, too long, not UTF-8) is left out: the import then fails
    with protoc's own "File not found"."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(text.encode("utf-8"))
    except (OSError, UnicodeEncodeError):
        return


def _error_text(exc: _protoc_compiler.ProtocErrors) -> str:
    """protoc's command-line wording: 1-based line and column (the binding reports 0-based)."""
    lines = []
    for error in exc.errors():
        filename = error.filename.decode("utf-8", "replace")
        message = error.message.decode("utf-8", "replace")
        if error.line >= 0:
            lines.append(f"{filename}:{error.line + 1}:{error.column + 1}: {message}")
        else:
            lines.append(f"{filename}: {message}")
    return "\n".join(lines) or "protoc refused the schema"
