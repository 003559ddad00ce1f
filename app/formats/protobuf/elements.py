"""A Protobuf schema as policy rules read it (`PolicyView`), in the rules' vocabulary: a
message is a record, its fields fields, an enum an enum with its values as symbols, a oneof
a union of its members, a repeated field an array, a map field a map, each scalar type a
primitive, and the file's package the namespace of every type it declares.

The descriptor walked is the text's own, compiled with protoc's source info, so that each
element's location is the `line:column` (1-based, as protoc reports errors) where its
declaration starts, and its doc is the comment protoc attaches to it as leading (the
comment block right above, no blank line between). The package is one element of kind
`namespace` (at its `package` statement; the root's location, "", when there is none), so a
rule on namespaces reports it once, not once per message.

The root element, which `required-fields` reads, is the file's first message: the one
Confluent names the schema after. Types from imports are not walked. A message's depth
counts the messages whose fields lead to it from a top-level message (itself included),
first reach in declaration order, as Avro counts records enclosing a definition.
"""
from __future__ import annotations

from collections.abc import Iterator, Sequence

from google.protobuf.descriptor_pb2 import (
    DescriptorProto,
    EnumDescriptorProto,
    FieldDescriptorProto,
    FileDescriptorProto,
)

from app.formats import work_budget
from app.formats.base import SchemaElement

# Field numbers in descriptor.proto, the steps of a source-info path.
_FILE_PACKAGE, _FILE_MESSAGES, _FILE_ENUMS = 2, 4, 5
_MESSAGE_FIELDS, _MESSAGE_NESTED, _MESSAGE_ENUMS, _MESSAGE_ONEOFS = 2, 3, 4, 8
_FIELD_TYPE, _FIELD_TYPE_NAME = 5, 6
_ENUM_VALUES = 2

_Path = tuple[int, ...]


class _Source:
    """The file's source info by path: where each declaration starts, its leading comment."""

    def __init__(self, file: FileDescriptorProto) -> None:
        # A field alone has five locations (itself, label, type, name, number): read each once,
        # format only the ones asked for.
        self._spans: dict[_Path, tuple[int, int]] = {}
        self._docs: dict[_Path, str] = {}
        for location in file.source_code_info.location:
            path = tuple(location.path)
            if path not in self._spans:
                span = location.span
                self._spans[path] = (span[0], span[1])
            comment = location.leading_comments
            if comment:
                self._docs[path] = comment

    def at(self, path: _Path) -> str:
        span = self._spans.get(path)
        return f"{span[0] + 1}:{span[1] + 1}" if span is not None else ""

    def doc(self, path: _Path) -> str | None:
        return self._docs.get(path, "").strip() or None


_SCALARS = {
    number: name[len("TYPE_"):].lower() for name, number in FieldDescriptorProto.Type.items()
    if name not in ("TYPE_MESSAGE", "TYPE_ENUM", "TYPE_GROUP")
}


def _scalar(field: FieldDescriptorProto) -> str | None:
    """`int64`, `string`, ... for a scalar field; None for a message, enum or group."""
    return _SCALARS.get(field.type)


class _Walk:
    def __init__(self, file: FileDescriptorProto) -> None:
        self.file = file
        self.package = file.package
        self.source = _Source(file)
        self.messages: dict[str, DescriptorProto] = {}  # full name (no leading dot) -> message
        self._collect(file.message_type, file.package)
        self.depths = self._depths()
        self.out: list[SchemaElement] = []

    def _collect(self, messages: Sequence[DescriptorProto], scope: str) -> None:
        pending = [(m, scope) for m in messages]
        while pending:
            message, parent = pending.pop()
            full = f"{parent}.{message.name}" if parent else message.name
            self.messages[full] = message
            pending.extend((m, full) for m in message.nested_type)

    def _map_entry(self, field: FieldDescriptorProto) -> DescriptorProto | None:
        found = self.messages.get(field.type_name.lstrip("."))
        return found if found is not None and found.options.map_entry else None

    def _depths(self) -> dict[str, int]:
        """Each message's depth: first reached through fields, top-level messages in order."""
        depths: dict[str, int] = {}
        for start in self._declared(self.file.message_type, self.package):
            if start in depths:
                continue
            depths[start] = 1
            pending = [start]
            while pending:
                name = pending.pop()
                for field in self.messages[name].field:
                    target = field.type_name.lstrip(".")
                    entry = self._map_entry(field)
                    if entry is not None:
                        target = entry.field[1].type_name.lstrip(".")
                    if target in self.messages and target not in depths and not self.messages[target].options.map_entry:
                        depths[target] = depths[name] + 1
                        pending.append(target)
        return depths

    def _declared(self, messages: Sequence[DescriptorProto], scope: str) -> Iterator[str]:
        """Full names of messages in declaration order, nested ones after their parent."""
        pending = [(m, scope) for m in reversed(messages)]
        while pending:
            message, parent = pending.pop()
            full = f"{parent}.{message.name}" if parent else message.name
            yield full
            pending.extend((m, full) for m in reversed(message.nested_type))

    def type_label(self, field: FieldDescriptorProto) -> str:
        """The field's type as `.proto` text writes it, names fully qualified:
        `int64`, `com.acme.Address`, `repeated string`, `map<string, int32>`."""
        entry = self._map_entry(field)
        if entry is not None:
            return f"map<{self._plain(entry.field[0])}, {self._plain(entry.field[1])}>"
        plain = self._plain(field)
        return f"repeated {plain}" if field.label == FieldDescriptorProto.LABEL_REPEATED else plain

    @staticmethod
    def _plain(field: FieldDescriptorProto) -> str:
        return _scalar(field) or field.type_name.lstrip(".")

    # ------------------------------------------------------------------ the walk
    def run(self) -> list[SchemaElement]:
        pending: list[tuple[DescriptorProto | EnumDescriptorProto, _Path, str]] = []
        pending += [(e, (_FILE_ENUMS, i), self.package) for i, e in reversed(list(enumerate(self.file.enum_type)))]
        pending += [(m, (_FILE_MESSAGES, i), self.package)
                    for i, m in reversed(list(enumerate(self.file.message_type)))]
        while pending:
            declared, path, scope = pending.pop()
            if isinstance(declared, EnumDescriptorProto):
                self._enum(declared, path, scope, self.depths.get(scope, 0))
            elif not declared.options.map_entry:
                full = f"{scope}.{declared.name}" if scope else declared.name
                self._message(declared, path, full)
                nested: list[tuple[DescriptorProto | EnumDescriptorProto, _Path, str]] = [
                    (m, (*path, _MESSAGE_NESTED, i), full) for i, m in enumerate(declared.nested_type)]
                nested += [(e, (*path, _MESSAGE_ENUMS, i), full) for i, e in enumerate(declared.enum_type)]
                pending.extend(reversed(nested))
        self._package()
        return self.out

    def _package(self) -> None:
        self.out.append(SchemaElement("namespace", self.package, self.source.at((_FILE_PACKAGE,)), self.package,
                                      namespace=self.package or None, noun="package"))

    def _message(self, message: DescriptorProto, path: _Path, full: str) -> None:
        work_budget.check()
        depth = self.depths.get(full, 1)
        fields = [f for f in message.field]
        self.out.append(SchemaElement(
            "record", message.name, self.source.at(path), full, namespace=self.package or None,
            doc=self.source.doc(path), type=full, depth=depth, size=len(fields), noun="message",
        ))
        proto2 = self.file.syntax in ("", "proto2")
        for index, field in enumerate(fields):
            field_path = (*path, _MESSAGE_FIELDS, index)
            required = field.label == FieldDescriptorProto.LABEL_REQUIRED
            explicit = proto2 and field.HasField("default_value")
            name = f"{full}.{field.name}"
            self.out.append(SchemaElement(
                "field", field.name, self.source.at(field_path), name, doc=self.source.doc(field_path),
                type=self.type_label(field), depth=depth, default=field.default_value if explicit else None,
                has_default=not required, record=full, number=field.number,
            ))
            self._occurrence(field, field_path, name, depth)
        members_of: dict[int, int] = {}
        for field in fields:
            if field.HasField("oneof_index") and not field.proto3_optional:
                members_of[field.oneof_index] = members_of.get(field.oneof_index, 0) + 1
        for index, oneof in enumerate(message.oneof_decl):
            members = members_of.get(index, 0)
            if members:  # not the synthetic oneof of a proto3 `optional` field
                oneof_path = (*path, _MESSAGE_ONEOFS, index)
                self.out.append(SchemaElement(
                    "union", oneof.name, self.source.at(oneof_path), f"{full}.{oneof.name}",
                    doc=self.source.doc(oneof_path), type="oneof", depth=depth, size=members, noun="oneof",
                ))

    def _occurrence(self, field: FieldDescriptorProto, field_path: _Path, holder: str, depth: int) -> None:
        """The field's type as rules on types see it: a map, an array, a primitive, located
        at the type's name in the declaration."""
        where = self.source.at((*field_path, _FIELD_TYPE_NAME)) or self.source.at((*field_path, _FIELD_TYPE))
        where = where or self.source.at(field_path)
        entry = self._map_entry(field)
        if entry is not None:
            self.out.append(SchemaElement("map", "", where, holder, type="map", depth=depth))
            scalars = [_scalar(f) for f in entry.field]
        else:
            if field.label == FieldDescriptorProto.LABEL_REPEATED:  # at `repeated`, where the field starts
                self.out.append(SchemaElement("array", "", self.source.at(field_path), holder, type="array",
                                              depth=depth))
            scalars = [_scalar(field)]
        for scalar in scalars:
            if scalar is not None:
                self.out.append(SchemaElement("primitive", scalar, where, holder, type=scalar, depth=depth))

    def _enum(self, enum: EnumDescriptorProto, path: _Path, scope: str, depth: int) -> None:
        full = f"{scope}.{enum.name}" if scope else enum.name
        self.out.append(SchemaElement(
            "enum", enum.name, self.source.at(path), full, namespace=self.package or None,
            doc=self.source.doc(path), type=full, depth=depth, size=len(enum.value),
        ))
        for index, value in enumerate(enum.value):
            value_path = (*path, _ENUM_VALUES, index)
            self.out.append(SchemaElement(
                "enumSymbol", value.name, self.source.at(value_path), f"{full}.{value.name}",
                doc=self.source.doc(value_path), depth=depth, record=full, noun="enum value",
            ))


def elements(file: FileDescriptorProto) -> list[SchemaElement]:
    """Every element `file` (compiled with source info) declares; the first message first."""
    return _Walk(file).run()
