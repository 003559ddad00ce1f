"""The shortest spelling of a type name that protoc resolves back to the same type.

Descriptors hold every reference fully qualified (`.shop.Order.Status`); people write
`Status`. The canonical text prints the short spelling, so this module replays protoc's
scoping rule (DescriptorBuilder::LookupSymbol): look the first component up in the
innermost enclosing scope, then outwards; a compound name needs an aggregate (package,
message, enum, service) for its first component; a simple type name skips non-types. Only
symbols of the file itself, its imports and their public imports are visible, as in protoc.
The printed text is compiled again and compared anyway, so a spelling this gets wrong can
never be stored.
"""
from __future__ import annotations

from collections.abc import Iterable, Mapping

from google.protobuf.descriptor_pb2 import DescriptorProto, EnumDescriptorProto, FileDescriptorProto

from app.formats import work_budget

_PACKAGE, _MESSAGE, _ENUM, _SERVICE, _OTHER = range(5)
_AGGREGATES = frozenset({_PACKAGE, _MESSAGE, _ENUM, _SERVICE})
_TYPES = frozenset({_MESSAGE, _ENUM})


class SymbolTable:
    """Every full name (without the leading dot) visible from one file, with its kind."""

    def __init__(self, file: FileDescriptorProto, imports: Mapping[str, FileDescriptorProto]) -> None:
        self._kinds: dict[str, int] = {}
        self._spelled: dict[tuple[str, str, bool], str] = {}
        for visible in _visible_files(file, imports):
            self._add_file(visible)

    def _add_file(self, file: FileDescriptorProto) -> None:
        package = file.package
        if package:
            parts = package.split(".")
            for i in range(1, len(parts) + 1):
                self._kinds.setdefault(".".join(parts[:i]), _PACKAGE)
        prefix = f"{package}." if package else ""
        for message in file.message_type:
            self._add_message(prefix + message.name, message)
        for enum in file.enum_type:
            self._add_enum(prefix, enum)
        for extension in file.extension:
            self._kinds.setdefault(prefix + extension.name, _OTHER)
        for service in file.service:
            self._kinds[prefix + service.name] = _SERVICE
            for method in service.method:
                self._kinds.setdefault(f"{prefix}{service.name}.{method.name}", _OTHER)

    def _add_message(self, full: str, message: DescriptorProto) -> None:
        work_budget.check()
        self._kinds[full] = _MESSAGE
        for nested in message.nested_type:
            self._add_message(f"{full}.{nested.name}", nested)
        for enum in message.enum_type:
            self._add_enum(f"{full}.", enum)
        for member in (*message.field, *message.extension, *message.oneof_decl):
            self._kinds.setdefault(f"{full}.{member.name}", _OTHER)

    def _add_enum(self, prefix: str, enum: EnumDescriptorProto) -> None:
        self._kinds[prefix + enum.name] = _ENUM
        # Enum values are siblings of their enum (C++ scoping), so they can shadow types.
        for value in enum.value:
            self._kinds.setdefault(prefix + value.name, _OTHER)

    def resolve(self, name: str, relative_to: str) -> str | None:
        """The full name (no leading dot) that `name` means inside `relative_to`, any kind of
        symbol (an option's name, which protoc looks up as it looks up types)."""
        return self._resolve(name, relative_to, False)

    def _resolve(self, name: str, relative_to: str, types_only: bool) -> str | None:
        first = name.split(".", 1)[0]
        scope = relative_to
        while True:
            dot = scope.rfind(".")
            if dot < 0:
                return name if name in self._kinds else None
            scope = scope[:dot]
            kind = self._kinds.get(f"{scope}.{first}")
            if kind is None:
                continue
            if first != name:
                if kind in _AGGREGATES:
                    full = f"{scope}.{name}"
                    return full if full in self._kinds else None
            elif not types_only or kind in _TYPES:
                return f"{scope}.{name}"

    def shortest(self, target: str, relative_to: str, *, types_only: bool = True) -> str:
        """`target` (`.a.b.C`) as written from inside the element named `relative_to`
        (a field's or method's full name, or a scope name plus a dummy last component).
        protoc drops that last component before looking, so the answer depends on the scope."""
        key = (target, relative_to.rpartition(".")[0], types_only)
        spelled = self._spelled.get(key)
        if spelled is None:
            spelled = self._spelled[key] = self._shortest(target, relative_to, types_only)
        return spelled

    def _shortest(self, target: str, relative_to: str, types_only: bool) -> str:
        full = target[1:] if target.startswith(".") else target
        parts = full.split(".")
        for i in range(len(parts) - 1, -1, -1):
            candidate = ".".join(parts[i:])
            if self._resolve(candidate, relative_to, types_only) == full:
                return candidate
        return "." + full


    def qualified(self, target: str, relative_to: str) -> str:
        """`target`'s full name, without the leading dot when that spelling still resolves
        to it (an option name such as `confluent.field_meta`, as people write it)."""
        full = target[1:] if target.startswith(".") else target
        return full if self._resolve(full, relative_to, False) == full else "." + full


def _visible_files(
    file: FileDescriptorProto, imports: Mapping[str, FileDescriptorProto]
) -> Iterable[FileDescriptorProto]:
    yield file
    seen: set[str] = set()
    pending = list(file.dependency)
    while pending:
        name = pending.pop()
        if name in seen or name not in imports:
            continue
        seen.add(name)
        dep = imports[name]
        yield dep
        pending.extend(dep.dependency[i] for i in dep.public_dependency)
