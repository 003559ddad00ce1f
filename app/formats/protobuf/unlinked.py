"""Custom options that nothing defines (`option (my_option) = true;`, `[(my_field_opt) = 1]`),
accepted as Confluent and Karapace accept them.

Their parser (Square Wire's) does not link options, so a schema may set options whose
`extend google.protobuf.*Options` declaration it never imports; protoc refuses such a file
("Option "(my_option)" unknown"), after it has parsed the whole text. So once protoc's only
complaints about a text are unknown options, every custom option is blanked out of a copy
of the text (spaces in place of its characters: lines and columns stay where they were, so
protoc's errors and source info still point into the text as sent) and the copy is compiled.
Those options whose names resolve to an extension that the schema can see go back in for a
last compile; the rest are kept beside the descriptor as written, on the element that
declares them, and printed back into the canonical text. They never reach the descriptor,
as in Confluent's, whose `format=serialized` leaves them out too.
"""
from __future__ import annotations

import bisect
import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field

from google.protobuf.descriptor_pb2 import DescriptorProto, EnumDescriptorProto, FileDescriptorProto, SourceCodeInfo

from app.formats import work_budget
from app.formats.protobuf.names import SymbolTable
from app.formats.protobuf.tokens import CLOSING, OPENING, Piece, pieces

# protoc's words for a custom option's name it cannot link to an extension: none defined,
# or the name meant something else (a field of the message, say). Its other option errors
# (a value of the wrong type for an extension it found) are real ones.
_UNKNOWN = re.compile(
    r'Option "\([^"]+\)(\.[^"]*)?" unknown\.'
    r'|Option field "\([^"]+\)" is not a field or extension of message "[^"]+"\.'
    r'|Option "\([^"]+\)" is resolved to "\([^"]+\)", which is not defined\.'
)

# Paths in descriptor.proto's numbering (what source info locations name).
_FILE_MESSAGES, _FILE_ENUMS, _FILE_SERVICES, _FILE_EXTENSIONS = 4, 5, 6, 7
_MESSAGE_FIELDS, _MESSAGE_NESTED, _MESSAGE_ENUMS, _MESSAGE_RANGES, _MESSAGE_EXTENSIONS, _MESSAGE_ONEOFS = 2, 3, 4, 5, 6, 8
_ENUM_VALUES, _SERVICE_METHODS = 2, 2

# Owners of `option ...;` statements, and of `[...]` lists.
_STATEMENT_OWNERS = frozenset({"file", "message", "oneof", "enum", "service", "method"})
_LIST_OWNERS = frozenset({"field", "value", "range"})


@dataclass(frozen=True)
class UnlinkedOption:
    """One assignment as written: `name` (`(my_option)`, `(my_option).sub`) and `value`
    (`true`, `{ a: 1 }`) with comments dropped and whitespace collapsed to single spaces."""

    name: str
    value: str


# Owner (see `owner`) -> the unlinked options declared on it, in the order written.
Unlinked = Mapping[str, tuple[UnlinkedOption, ...]]


def owner(kind: str, name: str) -> str:
    """The key of an element that carries options: its kind and the name the printer knows
    it by (a message's full name, a field's, an extension range's message and start, ...)."""
    return f"{kind} {name}"


def is_unknown_option(message: str) -> bool:
    return _UNKNOWN.match(message) is not None


@dataclass(frozen=True, eq=False)
class _OptionList:
    """A `[...]` list: its brackets, its entries' pieces and the comma after each entry."""

    opening: Piece
    closing: Piece | None
    entries: tuple[tuple[Piece, ...], ...]
    commas: tuple[Piece | None, ...]


@dataclass(frozen=True)
class CustomOption:
    """A custom option found in the text: what it says, where it starts (`at`, the offset
    the element lookup uses), and its pieces: a statement's own, or its entry of a list."""

    option: UnlinkedOption
    at: int
    statement: tuple[Piece, ...] = ()
    in_list: _OptionList | None = None
    entry: int = 0


@dataclass
class _Scan:
    items: list[Piece]
    found: list[CustomOption] = field(default_factory=list)
    i: int = 0

    def peek(self, offset: int = 0) -> str:
        at = self.i + offset
        return self.items[at].text if at < len(self.items) else ""

    def until(self, stops: frozenset[str]) -> int:
        """Index of the next piece in `stops` outside brackets (or the end), from `self.i`."""
        depth, at = 0, self.i
        while at < len(self.items):
            text = self.items[at].text
            if depth == 0 and text in stops:
                return at
            if text in OPENING:
                depth += 1
            elif text in CLOSING:
                depth -= 1
            at += 1
        return at


def _spelled(items: Sequence[Piece]) -> str:
    """Pieces as one line: a space where the text had whitespace or a comment between them."""
    out = []
    for before, piece in zip((None, *items), items):
        if before is not None and before.end != piece.start:
            out.append(" ")
        out.append(piece.text)
    return "".join(out)


def custom_options(text: str) -> list[CustomOption]:
    """Every `option (...) ... = ...;` statement and every `(...) = ...` entry of a `[...]`
    list. Values are skipped whole, so a `[` met outside one opens an option list."""
    scan = _Scan(list(pieces(text)))
    while scan.i < len(scan.items):
        piece = scan.items[scan.i]
        if piece.text == "option" and scan.peek(1) not in ("=", ":", ";", "{", ""):
            end = scan.until(frozenset({";"}))
            if scan.peek(1) == "(":
                statement = scan.items[scan.i:end + 1]
                equals = next((k for k, p in enumerate(statement) if p.text == "="), len(statement))
                option = UnlinkedOption(_spelled(statement[1:equals]), _spelled(statement[equals + 1:-1]))
                scan.found.append(CustomOption(option, piece.start, statement=tuple(statement)))
            scan.i = end + 1
        elif piece.text == "[":
            _option_list(scan)
        else:
            scan.i += 1
    return scan.found


def _option_list(scan: _Scan) -> None:
    """One `[...]` list from its `[`, and its custom entries."""
    opening = scan.items[scan.i]
    scan.i += 1
    entries: list[tuple[Piece, ...]] = []
    commas: list[Piece | None] = []
    while scan.i < len(scan.items) and scan.peek() != "]":
        end = scan.until(frozenset({",", "]"}))
        entries.append(tuple(scan.items[scan.i:end]))
        has_comma = end < len(scan.items) and scan.items[end].text == ","
        commas.append(scan.items[end] if has_comma else None)
        scan.i = end + 1 if has_comma else end
    closing = scan.items[scan.i] if scan.i < len(scan.items) else None
    scan.i += 1
    found = _OptionList(opening, closing, tuple(entries), tuple(commas))
    for k, entry in enumerate(entries):
        if entry and entry[0].text == "(":
            equals = next((j for j, p in enumerate(entry) if p.text == "="), len(entry))
            option = UnlinkedOption(_spelled(entry[:equals]), _spelled(entry[equals + 1:]))
            scan.found.append(CustomOption(option, entry[0].start, in_list=found, entry=k))


def _gone(options: Sequence[CustomOption]) -> Iterator[Piece]:
    """The pieces that disappear with `options`: a statement whole; a list entry with one
    comma (the one after it, or the one before it when no remaining entry follows); a list
    whose entries all go, brackets and all."""
    chosen: dict[int, set[int]] = {}
    lists: dict[int, _OptionList] = {}
    for option in options:
        yield from option.statement
        if option.in_list is not None:
            lists[id(option.in_list)] = option.in_list
            chosen.setdefault(id(option.in_list), set()).add(option.entry)
    for key, found in lists.items():
        going = chosen[key]
        staying = [k for k in range(len(found.entries)) if k not in going]
        if not staying:
            yield found.opening
            yield from (p for entry in found.entries for p in entry)
            yield from (c for c in found.commas if c is not None)
            if found.closing is not None:
                yield found.closing
            continue
        for k in going:
            yield from found.entries[k]
            comma = found.commas[k] if k < staying[-1] else found.commas[k - 1]
            if comma is not None:
                yield comma


def blanked(text: str, options: Sequence[CustomOption]) -> str:
    """`text` with the options' pieces turned into spaces (tabs and line breaks kept, a space
    per UTF-8 byte), so that protoc counts lines and columns after them as before."""
    chars = list(text)
    for piece in _gone(options):
        for k in range(piece.start, piece.end):
            ch = chars[k]
            if ch not in "\n\t":
                chars[k] = " " * len(ch.encode("utf-8"))
    return "".join(chars)


# ------------------------------------------------------------------ where each option goes
@dataclass(frozen=True)
class _Element:
    kind: str
    key: str
    # Where protoc looks its option names up from: the element's full name, from whose last
    # dot outwards (names.SymbolTable's `relative_to`). So a message's options do not see
    # the extensions it declares itself (an extension range's neither), a field's do, and an
    # enum value's full name is its enum's sibling, as protoc names values.
    scope: str


def _file_element(file: FileDescriptorProto) -> _Element:
    return _Element("file", owner("file", ""), f"{file.package}.x" if file.package else "x")


def _elements(file: FileDescriptorProto) -> dict[tuple[int, ...], _Element]:
    """Every element that can carry options, by its source-info path."""
    package = file.package
    found: dict[tuple[int, ...], _Element] = {(): _file_element(file)}

    def enum(path: tuple[int, ...], e: EnumDescriptorProto, scope: str) -> None:
        full = f"{scope}.{e.name}" if scope else e.name
        found[path] = _Element("enum", owner("enum", full), full)
        for k, value in enumerate(e.value):
            sibling = f"{scope}.{value.name}" if scope else value.name
            found[(*path, _ENUM_VALUES, k)] = _Element("value", owner("value", f"{full}.{value.name}"), sibling)

    def extension(path: tuple[int, ...], name: str, scope: str) -> None:
        found[path] = _Element("field", owner("field", f"{scope}.{name}"), f"{scope}.{name}")

    pending: list[tuple[tuple[int, ...], DescriptorProto, str]] = [
        ((_FILE_MESSAGES, i), m, package) for i, m in enumerate(file.message_type)]
    while pending:
        work_budget.check()
        path, message, scope = pending.pop()
        full = f"{scope}.{message.name}" if scope else message.name
        found[path] = _Element("message", owner("message", full), full)
        for k, f in enumerate(message.field):
            found[(*path, _MESSAGE_FIELDS, k)] = _Element("field", owner("field", f"{full}.{f.name}"), f"{full}.{f.name}")
        for k, f in enumerate(message.extension):
            extension((*path, _MESSAGE_EXTENSIONS, k), f.name, full)
        for k, o in enumerate(message.oneof_decl):
            found[(*path, _MESSAGE_ONEOFS, k)] = _Element("oneof", owner("oneof", f"{full}.{o.name}"), f"{full}.{o.name}")
        for k, r in enumerate(message.extension_range):
            found[(*path, _MESSAGE_RANGES, k)] = _Element("range", owner("range", f"{full}.{r.start}"), full)
        for k, e in enumerate(message.enum_type):
            enum((*path, _MESSAGE_ENUMS, k), e, full)
        pending.extend(((*path, _MESSAGE_NESTED, k), m, full) for k, m in enumerate(message.nested_type))
    for i, e in enumerate(file.enum_type):
        enum((_FILE_ENUMS, i), e, package)
    for i, f in enumerate(file.extension):
        extension((_FILE_EXTENSIONS, i), f.name, package)
    for i, service in enumerate(file.service):
        full = f"{package}.{service.name}" if package else service.name
        found[(_FILE_SERVICES, i)] = _Element("service", owner("service", full), full)
        for k, method in enumerate(service.method):
            found[(_FILE_SERVICES, i, _SERVICE_METHODS, k)] = _Element(
                "method", owner("method", f"{full}.{method.name}"), f"{full}.{method.name}")
    return found


@dataclass(frozen=True)
class _Span:
    start: tuple[int, int]
    end: tuple[int, int]
    element: _Element


def _spans(file: FileDescriptorProto, source_info: bytes) -> list[_Span]:
    """The declarations' spans (protoc's 0-based lines and columns), outer ones first. An
    extension range's span is its whole `extensions` statement (protoc gives the options
    list to every range the statement declares), found among the statements of its message."""
    elements = _elements(file)
    spans: list[_Span] = []
    statements: dict[tuple[int, ...], list[tuple[tuple[int, int], tuple[int, int]]]] = {}
    ranges: list[tuple[tuple[int, int], _Element, tuple[int, ...]]] = []
    for location in SourceCodeInfo.FromString(source_info).location:
        path, span = tuple(location.path), location.span
        start, end = (span[0], span[1]), ((span[0], span[2]) if len(span) == 3 else (span[2], span[3]))
        if path[-1:] == (_MESSAGE_RANGES,) and path[:-1] in elements:
            statements.setdefault(path[:-1], []).append((start, end))
            continue
        element = elements.get(path)
        if element is None or element.kind == "file":
            continue
        if element.kind == "range":
            ranges.append((start, element, path[:-2]))
        else:
            spans.append(_Span(start, end, element))
    for start, element, message in ranges:
        around = next(((a, z) for a, z in statements.get(message, ()) if a <= start < z), None)
        if around is not None:
            spans.append(_Span(around[0], around[1], element))
    spans.sort(key=lambda s: (s.start, (-s.end[0], -s.end[1])))
    return spans


def _positions(text: str, offsets: Sequence[int]) -> Iterator[tuple[int, int]]:
    """protoc's line and column of each offset (ascending): columns count UTF-8 bytes, and
    a tab advances to the next multiple of 8."""
    line_starts = [0] + [m.end() for m in re.finditer("\n", text)]
    line, column, at = -1, 0, 0
    for offset in offsets:
        found = bisect.bisect_right(line_starts, offset) - 1
        if found != line:
            line, column, at = found, 0, line_starts[found]
        for ch in text[at:offset]:
            column = column + 8 - column % 8 if ch == "\t" else column + len(ch.encode("utf-8"))
        at = offset
        yield line, column


def placed(
    text: str, options: Sequence[CustomOption], file: FileDescriptorProto, source_info: bytes
) -> list[tuple[CustomOption, _Element]]:
    """Each option with the element that declares it: the innermost declaration around it
    that takes options of its form (a statement's message, oneof, enum, service, method or
    the file; a list's field, enum value or extension range, or each range of one
    `extensions` statement). ValueError for a list protoc placed nowhere (not expected:
    protoc gives every declaration a span)."""
    ordered = sorted(options, key=lambda o: o.at)
    spans = _spans(file, source_info)
    file_element = _file_element(file)
    out: list[tuple[CustomOption, _Element]] = []
    open_spans: list[_Span] = []
    next_span = 0
    for option, position in zip(ordered, _positions(text, [o.at for o in ordered])):
        work_budget.check()
        while next_span < len(spans) and spans[next_span].start <= position:
            open_spans.append(spans[next_span])
            next_span += 1
        open_spans = [s for s in open_spans if s.end > position]
        wanted = _LIST_OWNERS if option.in_list is not None else _STATEMENT_OWNERS
        inner = next((s for s in reversed(open_spans) if s.element.kind in wanted), None)
        if inner is None:
            if option.in_list is not None:
                raise ValueError(f"cannot tell which declaration the option {option.option.name} belongs to")
            out.append((option, file_element))
        elif inner.element.kind == "range":
            out.extend((option, s.element) for s in open_spans if s.element.kind == "range" and s.start == inner.start)
        else:
            out.append((option, inner.element))
    return out


def defined(option: CustomOption, element: _Element, symbols: SymbolTable, extensions: set[str]) -> bool:
    """Whether the option's (first) name resolves, from where it is declared, to an extension
    the schema can see: then protoc can link it after all."""
    inner = option.option.name[1:].split(")", 1)[0]
    target = symbols.resolve(inner.lstrip("."), "x" if inner.startswith(".") else element.scope)
    return target is not None and target in extensions


def visible_extensions(files: Sequence[FileDescriptorProto]) -> set[str]:
    """Full names (without the leading dot) of every extension the files declare."""
    found: set[str] = set()
    for file in files:
        prefix = f"{file.package}." if file.package else ""
        found.update(prefix + e.name for e in file.extension)
        pending = [(prefix + m.name, m) for m in file.message_type]
        while pending:
            full, message = pending.pop()
            found.update(f"{full}.{e.name}" for e in message.extension)
            pending.extend((f"{full}.{m.name}", m) for m in message.nested_type)
    return found


def grouped(options: Sequence[tuple[CustomOption, _Element]]) -> Unlinked:
    """The options by owner, in the order written."""
    found: dict[str, list[UnlinkedOption]] = {}
    for option, element in sorted(options, key=lambda pair: pair[0].at):
        found.setdefault(element.key, []).append(option.option)
    return {key: tuple(values) for key, values in found.items()}
