"""Custom option strings that are not UTF-8, refused before protoc sees them.

protoc reads a custom option's value into a message of the option's type once more after
checking it, and a `string` field that validates UTF-8 (any field declared in a proto3 file,
and in editions unless `utf8_validation = NONE`) makes that read fail a `CHECK`: protoc
aborts its process. A string escape can spell any bytes (`"\\377"`, `"\\xff"`, a lone
surrogate `"\\ud800"`), so such a value is refused here, with 42201 naming the option and line.

Whether a literal lands in such a field only protoc knows (option names resolve like type
names, an aggregate `{ a { b: "..." } }` or a map nests fields, adjacent literals join). So
each suspect literal (one whose bytes are not UTF-8) is replaced by a marker of plain text and
that copy is compiled: the marker is then found in the typed options, in a field whose type
and UTF-8 rule protoc's descriptors state. A marker found in a `bytes` field, in a proto2
`string` field (protoc keeps such bytes as they are, and the registry has always stored them),
or nowhere (an option nothing defines, which protoc never reads) leaves the schema as it was.
Only a text with an escape in a custom option's value pays for the extra compile.
"""
from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from google.protobuf.descriptor import FieldDescriptor
from google.protobuf.descriptor_pb2 import DescriptorProto, FeatureSet, FileDescriptorProto
from google.protobuf.message import Message

from app.formats import work_budget
from app.formats.protobuf.tokens import Piece
from app.formats.protobuf.unlinked import CustomOption, custom_options

if TYPE_CHECKING:
    from app.formats.protobuf.compiler import Compiled

# Only an escape can spell bytes that are not UTF-8: a text without one needs no look.
_BYTE_ESCAPE = re.compile(r"\\[0-7xXuU]")
_ESCAPE = re.compile(r"\\(?:([0-7]{1,3})|[xX]([0-9a-fA-F]{1,2})|u([0-9a-fA-F]{4})|U([0-9a-fA-F]{8})|(.))", re.DOTALL)
_SIMPLE = {"a": b"\a", "b": b"\b", "f": b"\f", "n": b"\n", "r": b"\r", "t": b"\t", "v": b"\v"}
_MARKER = "sqlregistry-utf8-check-{}-end"


@dataclass(frozen=True)
class _Suspect:
    """Adjacent string literals of one option value (protoc joins them) whose bytes are not UTF-8."""

    option: CustomOption
    literals: tuple[Piece, ...]


def literal_bytes(literal: str) -> bytes:
    """The bytes protoc makes of a string literal (quotes included): its escapes decoded as
    protoc's tokenizer decodes them, a `\\u` surrogate pair joined, a lone one kept as the
    three bytes protoc writes for it."""
    body = literal[1:-1] if len(literal) >= 2 and literal[-1] == literal[0] else literal[1:]
    out = bytearray()
    at = 0
    pending_high: int | None = None
    for match in _ESCAPE.finditer(body):
        out += body[at:match.start()].encode("utf-8", "surrogatepass")
        at = match.end()
        octal, hexa, short, long, other = match.groups()
        if short or long:
            point = int(short or long, 16)
            if pending_high is not None and 0xDC00 <= point <= 0xDFFF and match.start() == pending_high:
                del out[-3:]  # the high half just written joins this low half
                point = 0x10000 + ((_high_of(body, match.start()) - 0xD800) << 10) + (point - 0xDC00)
            out += chr(min(point, 0x10FFFF)).encode("utf-8", "surrogatepass")
            pending_high = at if 0xD800 <= point <= 0xDBFF else None
            continue
        pending_high = None
        if octal:
            out.append(int(octal, 8) & 0xFF)
        elif hexa:
            out.append(int(hexa, 16))
        else:
            out += _SIMPLE.get(other, other.encode("utf-8", "surrogatepass"))
    out += body[at:].encode("utf-8", "surrogatepass")
    return bytes(out)


def _high_of(body: str, low_start: int) -> int:
    """The `\\uXXXX` high surrogate that ends right where a low one starts."""
    return int(body[low_start - 4:low_start], 16)


def _is_literal(piece: Piece) -> bool:
    return piece.text[:1] in ("'", '"')


def _suspects(text: str) -> list[_Suspect]:
    found: list[_Suspect] = []
    for option in custom_options(text):
        own = option.statement or (option.in_list.entries[option.entry] if option.in_list is not None else ())
        for run in _literal_runs(own):
            joined = b"".join(literal_bytes(p.text) for p in run)
            try:
                joined.decode("utf-8")
            except UnicodeDecodeError:
                found.append(_Suspect(option, run))
    return found


def _literal_runs(items: Sequence[Piece]) -> Iterator[tuple[Piece, ...]]:
    run: list[Piece] = []
    for piece in (*items, None):
        if piece is not None and _is_literal(piece):
            run.append(piece)
            continue
        if run:
            yield tuple(run)
            run = []


def _marked(text: str, suspects: Sequence[_Suspect]) -> str:
    """`text` with each suspect's first literal replaced by its marker and the others by `""`;
    the lines stay where they were."""
    edits = sorted(((p, _MARKER.format(k) if i == 0 else "") for k, s in enumerate(suspects)
                    for i, p in enumerate(s.literals)), key=lambda e: e[0].start)
    out, at = [], 0
    for piece, value in edits:
        out.append(text[at:piece.start])
        out.append(f'"{value}"')
        at = piece.end
    out.append(text[at:])
    return "".join(out)


def refusal(text: str, compile_text: Callable[[str], Compiled]) -> str | None:
    """Why protoc must not read `text` (a sentence naming the option and its line), or None.
    `compile_text` compiles a text with the schema's references."""
    if not _BYTE_ESCAPE.search(text):
        return None
    suspects = _suspects(text)
    if not suspects:
        return None
    compiled = compile_text(_marked(text, suspects))
    from app.formats.protobuf.options import OptionReader  # options needs the compiler, which needs this

    reader = OptionReader(compiled.file, compiled.imports)
    # Every options message that holds anything, read with the schema's own extensions (one this
    # process's default pool knows, from a generated module, is no unknown field there).
    landed = {marker: field for options in _every_options(compiled.file) if options.ByteSize()
              for marker, field in _markers(reader.extended(options), len(suspects))}
    for k, suspect in enumerate(suspects):
        field = landed.get(k)
        if field is not None and field.type == FieldDescriptor.TYPE_STRING and _validates_utf8(field):
            line = text.count("\n", 0, suspect.literals[0].start) + 1
            return (f"the option {suspect.option.option.name} on line {line} sets the string field "
                    f"{field.full_name} to bytes that are not valid UTF-8 (a bytes field holds any bytes)")
    return None


def _validates_utf8(field: FieldDescriptor) -> bool:
    features = getattr(field, "_GetFeatures", None)
    return features is None or features().utf8_validation != FeatureSet.NONE


def _every_options(file: FileDescriptorProto) -> Iterator[Message]:
    """Every options message of the file's elements."""
    yield file.options
    pending: list[DescriptorProto] = list(file.message_type)
    enums = list(file.enum_type)
    fields = list(file.extension)
    for service in file.service:
        yield service.options
        yield from (m.options for m in service.method)
    while pending:
        work_budget.check()
        message = pending.pop()
        yield message.options
        fields.extend(message.field)
        fields.extend(message.extension)
        enums.extend(message.enum_type)
        pending.extend(message.nested_type)
        yield from (o.options for o in message.oneof_decl)
        yield from (r.options for r in message.extension_range)
    yield from (f.options for f in fields)
    for enum in enums:
        yield enum.options
        yield from (v.options for v in enum.value)


def _markers(message: Message, count: int) -> Iterator[tuple[int, FieldDescriptor]]:
    """(marker number, the string or bytes field holding it) within a typed message."""
    pending = [message]
    while pending:
        work_budget.check()
        current = pending.pop()
        for field, value in current.ListFields():
            entries = value.items() if _is_map(field) else None
            if entries is not None:
                key_field, value_field = field.message_type.fields_by_name["key"], field.message_type.fields_by_name["value"]
                for key, item in entries:
                    yield from _in_scalar(key_field, key, count)
                    if value_field.type == FieldDescriptor.TYPE_MESSAGE:
                        pending.append(item)
                    else:
                        yield from _in_scalar(value_field, item, count)
                continue
            for item in (value if field.is_repeated else [value]):
                if field.type in (FieldDescriptor.TYPE_MESSAGE, FieldDescriptor.TYPE_GROUP):
                    pending.append(item)
                else:
                    yield from _in_scalar(field, item, count)


def _is_map(field: FieldDescriptor) -> bool:
    return field.type == FieldDescriptor.TYPE_MESSAGE and field.message_type.GetOptions().map_entry


def _in_scalar(field: FieldDescriptor, value: object, count: int) -> Iterator[tuple[int, FieldDescriptor]]:
    if field.type not in (FieldDescriptor.TYPE_STRING, FieldDescriptor.TYPE_BYTES):
        return
    text = value.decode("utf-8", "replace") if isinstance(value, bytes) else str(value)
    if "sqlregistry-utf8-check-" not in text:
        return
    for k in range(count):
        if _MARKER.format(k) in text:
            yield k, field
