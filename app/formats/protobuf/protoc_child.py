"""protoc's compile step, in a process of its own: the part of the registry that may crash.

protoc (linked into `grpc_tools._protoc_compiler`) is C++ that aborts the whole process on
some inputs (a `CHECK` failure ends in SIGABRT), and a serving worker that runs it in process
dies with every request it serves. So each worker keeps one child running this file
(`protoc_process`) and sends it the files to compile; a crash ends the child only.

This file imports nothing but the standard library and grpc_tools, so that a child starts
in a few tens of milliseconds (`python -I protoc_child.py`, without the registry's package).
The registry's in-process code (`compiler`) owns everything else: what to compile, and how to
read the descriptor set it gets back. `compile_files` is also callable in process, which is
how the benchmark measures what the isolation costs.

The conversation on stdin/stdout is a sequence of frames, each an 8-byte big-endian length
and that many bytes. A request is one frame of JSON: `{"main": name, "files": {name: text},
"include": [folder, ...]}`. A reply is two frames: JSON `{"status": "compiled" | "refused",
"errors": [[file, line, column, message], ...], "ran": [entry point, ...]}`, then the
serialized `FileDescriptorSet` (empty on a refusal).
"""
from __future__ import annotations

import json
import os
import shutil
import struct
import sys
import tempfile
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import BinaryIO

from grpc_tools import _protoc_compiler

FRAME_HEADER = struct.Struct(">Q")

_SCRATCH_ROOT = "/dev/shm" if os.path.isdir("/dev/shm") and os.access("/dev/shm", os.W_OK) else None


@dataclass(frozen=True)
class ChildReply:
    """One compilation's outcome as the child sends it."""

    compiled: bool
    errors: list[tuple[str, int, int, str]]
    ran: list[str]
    descriptor_set: bytes


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


def _write(path: Path, text: str) -> None:
    """A file under its name. One protoc cannot read there (a name that is also another
    reference's folder, too long, not UTF-8) is left out: the import then fails with protoc's
    own "File not found"."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(text.encode("utf-8"))
    except (OSError, UnicodeEncodeError):
        return


def compile_files(main: str, files: Mapping[str, str], include: list[str]) -> ChildReply:
    """protoc on `main` among `files` (written to a private folder searched first, then the
    `include` folders): the descriptor set with imports and source info, or protoc's errors."""
    scratch = _scratch_dir()
    try:
        root = Path(scratch)
        for name, text in files.items():
            if _writable(name):
                _write(root / name, text)
        paths = [scratch.encode(), *(p.encode() for p in include)]
        # Inside the folder (removed with it); protoc has read every input before it writes.
        out = os.path.join(scratch, f".{main}.descriptor-set")
        args = [b"protoc", *(b"-I" + path for path in paths), b"--include_imports", b"--include_source_info",
                b"--descriptor_set_out=" + out.encode(), main.encode()]
        with _stderr_silenced():
            status = _protoc_compiler.run_main(args)
            if status != 0:
                return ChildReply(False, _errors(main, paths), ["run_main", "get_protos"], b"")
        with open(out, "rb") as handle:
            return ChildReply(True, [], ["run_main"], handle.read())
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def _errors(main: str, include: list[bytes]) -> list[tuple[str, int, int, str]]:
    """protoc's errors for a file it just refused, read as data from the binding's other
    entry point, which stops at the same error before generating any code. (That entry point
    generates Python code on success, quadratic in the file's size, so it never runs first.)"""
    try:
        _protoc_compiler.get_protos(main.encode(), include)
    except _protoc_compiler.ProtocErrors as exc:
        return [
            (e.filename.decode("utf-8", "replace"), e.line, e.column, e.message.decode("utf-8", "replace"))
            for e in exc.errors()
        ]
    return []


@contextmanager
def _stderr_silenced() -> Iterator[None]:
    """File descriptor 2 sent to /dev/null for the duration. protoc prints its errors (read as
    data by `_errors`), warnings and absl log lines there; a line may hold any text a schema
    holds (a descriptor's import name with line breaks), and the server's log must never show
    what a sender wrote. Nothing but protoc runs in this process meanwhile."""
    sys.stderr.flush()
    saved = os.dup(2)
    null = os.open(os.devnull, os.O_WRONLY)
    os.dup2(null, 2)
    os.close(null)
    try:
        yield
    finally:
        os.dup2(saved, 2)
        os.close(saved)


# ------------------------------------------------------------------ the child's side of the pipe
def read_frame(stream: BinaryIO) -> bytes | None:
    """One frame, or None at the end of the stream."""
    header = stream.read(FRAME_HEADER.size)
    if len(header) < FRAME_HEADER.size:
        return None
    (size,) = FRAME_HEADER.unpack(header)
    body = stream.read(size)
    return body if len(body) == size else None


def write_frame(stream: BinaryIO, body: bytes) -> None:
    stream.write(FRAME_HEADER.pack(len(body)))
    stream.write(body)


def serve(requests: BinaryIO, replies: BinaryIO) -> None:
    """Compiles request after request until the parent closes the pipe."""
    while (frame := read_frame(requests)) is not None:
        request = json.loads(frame)
        reply = compile_files(request["main"], request["files"], request["include"])
        header = {"status": "compiled" if reply.compiled else "refused", "errors": reply.errors, "ran": reply.ran}
        write_frame(replies, json.dumps(header).encode())
        write_frame(replies, reply.descriptor_set)
        replies.flush()


if __name__ == "__main__":
    # Replies get a descriptor of their own; whatever protoc might print on stdout goes to stderr.
    reply_stream = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)
    try:
        serve(sys.stdin.buffer, reply_stream)
    except KeyboardInterrupt:  # a terminal's Ctrl-C reaches the whole process group
        pass
