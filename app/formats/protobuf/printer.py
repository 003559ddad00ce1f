"""A compiled schema printed back as `.proto` text: the registry's canonical form.

The layout follows Confluent's formatted text (Square Wire's style): `syntax`/`edition` and
`package`, a blank line, imports, a blank line, options, then messages, enums, `extend` blocks
and services; inside a message, sections (options, reserved, members, extension ranges,
nested messages, nested enums, extends) separated by blank lines. Members keep their
declaration order and oneofs stay where they were declared, so the text compiles back to
the very same descriptor (`format.py` checks that).

`normalize=True` is Confluent's normalized form: imports and options sorted, fields by
number with oneofs after them, enum constants by number after the first (the default),
every type name fully qualified
with a leading dot. `qualify=True` alone qualifies the names and keeps the order: the
fallback when a short spelling would not compile back to the same type. `ignore_extensions=True` leaves out custom options and `extend` blocks
(the `format=ignore_extensions` reading).
"""
from __future__ import annotations

from collections.abc import Sequence

from google.protobuf.descriptor_pb2 import (
    DescriptorProto,
    Edition,
    EnumDescriptorProto,
    FieldDescriptorProto,
    ServiceDescriptorProto,
)
from google.protobuf.message import Message

from app.formats import work_budget
from app.formats.protobuf.model import ProtobufNative
from app.formats.protobuf.names import SymbolTable
from app.formats.protobuf.options import OptionReader, OptionValue, quote
from app.formats.protobuf.unlinked import owner

_F = FieldDescriptorProto
_SCALARS = {
    _F.TYPE_DOUBLE: "double", _F.TYPE_FLOAT: "float", _F.TYPE_INT64: "int64", _F.TYPE_UINT64: "uint64",
    _F.TYPE_INT32: "int32", _F.TYPE_FIXED64: "fixed64", _F.TYPE_FIXED32: "fixed32", _F.TYPE_BOOL: "bool",
    _F.TYPE_STRING: "string", _F.TYPE_BYTES: "bytes", _F.TYPE_UINT32: "uint32", _F.TYPE_SFIXED32: "sfixed32",
    _F.TYPE_SFIXED64: "sfixed64", _F.TYPE_SINT32: "sint32", _F.TYPE_SINT64: "sint64",
}
_MAX_FIELD_NUMBER = 536870911
_INDENT = "  "


def default_literal(field: FieldDescriptorProto) -> str:
    """A proto2 field's `[default = ...]` value as the text writes it (`7`, `"a\\n"`, `RED`)."""
    if field.type == _F.TYPE_STRING:
        return quote(field.default_value)
    if field.type == _F.TYPE_BYTES:
        return f'"{field.default_value}"'  # protoc keeps bytes defaults C-escaped already
    return field.default_value


def default_json_name(name: str) -> str:
    """protoc's ToJsonName: underscores dropped, the letter after one upper-cased."""
    out, upper = [], False
    for ch in name:
        if ch == "_":
            upper = True
        elif upper:
            out.append(ch.upper())
            upper = False
        else:
            out.append(ch)
    return "".join(out)


class _Lines:
    def __init__(self) -> None:
        self.lines: list[str] = []
        self.depth = 0

    def add(self, text: str) -> None:
        self.lines.append(_INDENT * self.depth + text if text else "")

    def blank(self) -> None:
        if self.lines and self.lines[-1] != "":
            self.lines.append("")


class Printer:
    """One rendering of one compiled file (a fresh instance per text: it accumulates lines)."""

    def __init__(
        self, native: ProtobufNative, *, normalize: bool = False, qualify: bool = False, ignore_extensions: bool = False
    ) -> None:
        self.file = native.file
        self.normalize = normalize
        self.qualify = qualify or normalize
        self.ignore_extensions = ignore_extensions
        self.symbols = SymbolTable(native.file, native.imports)
        self.options = OptionReader(native.file, native.imports)
        self.unlinked = {} if ignore_extensions else native.unlinked
        self.syntax = native.file.syntax or "proto2"
        self.out = _Lines()

    # ------------------------------------------------------------------ names
    def _type(self, type_name: str, relative_to: str, *, types_only: bool = True) -> str:
        if self.qualify:
            return type_name if type_name.startswith(".") else "." + type_name
        return self.symbols.shortest(type_name, relative_to, types_only=types_only)

    def _option_name(self, option: OptionValue, relative_to: str) -> str:
        if not option.is_extension:
            return option.name
        return f"({self.symbols.qualified(option.name, relative_to)})"

    def _option_values(self, element: Message, relative_to: str, key: str) -> list[tuple[str, str]]:
        """`element`'s options: those protoc linked, then the custom ones nothing defines
        (`key` names the element among those, see `unlinked.owner`)."""
        pairs = [
            (self._option_name(o, relative_to), o.value)
            for o in self.options.values(element.options, ignore_extensions=self.ignore_extensions)
        ] if element.HasField("options") else []
        pairs += [(o.name, o.value) for o in self.unlinked.get(key, ())]
        return sorted(pairs, key=lambda p: p[0].strip("()")) if self.normalize else pairs

    def _option_statements(self, element: Message, relative_to: str, key: str) -> None:
        for name, value in self._option_values(element, relative_to, key):
            self.out.add(f"option {name} = {value};")

    @staticmethod
    def _inline(pairs: Sequence[tuple[str, str]]) -> str:
        return " [" + ", ".join(f"{n} = {v}" for n, v in pairs) + "]" if pairs else ""

    # ------------------------------------------------------------------ file
    def text(self) -> str:
        file, out = self.file, self.out
        if file.syntax == "editions":
            out.add(f'edition = "{Edition.Name(file.edition).removeprefix("EDITION_")}";')
        else:
            # Written out for proto2 too (descriptors leave it empty), as protoc asks.
            out.add(f'syntax = "{self.syntax}";')
        if file.package:
            out.add(f"package {file.package};")
        self._imports()
        file_key = owner("file", "")
        if file.HasField("options") or file_key in self.unlinked:
            out.blank()
            self._option_statements(file, f"{file.package}.x" if file.package else "x", file_key)
        scope = file.package
        inline_groups = self._inline_group_types(file.message_type, (*file.extension,))
        messages = [m for m in file.message_type if m.name not in inline_groups]
        if messages or file.enum_type:
            out.blank()
        for message in messages:
            self._message(message, scope)
        for enum in file.enum_type:
            self._enum(enum, scope)
        if file.extension and not self.ignore_extensions:
            out.blank()
            self._extends(file.extension, scope, file.message_type)
        if file.service:
            out.blank()
            for service in file.service:
                self._service(service, scope)
        return "\n".join(out.lines) + "\n"

    def _imports(self) -> None:
        file = self.file
        public, weak = set(file.public_dependency), set(file.weak_dependency)
        plain = [(d, "") for i, d in enumerate(file.dependency) if i not in public and i not in weak]
        publics = [(d, "public ") for i, d in enumerate(file.dependency) if i in public]
        weaks = [(d, "weak ") for i, d in enumerate(file.dependency) if i in weak]
        options = [(d, "option ") for d in getattr(file, "option_dependency", ())]
        if self.normalize:
            entries = sorted(set(plain)) + sorted(set(publics)) + sorted(set(weaks)) + sorted(set(options))
        else:
            # Declaration order: public and weak imports are flags on positions of `dependency`.
            flags = {i: ("public " if i in public else "weak " if i in weak else "") for i in range(len(file.dependency))}
            entries = [(d, flags[i]) for i, d in enumerate(file.dependency)] + options
        if entries:
            self.out.blank()
            for name, kind in entries:
                self.out.add(f"import {kind}{quote(name)};")

    # ------------------------------------------------------------------ messages
    def _inline_group_types(self, nested: Sequence[DescriptorProto], fields: Sequence[FieldDescriptorProto]) -> set[str]:
        """Names of nested types that proto2 `group` fields declare (printed inside the field)."""
        if self.syntax != "proto2":
            return set()
        names = {m.name for m in nested}
        return {f.type_name.rsplit(".", 1)[-1] for f in fields if f.type == _F.TYPE_GROUP and f.type_name.rsplit(".", 1)[-1] in names}

    def _message(self, message: DescriptorProto, scope: str, *, header: str | None = None) -> None:
        work_budget.check()
        out = self.out
        full = f"{scope}.{message.name}" if scope else message.name
        out.add(header or f"message {message.name} {{")
        out.depth += 1
        start = len(out.lines)

        def section() -> None:
            if len(out.lines) > start:
                out.blank()

        self._option_statements(message, f"{full}.x", owner("message", full))
        if message.reserved_range or message.reserved_name:
            section()
            self._reserved(message.reserved_range, message.reserved_name, exclusive_end=True)
        if message.extension_range:
            section()
            for r in message.extension_range:
                end = "max" if r.end - 1 == _MAX_FIELD_NUMBER else str(r.end - 1)
                span = str(r.start) if r.end - 1 == r.start else f"{r.start} to {end}"
                pairs = self._option_values(r, f"{full}.x", owner("range", f"{full}.{r.start}"))
                out.add(f"extensions {span}{self._inline(pairs)};")
        if message.field or message.nested_type:
            section()
            self._members(message, full)
        if message.enum_type:
            section()
            for enum in message.enum_type:
                self._enum(enum, full)
        if message.extension and not self.ignore_extensions:
            section()
            self._extends(message.extension, full, message.nested_type)
        out.depth -= 1
        if out.lines[-1] == "":
            out.lines.pop()
        out.add("}")

    def _units(self, message: DescriptorProto) -> list[tuple[int | None, list[FieldDescriptorProto]]]:
        """Fields as printed: single fields and whole oneofs (index, members), in declaration
        order, or sorted by number (fields first, then oneofs) when normalizing."""
        real_oneofs = {
            f.oneof_index for f in message.field if f.HasField("oneof_index") and not f.proto3_optional
        }

        def oneof_of(f: FieldDescriptorProto) -> int | None:
            return f.oneof_index if f.HasField("oneof_index") and f.oneof_index in real_oneofs else None

        members: dict[int, list[FieldDescriptorProto]] = {}
        units: list[tuple[int | None, list[FieldDescriptorProto]]] = []
        for field in message.field:
            index = oneof_of(field)
            if index is None:
                units.append((None, [field]))
            elif index in members:
                members[index].append(field)
            else:
                members[index] = [field]
                units.append((index, members[index]))
        if self.normalize:
            plain = sorted((u for u in units if u[0] is None), key=lambda u: u[1][0].number)
            oneofs = [(i, sorted(fs, key=lambda f: f.number)) for i, fs in units if i is not None]
            units = plain + sorted(oneofs, key=lambda u: u[1][0].number)
        return units

    def _members(self, message: DescriptorProto, full: str) -> None:
        """Fields, oneofs and nested messages. A map field or a proto2 group creates its
        nested type where the field is declared, and the order of nested types is what
        message indexes count, so nested messages are printed between the fields exactly
        where that order needs them; the rest come after the fields."""
        out = self.out
        entries = {m.name: m for m in message.nested_type if m.options.map_entry}
        groups = self._inline_group_types(message.nested_type, (*message.field, *message.extension))
        nested = list(message.nested_type)
        by_name = {m.name: m for m in nested}
        position = 0

        def nested_up_to(name: str | None) -> None:
            nonlocal position
            names = [m.name for m in nested[position:]]
            stop = position + names.index(name) if name in names else (len(nested) if name is None else position)
            for m in nested[position:stop]:
                if m.name not in entries and m.name not in groups:
                    out.blank()
                    self._message(m, full)
                    out.blank()
            position = stop + 1 if name is not None and stop < len(nested) else stop

        for index, fields in self._units(message):
            for field in fields:
                tied = field.type_name.rsplit(".", 1)[-1]
                if tied in entries or tied in groups:
                    nested_up_to(tied)
            if index is None:
                self._field(fields[0], full, entries, by_name)
            else:
                self._oneof(message, index, fields, full, entries, by_name)
        nested_up_to(None)

    def _oneof(self, message: DescriptorProto, index: int, fields: list, full: str, entries: dict, nested: dict) -> None:
        oneof = message.oneof_decl[index]
        self.out.add(f"oneof {oneof.name} {{")
        self.out.depth += 1
        self._option_statements(oneof, f"{full}.{oneof.name}", owner("oneof", f"{full}.{oneof.name}"))
        for field in fields:
            self._field(field, full, entries, nested, in_oneof=True)
        self.out.depth -= 1
        self.out.add("}")

    def _field(
        self, field: FieldDescriptorProto, scope: str, entries: dict, nested: dict, *,
        in_oneof: bool = False,
    ) -> None:
        relative_to = f"{scope}.{field.name}"
        simple_type = field.type_name.rsplit(".", 1)[-1]
        entry = entries.get(simple_type) if field.label == _F.LABEL_REPEATED and field.type == _F.TYPE_MESSAGE else None
        if entry is not None and field.type_name.endswith(f".{entry.name}"):
            key, value = entry.field[0], entry.field[1]
            entry_scope = f"{scope}.{entry.name}"
            type_text = f"map<{self._field_type(key, entry_scope)}, {self._field_type(value, entry_scope)}>"
            label = ""
        else:
            entry = None
            type_text = self._field_type(field, scope)
            label = self._label(field, in_oneof)
        pairs: list[tuple[str, str]] = []
        if field.HasField("default_value"):
            pairs.append(("default", default_literal(field)))
        if field.HasField("json_name") and field.json_name != default_json_name(field.name):
            pairs.append(("json_name", quote(field.json_name)))
        pairs.extend(self._option_values(field, relative_to, owner("field", relative_to)))
        if self.normalize:
            pairs.sort(key=lambda p: p[0].strip("()"))
        group = nested.get(simple_type) if field.type == _F.TYPE_GROUP and self.syntax == "proto2" else None
        if group is not None:
            header = f"{label}group {group.name} = {field.number}{self._inline(pairs)} {{"
            self._message(group, scope, header=header)
            return
        self.out.add(f"{label}{type_text} {field.name} = {field.number}{self._inline(pairs)};")

    def _field_type(self, field: FieldDescriptorProto, scope: str) -> str:
        if field.type in _SCALARS:
            return _SCALARS[field.type]
        return self._type(field.type_name, f"{scope}.{field.name}")

    def _label(self, field: FieldDescriptorProto, in_oneof: bool) -> str:
        if in_oneof:
            return ""
        if field.label == _F.LABEL_REPEATED:
            return "repeated "
        if self.syntax == "proto2":
            return "required " if field.label == _F.LABEL_REQUIRED else "optional "
        if self.syntax == "proto3" and field.proto3_optional:
            return "optional "
        return ""

    def _reserved(self, ranges: Sequence, names: Sequence[str], *, exclusive_end: bool) -> None:
        spans = [(r.start, r.end - 1 if exclusive_end else r.end) for r in ranges]
        if self.normalize:
            spans.sort()
            names = sorted(names)
        if spans:
            parts = [str(a) if a == b else f"{a} to {'max' if b == _MAX_FIELD_NUMBER and exclusive_end else b}" for a, b in spans]
            self.out.add(f"reserved {', '.join(parts)};")
        if names:
            # Editions reserve identifiers; proto2 and proto3 reserve string literals.
            spelled = names if self.syntax == "editions" else [quote(n) for n in names]
            self.out.add(f"reserved {', '.join(spelled)};")

    # ------------------------------------------------------------------ enums, extends, services
    def _enum(self, enum: EnumDescriptorProto, scope: str) -> None:
        out = self.out
        full = f"{scope}.{enum.name}" if scope else enum.name
        out.add(f"enum {enum.name} {{")
        out.depth += 1
        self._option_statements(enum, f"{full}.x", owner("enum", full))
        if enum.reserved_range or enum.reserved_name:
            self._reserved(enum.reserved_range, enum.reserved_name, exclusive_end=False)
        values = list(enum.value)
        if self.normalize and values:
            # The first value stays first: it is the default (proto2) and must be zero (proto3).
            values[1:] = sorted(values[1:], key=lambda v: (v.number, v.name))
        for value in values:
            pairs = self._option_values(value, f"{full}.{value.name}", owner("value", f"{full}.{value.name}"))
            out.add(f"{value.name} = {value.number}{self._inline(pairs)};")
        out.depth -= 1
        out.add("}")

    def _extends(self, extensions: Sequence[FieldDescriptorProto], scope: str, nested: Sequence[DescriptorProto]) -> None:
        """One `extend` block per run of consecutive extensions of the same message, which
        keeps their order in the descriptor."""
        by_name = {m.name: m for m in nested}
        runs: list[list[FieldDescriptorProto]] = []
        for ext in extensions:
            if runs and runs[-1][0].extendee == ext.extendee:
                runs[-1].append(ext)
            else:
                runs.append([ext])
        for run in runs:
            relative_to = f"{scope}.{run[0].name}" if scope else run[0].name
            self.out.add(f"extend {self._type(run[0].extendee, relative_to, types_only=False)} {{")
            self.out.depth += 1
            for ext in run:
                self._field(ext, scope, {}, by_name)
            self.out.depth -= 1
            self.out.add("}")

    def _service(self, service: ServiceDescriptorProto, scope: str) -> None:
        out = self.out
        full = f"{scope}.{service.name}" if scope else service.name
        out.add(f"service {service.name} {{")
        out.depth += 1
        self._option_statements(service, f"{full}.x", owner("service", full))
        for method in service.method:
            relative_to = f"{full}.{method.name}"
            request = ("stream " if method.client_streaming else "") + self._type(method.input_type, relative_to, types_only=False)
            response = ("stream " if method.server_streaming else "") + self._type(method.output_type, relative_to, types_only=False)
            line = f"rpc {method.name} ({request}) returns ({response})"
            pairs = self._option_values(method, relative_to, owner("method", relative_to))
            if pairs:
                out.add(line + " {")
                out.depth += 1
                for name, value in pairs:
                    out.add(f"option {name} = {value};")
                out.depth -= 1
                out.add("}")
            else:
                out.add(line + ";")
        out.depth -= 1
        out.add("}")


def render(
    native: ProtobufNative, *, normalize: bool = False, qualify: bool = False, ignore_extensions: bool = False
) -> str:
    return Printer(native, normalize=normalize, qualify=qualify, ignore_extensions=ignore_extensions).text()
