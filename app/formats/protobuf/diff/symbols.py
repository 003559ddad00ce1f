"""A schema as Confluent's checker sees it: the `.proto` text's elements, found in descriptors.

Confluent compares the parsed text (Square Wire's elements), not descriptors, and some of
what protoc adds to a descriptor is not in the text. The views here take it out again, so
that the rules see what Confluent sees:

* map fields: protoc adds a nested `XxxEntry` message per map; the text has none, so those
  messages neither count as nested types nor shift message indexes, and the field's type is
  the map itself (key and value types);
* labels as written: proto3's `int32 x = 1` has no label (protoc says optional), proto3's
  `optional` is an explicit one, oneof members and map fields have none, proto2 labels are
  always written; editions write only `repeated`;
* proto3 `optional` fields sit in synthetic oneofs in a descriptor, not in the text;
* proto2 groups are not fields in Wire's model (Confluent skips them), nor nested types;
* extensions are not compared.

Every type of a schema (its own file and all imports) is indexed by full name, with the
package and the "local" name (the full name without the package) Confluent compares named
field types by. Views are built once per parsed schema and cached with it.
"""
from __future__ import annotations

import threading
import weakref
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import NamedTuple

from google.protobuf.descriptor_pb2 import (
    DescriptorProto,
    EnumDescriptorProto,
    FieldDescriptorProto,
    FileDescriptorProto,
)

from app.formats import work_budget
from app.formats.protobuf.model import ProtobufNative

OPTIONAL = "OPTIONAL"
REQUIRED = "REQUIRED"
REPEATED = "REPEATED"

_SCALARS = {
    FieldDescriptorProto.TYPE_DOUBLE: "double",
    FieldDescriptorProto.TYPE_FLOAT: "float",
    FieldDescriptorProto.TYPE_INT64: "int64",
    FieldDescriptorProto.TYPE_UINT64: "uint64",
    FieldDescriptorProto.TYPE_INT32: "int32",
    FieldDescriptorProto.TYPE_FIXED64: "fixed64",
    FieldDescriptorProto.TYPE_FIXED32: "fixed32",
    FieldDescriptorProto.TYPE_BOOL: "bool",
    FieldDescriptorProto.TYPE_STRING: "string",
    FieldDescriptorProto.TYPE_BYTES: "bytes",
    FieldDescriptorProto.TYPE_UINT32: "uint32",
    FieldDescriptorProto.TYPE_SFIXED32: "sfixed32",
    FieldDescriptorProto.TYPE_SFIXED64: "sfixed64",
    FieldDescriptorProto.TYPE_SINT32: "sint32",
    FieldDescriptorProto.TYPE_SINT64: "sint64",
}


class FieldView(NamedTuple):
    """A field as written: `scalar` is the scalar keyword (`int32`), else `type_name` the
    full name of its message, enum or map-entry type (no leading dot; as written when it
    cannot be resolved). `label` is None where the text writes none. A tuple: views of a
    large schema build many, and fields compare by value."""

    name: str
    number: int
    label: str | None
    scalar: str | None
    type_name: str | None


@dataclass(frozen=True, eq=False)
class EnumView:
    """An enum; `values` maps each number to its name (the last one declared, with aliases)."""

    name: str
    full_name: str
    values: Mapping[int, str]


@dataclass(frozen=True, eq=False)
class MessageView:
    """A message as written. `fields` holds every field by number, oneof members included;
    `oneof_of` maps a member's number to its oneof; `oneofs` lists the real oneofs in
    declaration order with their members' numbers; `messages` and `enums` are the nested
    types in declaration order (map entries and groups left out). Compared by identity."""

    name: str
    full_name: str
    fields: Mapping[int, FieldView]
    oneof_of: Mapping[int, str]
    oneofs: tuple[tuple[str, tuple[int, ...]], ...]
    messages: tuple[MessageView, ...]
    enums: tuple[EnumView, ...]


@dataclass(frozen=True, eq=False)
class TypeInfo:
    """A named type of one side. `own` is true for the schema's own file, false for imports;
    `file` is the defining file. A map entry has `map_key` and `map_value`, an enum `enum`,
    any other message `message`."""

    full_name: str
    package: str
    local_name: str
    own: bool
    file: FileDescriptorProto
    message: MessageView | None = None
    enum: EnumView | None = None
    map_key: FieldView | None = None
    map_value: FieldView | None = None


@dataclass(frozen=True, eq=False)
class SchemaView:
    """One side of a comparison: its own file's package and top-level types, and every type
    it can name."""

    package: str
    messages: tuple[MessageView, ...]
    enums: tuple[EnumView, ...]
    types: Mapping[str, TypeInfo] = field(repr=False)


_cache: weakref.WeakKeyDictionary[ProtobufNative, SchemaView] = weakref.WeakKeyDictionary()
_cache_lock = threading.Lock()


def view_of(native: ProtobufNative) -> SchemaView:
    """The view of a parsed schema, built on first use (parsed schemas are immutable)."""
    with _cache_lock:
        cached = _cache.get(native)
    if cached is not None:
        return cached
    built = _build(native)
    with _cache_lock:
        return _cache.setdefault(native, built)


def _build(native: ProtobufNative) -> SchemaView:
    files: list[tuple[FileDescriptorProto, bool]] = [
        (imported, False) for imported in native.imports.values() if imported is not native.file
    ]
    files.append((native.file, True))
    raw: dict[str, DescriptorProto | EnumDescriptorProto] = {}
    for file, _ in files:
        raw.update(_walk_raw(file))
    builder = _Builder(raw)
    types: dict[str, TypeInfo] = {}
    own_messages: tuple[MessageView, ...] = ()
    own_enums: tuple[EnumView, ...] = ()
    for file, own in files:
        messages, enums = builder.file_types(file, own, types)
        if own:
            own_messages, own_enums = messages, enums
    return SchemaView(package=native.file.package, messages=own_messages, enums=own_enums, types=types)


def _walk_raw(
    file: FileDescriptorProto,
) -> Iterable[tuple[str, DescriptorProto | EnumDescriptorProto]]:
    """Every message and enum of a file by full name, without recursion (nesting is unbounded)."""
    prefix = f"{file.package}." if file.package else ""
    pending: list[tuple[str, DescriptorProto]] = [(prefix + m.name, m) for m in file.message_type]
    for enum in file.enum_type:
        yield prefix + enum.name, enum
    while pending:
        full_name, message = pending.pop()
        yield full_name, message
        pending.extend((f"{full_name}.{nested.name}", nested) for nested in message.nested_type)
        for enum in message.enum_type:
            yield f"{full_name}.{enum.name}", enum


class _Builder:
    """Builds views of one side, resolving field types against every file of that side."""

    def __init__(self, raw: Mapping[str, DescriptorProto | EnumDescriptorProto]):
        self._raw = raw
        self._map_entries = {
            name for name, element in raw.items() if isinstance(element, DescriptorProto) and _is_map_entry(element)
        }

    def file_types(
        self, file: FileDescriptorProto, own: bool, types: dict[str, TypeInfo]
    ) -> tuple[tuple[MessageView, ...], tuple[EnumView, ...]]:
        """Views of a file's top-level types; every type of the file lands in `types`."""
        package = file.package
        syntax = file.syntax or "proto2"
        prefix = f"{package}." if package else ""

        def info(full_name: str, **kind: object) -> TypeInfo:
            local = full_name[len(prefix):] if prefix and full_name.startswith(prefix) else full_name
            return TypeInfo(full_name=full_name, package=package, local_name=local, own=own, file=file, **kind)

        def enum_view(enum: EnumDescriptorProto, full_name: str) -> EnumView:
            values: dict[int, str] = {}
            for value in enum.value:
                values[value.number] = value.name
            view = EnumView(name=enum.name, full_name=full_name, values=values)
            types[full_name] = info(full_name, enum=view)
            return view

        # Nesting can go deeper than Python's stack, so messages are built bottom-up from a
        # work list rather than recursively.
        order: list[tuple[DescriptorProto, str]] = []
        pending = [(m, prefix + m.name) for m in file.message_type]
        while pending:
            message, full_name = pending.pop()
            order.append((message, full_name))
            pending.extend((nested, f"{full_name}.{nested.name}") for nested in message.nested_type)
        built: dict[str, MessageView] = {}
        for message, full_name in reversed(order):
            if full_name in self._map_entries:
                key, value = (self._field(f, self._type_of(f, full_name), syntax, True) for f in message.field)
                types[full_name] = info(full_name, map_key=key, map_value=value)
                continue
            view = self._message(message, full_name, syntax, built, enum_view)
            built[full_name] = view
            types[full_name] = info(full_name, message=view)
        top_messages = tuple(built[prefix + m.name] for m in file.message_type if (prefix + m.name) in built)
        top_enums = tuple(enum_view(e, prefix + e.name) for e in file.enum_type)
        return top_messages, top_enums

    def _message(
        self,
        message: DescriptorProto,
        full_name: str,
        syntax: str,
        built: Mapping[str, MessageView],
        enum_view: Callable[[EnumDescriptorProto, str], EnumView],
    ) -> MessageView:
        work_budget.check()
        declared = len(message.oneof_decl)
        real_oneofs = {
            f.oneof_index
            for f in message.field
            if f.HasField("oneof_index") and not f.proto3_optional and f.oneof_index < declared
        }
        group_types: set[str] = set()
        fields: dict[int, FieldView] = {}
        oneof_of: dict[int, str] = {}
        members: dict[int, list[int]] = {index: [] for index in sorted(real_oneofs)}
        for descriptor in message.field:
            if descriptor.type == descriptor.TYPE_GROUP:
                group_types.add(descriptor.type_name.rsplit(".", 1)[-1])
                continue
            in_oneof = descriptor.HasField("oneof_index") and descriptor.oneof_index in real_oneofs
            type_name = self._type_of(descriptor, full_name)
            is_map = type_name is not None and type_name in self._map_entries
            fields[descriptor.number] = self._field(descriptor, type_name, syntax, in_oneof or is_map)
            if in_oneof:
                oneof_of[descriptor.number] = message.oneof_decl[descriptor.oneof_index].name
                members[descriptor.oneof_index].append(descriptor.number)
        nested = tuple(
            built[f"{full_name}.{n.name}"]
            for n in message.nested_type
            if f"{full_name}.{n.name}" in built and n.name not in group_types
        )
        enums = tuple(enum_view(e, f"{full_name}.{e.name}") for e in message.enum_type)
        return MessageView(
            name=message.name,
            full_name=full_name,
            fields=fields,
            oneof_of=oneof_of,
            oneofs=tuple((message.oneof_decl[i].name, tuple(numbers)) for i, numbers in members.items()),
            messages=nested,
            enums=enums,
        )

    def _type_of(self, descriptor: FieldDescriptorProto, scope: str) -> str | None:
        """The full name of a field's message or enum type (as written when it cannot be
        resolved); None for a scalar. A client's descriptor may name a type without saying
        whether it is a message or an enum: `type` then reads as its default (double), so it
        only counts when set."""
        named = bool(descriptor.type_name) and not descriptor.HasField("type")
        if not named and descriptor.type in _SCALARS:
            return None
        return self._resolve(descriptor.type_name, scope) or descriptor.type_name.lstrip(".")

    @staticmethod
    def _field(descriptor: FieldDescriptorProto, type_name: str | None, syntax: str, unlabelled: bool) -> FieldView:
        return FieldView(
            name=descriptor.name,
            number=descriptor.number,
            label=_written_label(descriptor, syntax, unlabelled),
            scalar=_SCALARS[descriptor.type] if type_name is None else None,
            type_name=type_name,
        )

    def _resolve(self, name: str, scope: str) -> str | None:
        """The full name a type reference denotes, by protobuf's scoping (innermost scope
        first); protoc writes them fully qualified, but a descriptor sent by a client may not."""
        if not name:
            return None
        if name.startswith("."):
            return name[1:] if name[1:] in self._raw else None
        parts = scope.split(".")
        while parts:
            candidate = ".".join(parts) + "." + name
            if candidate in self._raw:
                return candidate
            parts.pop()
        return name if name in self._raw else None


def _is_map_entry(message: DescriptorProto) -> bool:
    """A map's entry as protoc generates it (a descriptor sent by a client is taken for one
    only when it has the key and the value, so that a malformed one stays a plain message)."""
    return message.options.map_entry and [f.number for f in message.field] == [1, 2]


def _written_label(descriptor: FieldDescriptorProto, syntax: str, unlabelled: bool) -> str | None:
    """The label the `.proto` text carries (see the module docstring)."""
    if unlabelled:
        return None
    if descriptor.label == descriptor.LABEL_REPEATED:
        return REPEATED
    if syntax == "proto2":
        return REQUIRED if descriptor.label == descriptor.LABEL_REQUIRED else OPTIONAL
    if syntax == "proto3":
        return OPTIONAL if descriptor.proto3_optional else None
    return None  # editions write presence as a feature, not a label
